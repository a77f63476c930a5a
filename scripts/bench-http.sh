#!/usr/bin/env bash
# HTTP load runs of make bench: the junction binary's Caller, Publisher and
# Reverse Proxy, each beside a baseline measured in the same run with the
# same load generator:
#   - POST /call -> Go callee over WebSocket -> 200, at 1, 10 and 50
#     connections, beside a plain net/http handler answering a fixed JSON body;
#   - POST /publish with one subscriber, beside the plain handler;
#   - GET through /proxy, beside the same upstream measured directly, with
#     two references to the same upstream: a TCP forwarder (the least work
#     any proxy does: the ceiling on this machine) and nginx (if installed);
#   - POST /call to a RESTCallee (a container node in a second junction
#     process, connected over WebSocket) that GETs the same upstream:
#     Callee calls/s through the Caller.
# Everything runs under wrk (C, one thread); the Caller and Publisher runs
# are repeated under hey, a Go load generator (ratios under both). The
# generator shares the two cores with the node and its peers, so its own
# cost per request weighs on every ratio: wrk drives the plain handler at
# about twice hey's rate.
# Everything listens on 127.0.0.1 with ports chosen by the OS; every process
# started here is stopped by PID at the end.
# The ratio targets are measured in alternating rounds (baseline, service)
# and reported with their median.
# Usage: scripts/bench-http.sh [seconds per run [rounds]]   (default 10 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
rounds=${2:-3}

missing=()
for tool in wrk hey; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "bench-http: installing ${missing[*]} (Debian packages)" >&2
	apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/junction" ./cmd/junction
go build -o "$tmp/loadpeer" ./test/bench/loadpeer

# start NAME CMD...: runs CMD with stdin held open, waits for its "ready"
# line and sets $started to the rest of that line (an address, for
# servers). Not to be called in a subshell: it records the PID and keeps
# the stdin pipe open in this shell.
start() {
	local name=$1
	shift
	mkfifo "$tmp/$name.in"
	"$@" <"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pids+=($!)
	exec {fd}>"$tmp/$name.in"
	for _ in $(seq 100); do
		if grep -q '^ready' "$tmp/$name.out" 2>/dev/null; then
			started=$(sed -n 's/^ready *//p' "$tmp/$name.out" | head -1)
			return
		fi
		sleep 0.1
	done
	echo "bench-http: $name did not start:" >&2
	cat "$tmp/$name.err" >&2
	exit 1
}

start upstream "$tmp/loadpeer" upstream 127.0.0.1:0
upstream=$started
start plain "$tmp/loadpeer" plain 127.0.0.1:0
plain=$started
start tcpforward "$tmp/loadpeer" tcpforward 127.0.0.1:0 "$upstream"
tcpforward=$started

cat >"$tmp/config.json" <<JSON
{"version": 2, "workers": [{"type": "router",
  "realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [
    {"uri": "", "match": "prefix", "allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}]}],
  "transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
    "paths": {
      "ws": {"type": "websocket"},
      "call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
      "publish": {"type": "publisher", "realm": "realm1", "role": "anonymous"},
      "proxy": {"type": "reverseproxy", "host": "${upstream%:*}", "port": ${upstream##*:}}
    }}]}]}
JSON
"$tmp/junction" start --config "$tmp/config.json" --logformat json 2>"$tmp/junction.log" &
pids+=($!)
node=""
for _ in $(seq 100); do
	node=$(grep -o '"msg":"listening".*"address":"[^"]*"' "$tmp/junction.log" 2>/dev/null | sed 's/.*"address":"//;s/"$//' | head -1 || true)
	[ -n "$node" ] && grep -q '"node started"' "$tmp/junction.log" && break
	sleep 0.1
done
[ -n "$node" ] || { cat "$tmp/junction.log" >&2; exit 1; }

# The container node: a RESTCallee for the upstream, over WebSocket.
cat >"$tmp/container.json" <<JSON
{"version": 2, "workers": [{"type": "container", "components": [{
  "type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
  "extra": {"procedure": "com.bench.rest", "baseurl": "http://$upstream"},
  "transport": {"type": "websocket", "url": "ws://$node/ws",
    "endpoint": {"type": "tcp", "host": "${node%:*}", "port": ${node##*:}}}}]}]}
JSON
"$tmp/junction" start --config "$tmp/container.json" --logformat json 2>"$tmp/container.log" &
pids+=($!)
for _ in $(seq 100); do
	grep -q 'callee registered' "$tmp/container.log" && break
	sleep 0.1
done
grep -q 'callee registered' "$tmp/container.log" || { cat "$tmp/container.log" >&2; exit 1; }

# nginx, when installed, as a reference reverse proxy to the same upstream
# (one worker, keep-alive upstream connections). nginx cannot report a
# port it chose, so a free one is picked first (retried if taken meanwhile).
nginx=""
if command -v nginx >/dev/null; then
	mkdir -p "$tmp/nginx"
	for _ in 1 2 3; do
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  upstream up { server $upstream; keepalive 64; }
  server {
    listen 127.0.0.1:$port;
    location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
		nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx" 2>>"$tmp/nginx/start.err" &
		npid=$!
		pids+=($npid)
		for _ in $(seq 50); do
			curl -sf -o /dev/null "http://127.0.0.1:$port/page" && nginx=127.0.0.1:$port && break
			kill -0 "$npid" 2>/dev/null || break
			sleep 0.1
		done
		[ -n "$nginx" ] && break
	done
	[ -n "$nginx" ] || echo "bench-http: nginx did not start; no reference proxy" >&2
else
	echo "bench-http: nginx not installed (apt-get install nginx-light); no reference proxy" >&2
fi

start callee "$tmp/loadpeer" callee "ws://$node/ws" realm1 com.bench.echo
start subscriber "$tmp/loadpeer" subscriber "ws://$node/ws" realm1 com.bench.topic

# load NAME METHOD [JSON]: a request the generators send, as a wrk script
# ($tmp/NAME.lua) and, for hey, a body file ($tmp/NAME.body).
declare -A methods
load() {
	local name=$1 method=$2 body=${3:-}
	methods[$name]=$method
	printf '%s' "$body" >"$tmp/$name.body"
	{
		echo "wrk.method = \"$method\""
		if [ -n "$body" ]; then
			echo "wrk.body = '$body'"
			echo 'wrk.headers["Content-Type"] = "application/json"'
		fi
	} >"$tmp/$name.lua"
}
load call POST '{"procedure":"com.bench.echo","args":[42]}'
load rest POST '{"procedure":"com.bench.rest","kwargs":{"method":"GET","url":"page"}}'
load publish POST '{"topic":"com.bench.topic","args":[42]}'
load get GET

# measure CONNS URL LOAD: one run of $gen; sets rps, p50, p99 and errs
# (non-2xx answers and socket errors, empty when there were none).
measure() {
	local conns=$1 url=$2 name=$3
	local out
	case $gen in
	wrk)
		out=$(wrk -t1 -c"$conns" -d"${secs}s" --latency -s "$tmp/$name.lua" "$url")
		rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
		p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
		p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
		errs=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
		;;
	hey)
		local body=()
		[ -s "$tmp/$name.body" ] && body=(-T application/json -D "$tmp/$name.body")
		out=$(hey -c "$conns" -z "${secs}s" -m "${methods[$name]}" "${body[@]}" "$url")
		rps=$(awk '/Requests\/sec/ {printf "%.2f", $2}' <<<"$out")
		p50=$(awk '$1 == "50%" {printf "%.2fms", $3 * 1000}' <<<"$out")
		p99=$(awk '$1 == "99%" {printf "%.2fms", $3 * 1000}' <<<"$out")
		errs=$(awk '/^Status code distribution/ {s = 1; next} /^Error distribution/ {s = 0; e = 1; next}
			s && /\[[0-9]+\]/ && $1 !~ /^\[2/ {printf "status %s %s ", $1, $2}
			e && NF {print "error:", $0}' <<<"$out" | tr '\n' ' ')
		;;
	esac
}

# run LABEL CONNS URL LOAD: one run, summarised on one line.
run() {
	local label=$1
	shift
	measure "$@"
	printf '%-28s c=%-3s %10s req/s   p50 %-9s p99 %-9s %s\n' "$label" "$1" "$rps" "$p50" "$p99" "$errs"
}

# pairs LABEL BASE-LABEL BASE-URL URL LOAD: $rounds alternating runs
# of the baseline and the service at 50 connections, each pair's ratio
# and the median ratio (the machine's speed drifts between runs; a pair
# taken back to back shares the drift).
pairs() {
	local label=$1 base_label=$2 base_url=$3 url=$4 name=$5
	local ratios=() base
	for i in $(seq "$rounds"); do
		run "$base_label" 50 "$base_url" "$name"
		base=$rps
		run "$label" 50 "$url" "$name"
		ratios+=("$(awk -v a="$rps" -v b="$base" 'BEGIN {printf "%.1f", 100 * a / b}')")
		echo "    ratio, round $i: ${ratios[-1]} %"
	done
	printf '%s\n' "${ratios[@]}" | sort -n | awk -v l="$label" '{r[NR] = $1} END {printf "==> %s: median %s %% of the baseline over %d rounds\n", l, r[int((NR + 1) / 2)], NR}'
}

# bridge_runs: the Caller at 1, 10 and 50 connections and the Publisher,
# each beside the plain handler, under $gen.
bridge_runs() {
	echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $gen, ${secs}s runs, node and peers on 127.0.0.1"
	for c in 1 10; do
		run "plain net/http handler" "$c" "http://$plain/" call
		run "caller POST /call" "$c" "http://$node/call" call
	done
	pairs "caller POST /call" "plain net/http handler" "http://$plain/" "http://$node/call" call
	pairs "publisher POST /publish" "plain net/http handler" "http://$plain/" "http://$node/publish" publish
}

gen=wrk
bridge_runs
pairs "reverse proxy GET /proxy" "upstream direct GET" "http://$upstream/page" "http://$node/proxy/page" get
pairs "TCP forwarder GET" "upstream direct GET" "http://$upstream/page" "http://$tcpforward/page" get
if [ -n "$nginx" ]; then
	pairs "nginx reverse proxy GET" "upstream direct GET" "http://$upstream/page" "http://$nginx/page" get
fi
run "caller -> RESTCallee GET" 50 "http://$node/call" rest
gen=hey
bridge_runs
