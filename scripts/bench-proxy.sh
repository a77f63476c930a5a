#!/usr/bin/env bash
# Reverse proxy runs of make bench (issue 12): the same 1 KiB upstream
# (loadpeer upstream, a plain net/http server) fetched
#   - directly (the ceiling),
#   - through Junction's reverseproxy path service, on net/http's server
#     ("Junction"), on Junction's own HTTP/1.1 engine ("Junction-h1",
#     the web transport's "http_engine": "junction") and on its event
#     loops ("Junction-loop", "http_engine": "loop"), three nodes,
#   - through nginx (Debian's 1.22: one worker, keep-alive upstream
#     connections),
#   - through Caddy (Debian's 2.6, its default reverse_proxy),
# with wrk (one thread, 50 connections, SECS-second runs) in ROUNDS rounds
# whose order rotates (round i starts with the i-th target), so that each
# target takes each place in turn and shares the machine's drift. It
# prints each run, then a Markdown table: per target the median and the
# spread (min-max) of throughput, p99 latency and the proxy's CPU time per
# request (user + system, all its threads and processes; for "direct", the
# upstream's), and per round each Junction's throughput as a percentage of
# nginx's and its p99 as a multiple of nginx's, with their medians and
# spreads against the targets (>= 80 %, <= 1.25x). CPU per request
# depends less than throughput and p99 on what else runs on the machine.
#
# wrk, nginx and caddy are installed from Debian when missing. nginx's and
# Caddy's configurations are generated into a temporary directory; every
# server listens on 127.0.0.1 on a free port; every process started here is
# stopped by its PID at the end (bench-common.sh).
# Usage: scripts/bench-proxy.sh [seconds per run [rounds]]   (default 5 and 5)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
rounds=${2:-5}
conns=50

bench=bench-proxy
source scripts/bench-common.sh
need wrk nginx=nginx-light caddy

start upstream "$tmp/loadpeer" upstream 127.0.0.1:0
upstream=$started upstream_pid=$started_pid

# junction_config ENGINE: a node whose web transport proxies /proxy to the
# upstream on the HTTP engine ENGINE.
junction_config() {
	cat <<JSON
{"version": 2, "workers": [{"type": "router", "realms": [{"name": "realm1"}],
  "transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
    "options": {"http_engine": "$1"},
    "paths": {"proxy": {"type": "reverseproxy", "host": "${upstream%:*}", "port": ${upstream##*:}}}}]}]}
JSON
}
junction_config stdlib >"$tmp/junction.json"
start_node junction "$tmp/junction.json"
j_std=$node j_std_pid=$node_pid
junction_config junction >"$tmp/junction-h1.json"
start_node junction-h1 "$tmp/junction-h1.json"
j_h1=$node j_h1_pid=$node_pid
junction_config loop >"$tmp/junction-loop.json"
start_node junction-loop "$tmp/junction-loop.json"
j_loop=$node j_loop_pid=$node_pid

# spawn NAME CMD...: runs CMD in the background, its output in $tmp/NAME.*;
# sets $pid and records it for the cleanup.
spawn() {
	local name=$1
	shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	pids+=("$pid")
}

# wait_for NAME URL: waits until URL answers 200 while NAME's process
# ($pid) runs; returns 1 if it does not.
wait_for() {
	local name=$1 url=$2
	for _ in $(seq 100); do
		curl -sf -o /dev/null "$url" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "bench-proxy: $name did not start:" >&2
	cat "$tmp/$name.err" "$tmp/$name.out" >&2
	return 1
}

# on_free_port NAME CONFIG-FUNCTION CMD...: writes the configuration with
# CONFIG-FUNCTION PORT for a port free now, starts CMD and waits for it;
# sets $addr and $pid. nginx and Caddy cannot report a port they chose,
# and a port taken meanwhile fails the start: it is retried.
on_free_port() {
	local name=$1 config=$2 port
	shift 2
	for _ in 1 2 3; do
		port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		"$config" "$port"
		spawn "$name" "$@"
		if wait_for "$name" "http://127.0.0.1:$port/page"; then
			addr=127.0.0.1:$port
			return
		fi
		kill "$pid" 2>/dev/null || true
	done
	exit 1
}

mkdir -p "$tmp/nginx"
nginx_config() {
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
    listen 127.0.0.1:$1;
    location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
}
on_free_port nginx nginx_config nginx -c "$tmp/nginx/nginx.conf" -p "$tmp/nginx"
nginx=$addr nginx_pid=$pid

# Caddy keeps its state under XDG_DATA_HOME and XDG_CONFIG_HOME, both in
# $tmp; no admin endpoint, no automatic HTTPS.
caddy_config() {
	cat >"$tmp/caddy.json" <<JSON
{"admin": {"disabled": true},
 "logging": {"logs": {"default": {"level": "ERROR"}}},
 "apps": {"http": {"servers": {"bench": {
   "listen": ["127.0.0.1:$1"],
   "automatic_https": {"disable": true},
   "routes": [{"handle": [{"handler": "reverse_proxy", "upstreams": [{"dial": "$upstream"}]}]}]}}}}}
JSON
}
on_free_port caddy caddy_config env XDG_DATA_HOME="$tmp/caddy" XDG_CONFIG_HOME="$tmp/caddy" \
	caddy run --config "$tmp/caddy.json"
caddy=$addr caddy_pid=$pid

# wrk prints "result RPS P99_MS ERRORS REQUESTS" after its own summary.
cat >"$tmp/result.lua" <<'LUA'
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("result %.1f %.3f %d %d\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(99) / 1000, e.connect + e.read + e.write + e.status + e.timeout, summary.requests))
end
LUA

names=(direct Junction Junction-h1 Junction-loop nginx Caddy)
urls=("http://$upstream/page" "http://$j_std/proxy/page" "http://$j_h1/proxy/page" "http://$j_loop/proxy/page" "http://$nginx/page" "http://$caddy/page")
cpu_pids=("$upstream_pid" "$j_std_pid" "$j_h1_pid" "$j_loop_pid" "$nginx_pid" "$caddy_pid")
ngx=4 # the index of nginx, the reference of the ratios
hz=$(getconf CLK_TCK)

# measure I SECS: one wrk run against target I; sets $r_rps, $r_p99 (ms)
# and $r_cpu (µs of CPU per request: the proxy's, the upstream's for
# direct). Any error (socket error, non-2xx answer) stops the script.
measure() {
	local out line errs n t0 t1
	t0=$(cpu_ticks "${cpu_pids[$1]}")
	out=$(wrk -t1 -c"$conns" -d"$2s" --latency -s "$tmp/result.lua" "${urls[$1]}")
	t1=$(cpu_ticks "${cpu_pids[$1]}")
	line=$(grep '^result ' <<<"$out")
	read -r _ r_rps r_p99 errs n <<<"$line"
	if [ "$errs" != 0 ]; then
		echo "bench-proxy: ${names[$1]}: $errs errors (socket errors or non-2xx answers)" >&2
		echo "$out" >&2
		exit 1
	fi
	r_cpu=$(awk -v t="$((t1 - t0))" -v hz="$hz" -v n="$n" 'BEGIN {print 1e6 * t / hz / n}')
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# wrk -t1 -c$conns -d${secs}s, $rounds rotating rounds; $(nginx -v 2>&1 | sed 's/.*: //'), caddy $(caddy version | cut -d' ' -f1), $(go version | cut -d' ' -f3)"
for i in "${!names[@]}"; do measure "$i" 1; done # warm-up: pools, heaps
declare -A rps p99 cpu
n=${#names[@]}
for r in $(seq 0 $((rounds - 1))); do
	line="round $((r + 1)):"
	for k in $(seq 0 $((n - 1))); do
		i=$(((r + k) % n))
		measure "$i" "$secs"
		rps[$i,$r]=$r_rps p99[$i,$r]=$r_p99 cpu[$i,$r]=$r_cpu
		line+=$(printf '  %s %.0f req/s, p99 %.2f ms, %.0f µs CPU;' "${names[$i]}" "$r_rps" "$r_p99" "$r_cpu")
	done
	echo "$line"
done

# stats FORMAT VALUES...: "median (min-max)" of the values.
stats() {
	local f=$1
	shift
	printf '%s\n' "$@" | sort -g | awk -v f="$f" '{v[NR] = $1}
		END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf f " (" f "-" f ")", m, v[1], v[NR]}'
}
# column I ARRAY: the values of target I, one per round.
column() {
	local -n a=$2
	for r in $(seq 0 $((rounds - 1))); do echo "${a[$1,$r]}"; done
}
# verdict "MEDIAN ..." OP LIMIT: "met" or "not met".
verdict() {
	awk -v v="${1%% *}" -v op="$2" -v lim="$3" 'BEGIN {print (op == ">=" ? v >= lim : v <= lim) ? "met" : "not met"}'
}

echo
echo "Median (min-max) of $rounds rotating rounds, wrk -t1 -c$conns -d${secs}s, 1 KiB upstream:"
echo
echo "| Target | req/s | p99 ms | CPU µs/request |"
echo "| --- | --- | --- | --- |"
for i in "${!names[@]}"; do
	echo "| ${names[$i]} | $(stats %.0f $(column "$i" rps)) | $(stats %.2f $(column "$i" p99)) | $(stats %.0f $(column "$i" cpu)) |"
done
echo
echo "| per round | Median (min-max) | Target |"
echo "| --- | --- | --- |"
for j in 1 2 3; do
	thr=() lat=()
	for r in $(seq 0 $((rounds - 1))); do
		thr+=("$(awk -v a="${rps[$j,$r]}" -v b="${rps[$ngx,$r]}" 'BEGIN {print 100 * a / b}')")
		lat+=("$(awk -v a="${p99[$j,$r]}" -v b="${p99[$ngx,$r]}" 'BEGIN {print a / b}')")
	done
	t=$(stats %.1f "${thr[@]}")
	l=$(stats %.2f "${lat[@]}")
	echo "| ${names[$j]} / nginx throughput | $t % | >= 80 %: $(verdict "$t" '>=' 80) |"
	echo "| ${names[$j]} / nginx p99 | $l x | <= 1.25x: $(verdict "$l" '<=' 1.25) |"
done
