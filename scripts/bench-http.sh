#!/usr/bin/env bash
# HTTP load runs of make bench: the junction binary's Caller, Publisher and
# Reverse Proxy under wrk, each beside a baseline measured in the same run
# with the same load generator:
#   - POST /call -> Go callee over WebSocket -> 200, at 1, 10 and 50
#     connections, beside a plain net/http handler answering a fixed JSON body;
#   - POST /publish with one subscriber, beside the plain handler;
#   - GET through /proxy, beside the same upstream measured directly.
# Everything listens on 127.0.0.1 with ports chosen by the OS; every process
# started here is stopped by PID at the end.
# Usage: scripts/bench-http.sh [seconds per run]   (default 10)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}

if ! command -v wrk >/dev/null; then
	echo "bench-http: installing wrk (Debian package)" >&2
	apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q wrk >&2
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

start callee "$tmp/loadpeer" callee "ws://$node/ws" realm1 com.bench.echo
start subscriber "$tmp/loadpeer" subscriber "ws://$node/ws" realm1 com.bench.topic

cat >"$tmp/call.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"procedure":"com.bench.echo","args":[42]}'
wrk.headers["Content-Type"] = "application/json"
LUA
cat >"$tmp/publish.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"topic":"com.bench.topic","args":[42]}'
wrk.headers["Content-Type"] = "application/json"
LUA

# run LABEL CONNS URL [SCRIPT]: one wrk run, summarised on one line.
run() {
	local label=$1 conns=$2 url=$3 script=${4:-}
	local out
	out=$(wrk -t1 -c"$conns" -d"${secs}s" --latency ${script:+-s "$script"} "$url")
	local rps p50 p99 errs
	rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
	p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
	p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
	errs=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | tr '\n' ' ')
	printf '%-28s c=%-3s %10s req/s   p50 %-9s p99 %-9s %s\n' "$label" "$conns" "$rps" "$p50" "$p99" "$errs"
}

echo "# $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, wrk -t1 -d${secs}s, node and peers on 127.0.0.1"
for c in 1 10 50; do
	run "plain net/http handler" "$c" "http://$plain/" "$tmp/call.lua"
	run "caller POST /call" "$c" "http://$node/call" "$tmp/call.lua"
done
run "plain net/http handler" 50 "http://$plain/" "$tmp/publish.lua"
run "publisher POST /publish" 50 "http://$node/publish" "$tmp/publish.lua"
run "upstream direct GET" 50 "http://$upstream/page"
run "reverse proxy GET /proxy" 50 "http://$node/proxy/page"
