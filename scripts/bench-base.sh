#!/usr/bin/env bash
# The base-vs-head runs of make bench: the junction binary built at a base
# commit and from the work tree, both measured in one run, row by row, by
# the same load generator (test/bench/loadgen, built once from the work
# tree) and the same HTTP generator (wrk), in rotating order: round 1
# measures each row on the base build then the head build, round 2 head
# then base, and so on, so that a drift of the machine hits both alike.
# Rows (docs/BENCHMARKS.md, "Base against head", says what each means):
#   - RPC at 1 call in flight, JSON over WebSocket: calls/s and p99;
#   - RPC at 64 calls in flight, each serializer over WebSocket: calls/s;
#   - fan-out to 100 and 1,000 subscribers (msgpack, WebSocket): events/s,
#     no drop allowed;
#   - the HTTP Caller and Publisher (wrk, 50 connections) as a percentage
#     of a plain net/http handler measured just before each;
#   - idle sessions (10,000, WebSocket and RawSocket): the router's RSS
#     growth per session;
#   - system calls of the router per call at 1 call in flight (strace -c
#     -f over a fixed number of calls): read, write, futex, epoll_pwait and
#     all of them.
# Each router is the binary as shipped, started from a config written here
# (127.0.0.1, ports chosen by the OS), a fresh one for each row and build;
# every process is started and stopped here by PID, and the base's work
# tree is removed on exit. It prints one line per measurement, then the
# table: each row's median over the rounds for base and head, head/base,
# and the smallest and largest of the rounds' own head/base ratios (their
# spread is the instrument's noise).
# Usage: scripts/bench-base.sh [BASE [ROUNDS]]
#   BASE: a commit, default $BENCH_BASE or 21bf6ab (main before issue 16);
#   ROUNDS: default $BENCH_ROUNDS or 7 (about 20 minutes on 2 cores).
#   BENCH_SECS: seconds per load run (default 3).
#   BENCH_ONLY: an extended regular expression; only the measurements
#   whose function and arguments match it run, e.g. BENCH_ONLY=idle for
#   the two idle rows, 'rpc1|syscalls' for 1 call in flight.
set -euo pipefail
cd "$(dirname "$0")/.."
base_ref=${1:-${BENCH_BASE:-21bf6ab}}
rounds=${2:-${BENCH_ROUNDS:-7}}
secs=${BENCH_SECS:-3}
only=${BENCH_ONLY:-}
idle_sessions=10000
strace_calls=2000
base=$(git rev-parse --verify "$base_ref^{commit}")

bench=bench-base
source scripts/bench-common.sh
source scripts/bench-load.sh
need wrk strace
gen=wrk

# The base build, from a work tree of its own, removed at once (and on
# exit, should the build fail).
remove_base_tree() { git worktree remove --force "$tmp/base-src" 2>/dev/null || true; }
trap 'remove_base_tree; cleanup' EXIT
git worktree add --detach -q "$tmp/base-src" "$base"
mkdir "$tmp/base" "$tmp/head"
(cd "$tmp/base-src" && go build -o "$tmp/base/junction" ./cmd/junction)
remove_base_tree
mv "$tmp/junction" "$tmp/head/junction"
go build -o "$tmp/loadgen" ./test/bench/loadgen

# One config for every router: WebSocket, RawSocket (both room for the
# idle sessions) and a web transport with the HTTP bridge services.
cat >"$tmp/router.json" <<JSON
{"version": 2, "workers": [{"type": "router",
  "realms": [{"name": "realm1", "roles": [{"name": "anonymous", "permissions": [
    {"uri": "", "match": "prefix", "allow": {"call": true, "register": true, "publish": true, "subscribe": true}}]}]}],
  "transports": [
    {"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, "max_connections": $((idle_sessions + 100))}},
    {"type": "rawsocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0, "max_connections": $((idle_sessions + 100))}},
    {"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
     "paths": {
       "ws": {"type": "websocket"},
       "call": {"type": "caller", "realm": "realm1", "role": "anonymous"},
       "publish": {"type": "publisher", "realm": "realm1", "role": "anonymous"}}}]}]}
JSON
load call POST '{"procedure":"com.bench.echo","args":[42]}'
load publish POST '{"topic":"com.bench.topic","args":[42]}'
start plain "$tmp/loadpeer" plain 127.0.0.1:0
plain=$started

# router_up BUILD: starts BUILD's junction with the config; sets $router
# (its PID), $ws, $rs and $web (the addresses of its three transports).
seq_no=0
router_up() {
	seq_no=$((seq_no + 1))
	local name="router-$1-$seq_no"
	junction=$tmp/$1/junction run_node "$name" "$tmp/router.json" '"node started"'
	router=$node_pid
	ws=$(listening "$name" 0)
	rs=$(listening "$name" 1)
	web=$(listening "$name" 2)
}

# listening NAME INDEX: the address transport INDEX of router NAME logged.
listening() {
	grep -o "transports\[$2\]\",\"type\":\"[a-z]*\",.*\"address\":\"[^\"]*\"" "$tmp/$1.log" | sed 's/.*"address":"//;s/"$//'
}

# stop PID: SIGTERM to a process started here, and wait for it.
stop() {
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# field KEY JSON: the number KEY holds in the JSON line.
field() { grep -o "\"$1\":[-0-9.e+]*" <<<"$2" | head -1 | cut -d: -f2; }

# record ROUND BUILD ROW VALUE: one measurement, printed and kept.
record() {
	printf 'round %s  %-4s  %-16s %12.2f\n' "$1" "$2" "$3" "$4"
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$tmp/results.tsv"
}

# loadgen MODE FLAGS...: one loadgen run; prints its JSON line, or prints
# its error and counts a failure in $tmp/failures (the run goes on: the
# round lacks that value, and the script exits with status 1 at the end).
# Called in a subshell ($(...)), hence the file.
loadgen() {
	local out
	if ! out=$("$tmp/loadgen" "$@" 2>"$tmp/loadgen.err"); then
		echo "$bench: FAILED: loadgen $*: $(cat "$tmp/loadgen.err") $out" >&2
		echo "loadgen $*" >>"$tmp/failures"
		return 1
	fi
	echo "$out"
}

# Each measure_* ROUND BUILD [ARGS] measures its row(s) on a fresh router.

measure_rpc1() {
	router_up "$2"
	local out
	if out=$(loadgen rpc -addr "$ws" -serializer json -inflight 1 -duration "${secs}s"); then
		record "$1" "$2" rpc1_calls "$(field calls_per_s "$out")"
		record "$1" "$2" rpc1_p99 "$(field p99_us "$out")"
	fi
	stop "$router"
}

measure_rpc64() { # ... SERIALIZER
	router_up "$2"
	local out
	out=$(loadgen rpc -addr "$ws" -serializer "$3" -inflight 64 -duration "${secs}s") &&
		record "$1" "$2" "rpc64_$3" "$(field calls_per_s "$out")"
	stop "$router"
}

measure_fanout() { # ... SUBSCRIBERS
	router_up "$2"
	local out
	out=$(loadgen fanout -addr "$ws" -serializer msgpack -subscribers "$3" -duration "${secs}s") &&
		record "$1" "$2" "fanout_$3" "$(field events_per_s "$out")"
	stop "$router"
}

# measure_http: the Caller and the Publisher, each right after the plain
# handler, as a percentage of it.
measure_http() {
	router_up "$2"
	start "callee-$seq_no" "$tmp/loadpeer" callee "ws://$web/ws" realm1 com.bench.echo
	local callee=$started_pid
	start "subscriber-$seq_no" "$tmp/loadpeer" subscriber "ws://$web/ws" realm1 com.bench.topic
	local subscriber=$started_pid
	local path plain_rps
	for path in call publish; do
		measure 50 "http://$plain/" "$path"
		plain_rps=$rps
		measure 50 "http://$web/$path" "$path"
		[ -z "$errs" ] || echo "$bench: POST /$path: $errs" >&2
		record "$1" "$2" "http_$path" "$(awk -v a="$rps" -v b="$plain_rps" 'BEGIN {printf "%.1f", 100 * a / b}')"
	done
	stop "$callee"
	stop "$subscriber"
	stop "$router"
}

measure_idle() { # ... TRANSPORT
	router_up "$2"
	local addr=$ws out
	[ "$3" = rawsocket ] && addr=$rs
	if out=$(loadgen idle -addr "$addr" -transport "$3" -serializer msgpack -sessions "$idle_sessions" -pid "$router"); then
		[[ $out == *'"settled":true'* ]] || echo "$bench: the RSS did not settle within 30 s: $out" >&2
		record "$1" "$2" "idle_$3" "$(field bytes_per_session "$out")"
	fi
	stop "$router"
}

# measure_syscalls: strace -c -f on the router over $strace_calls calls
# at 1 in flight (JSON, WebSocket), the sessions joined and warmed up
# before strace attaches and closed after it detached.
measure_syscalls() {
	router_up "$2"
	start "rpc-$seq_no" "$tmp/loadgen" rpc -addr "$ws" -serializer json -inflight 1 -count "$strace_calls" -wait
	local caller=$started_pid caller_fd=$started_fd out="$tmp/rpc-$seq_no.out"
	strace -c -f -p "$router" -o "$tmp/strace-$seq_no.txt" 2>"$tmp/strace-$seq_no.err" &
	local tracer=$!
	pids+=("$tracer")
	if ! poll grep -qs attached "$tmp/strace-$seq_no.err"; then
		echo "$bench: strace did not attach: $(cat "$tmp/strace-$seq_no.err")" >&2
		exit 1
	fi
	echo go >&"$caller_fd"
	local waited=0
	until grep -qs '^{' "$out"; do
		if [ $waited -ge 600 ] || ! kill -0 "$caller" 2>/dev/null; then
			echo "$bench: the traced calls did not end: $(cat "$tmp/rpc-$seq_no.err")" >&2
			exit 1
		fi
		sleep 0.1 # polling for the result line
		waited=$((waited + 1))
	done
	kill -INT "$tracer"
	wait "$tracer" || true
	exec {caller_fd}>&-
	if ! wait "$caller"; then
		echo "$bench: the traced calls: $(cat "$tmp/rpc-$seq_no.err") $(cat "$out")" >&2
		exit 1
	fi
	local calls
	calls=$(field calls "$(grep '^{' "$out")")
	# strace -c: "% time seconds usecs/call calls [errors] syscall", then
	# a "total" line.
	local name
	for name in read write futex epoll_pwait total; do
		record "$1" "$2" "sys_$name" "$(awk -v n="$name" -v c="$calls" '
			$NF == n || (n == "epoll_pwait" && $NF ~ /^epoll_pwait/) {s += $4}
			END {printf "%.2f", s / c}' "$tmp/strace-$seq_no.txt")"
	done
	stop "$router"
}

# The rows, in the order measured and printed: key, unit, what.
cat >"$tmp/rows.tsv" <<'ROWS'
rpc1_calls	calls/s	RPC 1 in flight, JSON, WebSocket
rpc1_p99	us	RPC 1 in flight, JSON, WebSocket, p99 latency
rpc64_json	calls/s	RPC 64 in flight, JSON, WebSocket
rpc64_msgpack	calls/s	RPC 64 in flight, MessagePack, WebSocket
rpc64_cbor	calls/s	RPC 64 in flight, CBOR, WebSocket
rpc64_ubjson	calls/s	RPC 64 in flight, UBJSON, WebSocket
fanout_100	events/s	fan-out to 100 subscribers (msgpack, WebSocket)
fanout_1000	events/s	fan-out to 1,000 subscribers (msgpack, WebSocket)
http_call	% of plain	HTTP Caller POST /call (wrk, 50 connections)
http_publish	% of plain	HTTP Publisher POST /publish (wrk, 50 connections)
idle_websocket	B/session	idle WebSocket sessions (10,000), RSS growth
idle_rawsocket	B/session	idle RawSocket sessions (10,000), RSS growth
sys_read	per call	router read() per call, 1 in flight (strace)
sys_write	per call	router write() per call, 1 in flight (strace)
sys_futex	per call	router futex() per call, 1 in flight (strace)
sys_epoll_pwait	per call	router epoll_pwait() per call, 1 in flight (strace)
sys_total	per call	router system calls per call, 1 in flight (strace)
ROWS

# The measurements, each a function and its arguments.
measurements=(
	"measure_rpc1"
	"measure_rpc64 json" "measure_rpc64 msgpack" "measure_rpc64 cbor" "measure_rpc64 ubjson"
	"measure_fanout 100" "measure_fanout 1000"
	"measure_http"
	"measure_idle websocket" "measure_idle rawsocket"
	"measure_syscalls"
)

echo "# base $(git rev-parse --short "$base") vs head $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (work tree with changes)'), $rounds rounds, ${secs}s runs, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(go version | cut -d' ' -f3)"
began=$SECONDS
: >"$tmp/results.tsv"
for round in $(seq "$rounds"); do
	order=(base head)
	[ $((round % 2)) -eq 0 ] && order=(head base)
	# Others' load makes the ratios noisy: say how busy the machine was.
	echo "# round $round of $rounds, ${order[0]} first, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	for m in "${measurements[@]}"; do
		[[ -z $only || $m =~ $only ]] || continue
		for b in "${order[@]}"; do
			read -ra call <<<"$m"
			"${call[0]}" "$round" "$b" "${call[@]:1}"
		done
	done
done
echo "# measured in $(((SECONDS - began) / 60)) min $(((SECONDS - began) % 60)) s"

# The table: medians over the rounds (the middle value, the mean of the
# two middle ones for an even count), head/base of the medians, and the
# range of the rounds' own head/base.
awk -F'\t' '
	function median(list,    v, n, i, j, t) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	NR == FNR { order[++rows] = $1; unit[$1] = $2; what[$1] = $3; next }
	{ val[$3, $2] = val[$3, $2] " " $4; per[$3, $1, $2] = $4; round[$1] = 1 }
	END {
		printf "%-66s %12s %12s %7s  %s\n", "row", "base", "head", "head/base", "rounds head/base min-max"
		for (i = 1; i <= rows; i++) {
			k = order[i]
			if (!((k, "base") in val)) continue
			b = median(val[k, "base"]); h = median(val[k, "head"])
			lo = ""; hi = ""
			for (r in round) {
				if (per[k, r, "base"] + 0 == 0) continue
				q = per[k, r, "head"] / per[k, r, "base"]
				if (lo == "" || q < lo) lo = q
				if (hi == "" || q > hi) hi = q
			}
			printf "%-66s %12.2f %12.2f %9.3f  %.3f-%.3f\n", what[k] " (" unit[k] ")", b, h, (b ? h / b : 0), lo, hi
		}
	}' "$tmp/rows.tsv" "$tmp/results.tsv"
if [ -s "$tmp/failures" ]; then
	echo "$bench: $(wc -l <"$tmp/failures") measurements FAILED (see above); their rounds lack them" >&2
	exit 1
fi
