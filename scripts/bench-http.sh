#!/usr/bin/env bash
# HTTP load runs of make bench: the junction binary's Caller and Publisher,
# each beside a baseline measured in the same run with the same load
# generator:
#   - POST /call -> Go callee over WebSocket -> 200, at 1, 10 and 50
#     connections, beside a plain net/http handler answering a fixed JSON body;
#   - POST /publish with one subscriber, beside the plain handler;
#   - POST /call to a RESTCallee (a container node in a second junction
#     process, connected over WebSocket) that GETs a 1 KiB upstream:
#     Callee calls/s through the Caller.
# Everything runs under wrk (C, one thread); the Caller and Publisher runs
# are repeated under hey, a Go load generator (issue 4 allows either). The
# generator shares the two cores with the node and its peers, so its own
# cost per request weighs on every ratio: wrk drives the plain handler at
# about twice hey's rate. The reverse proxy has a script of its own,
# bench-proxy.sh.
# Everything listens on 127.0.0.1 with ports chosen by the OS; every process
# started here is stopped by PID at the end (bench-common.sh).
# The ratio targets are measured in alternating rounds (baseline, service)
# and reported with their median, with the node's CPU time per request.
# The Caller and Publisher run on one node per HTTP engine of the web
# transport ("http_engine"), BENCH_ENGINES (default "stdlib junction"):
# both engines are measured in the same run.
# Usage: scripts/bench-http.sh [seconds per run [rounds]]   (default 10 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}

bench=bench-http
source scripts/bench-common.sh
need wrk hey

start upstream "$tmp/loadpeer" upstream 127.0.0.1:0
upstream=$started
start plain "$tmp/loadpeer" plain 127.0.0.1:0
plain=$started

read -ra engines <<<"${BENCH_ENGINES:-stdlib junction}"
declare -A nodes node_pids
for e in "${engines[@]}"; do
	cat >"$tmp/config-$e.json" <<JSON
{"version": 2, "workers": [{"type": "router",
  "realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [
    {"uri": "", "match": "prefix", "allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}]}],
  "transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
    "options": {"http_engine": "$e"},
    "paths": {
      "ws": {"type": "websocket"},
      "call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
      "publish": {"type": "publisher", "realm": "realm1", "role": "anonymous"}
    }}]}]}
JSON
	start_node "junction-$e" "$tmp/config-$e.json"
	nodes[$e]=$node node_pids[$e]=$node_pid
	start "callee-$e" "$tmp/loadpeer" callee "ws://$node/ws" realm1 com.bench.echo
	start "subscriber-$e" "$tmp/loadpeer" subscriber "ws://$node/ws" realm1 com.bench.topic
done
node=${nodes[${engines[0]}]} # the RESTCallee's router

# The container node: a RESTCallee for the upstream, over WebSocket.
cat >"$tmp/container.json" <<JSON
{"version": 2, "workers": [{"type": "container", "components": [{
  "type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
  "extra": {"procedure": "com.bench.rest", "baseurl": "http://$upstream"},
  "transport": {"type": "websocket", "url": "ws://$node/ws",
    "endpoint": {"type": "tcp", "host": "${node%:*}", "port": ${node##*:}}}}]}]}
JSON
run_node container "$tmp/container.json" 'callee registered'

source scripts/bench-load.sh
load call POST '{"procedure":"com.bench.echo","args":[42]}'
load rest POST '{"procedure":"com.bench.rest","kwargs":{"method":"GET","url":"page"}}'
load publish POST '{"topic":"com.bench.topic","args":[42]}'

# run LABEL CONNS URL LOAD: one run, summarised on one line.
run() {
	local label=$1
	shift
	measure "$@"
	printf '%-28s c=%-3s %10s req/s   p50 %-9s p99 %-9s %s\n' "$label" "$1" "$rps" "$p50" "$p99" "$errs"
}

# pairs LABEL BASE-LABEL BASE-URL URL LOAD NODE-PID: $rounds alternating
# runs of the baseline and the service at 50 connections, each pair's
# ratio and the node's CPU time per request, and their medians (the
# machine's speed drifts between runs; a pair taken back to back shares
# the drift).
pairs() {
	local label=$1 base_label=$2 base_url=$3 url=$4 name=$5 pid=$6
	local ratios=() cpus=() base t0 t1 n
	for i in $(seq "$rounds"); do
		run "$base_label" 50 "$base_url" "$name"
		base=$rps
		t0=$(cpu_ticks "$pid")
		run "$label" 50 "$url" "$name"
		t1=$(cpu_ticks "$pid")
		ratios+=("$(awk -v a="$rps" -v b="$base" 'BEGIN {printf "%.1f", 100 * a / b}')")
		cpus+=("$(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v r="$rps" -v s="$secs" 'BEGIN {printf "%.0f", 1e6 * t / hz / (r * s)}')")
		echo "    ratio, round $i: ${ratios[-1]} %, node CPU ${cpus[-1]} µs/request"
	done
	printf '%s\n' "${ratios[@]}" | sort -n | awk -v l="$label" '{r[NR] = $1} END {printf "==> %s: median %s %% of the baseline over %d rounds", l, r[int((NR + 1) / 2)], NR}'
	printf '%s\n' "${cpus[@]}" | sort -n | awk '{r[NR] = $1} END {printf ", node CPU median %s µs/request\n", r[int((NR + 1) / 2)]}'
}

# bridge_runs: the Caller at 1, 10 and 50 connections and the Publisher,
# each beside the plain handler, under $gen, on each engine's node.
bridge_runs() {
	echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $gen, ${secs}s runs, node and peers on 127.0.0.1, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	local e n
	for c in 1 10; do
		run "plain net/http handler" "$c" "http://$plain/" call
		for e in "${engines[@]}"; do
			run "caller POST /call ($e)" "$c" "http://${nodes[$e]}/call" call
		done
	done
	for e in "${engines[@]}"; do
		n=${nodes[$e]}
		pairs "caller POST /call ($e)" "plain net/http handler" "http://$plain/" "http://$n/call" call "${node_pids[$e]}"
		pairs "publisher POST /publish ($e)" "plain net/http handler" "http://$plain/" "http://$n/publish" publish "${node_pids[$e]}"
	done
}

gen=wrk
bridge_runs
run "caller -> RESTCallee GET" 50 "http://$node/call" rest
gen=hey
bridge_runs
