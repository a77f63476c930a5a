# Sourced by the load-run scripts of make bench (bench-http.sh,
# bench-proxy.sh): it installs the tools they need, builds the junction
# binary and the load peer into a temporary directory ($tmp), and stops
# every process they start, by the PID recorded in $pids, when the script
# exits. $bench names the script in messages.

# need TOOL[=DEBIAN-PACKAGE]...: installs, from Debian, the tools missing.
need() {
	local missing=() spec
	for spec in "$@"; do
		command -v "${spec%%=*}" >/dev/null || missing+=("${spec#*=}")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "$bench: installing ${missing[*]} (Debian packages)" >&2
		apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
	fi
}

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
# servers) and $started_pid to its PID. Not to be called in a subshell: it
# records the PID and keeps the stdin pipe open in this shell.
start() {
	local name=$1
	shift
	mkfifo "$tmp/$name.in"
	"$@" <"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	started_pid=$!
	pids+=("$started_pid")
	exec {fd}>"$tmp/$name.in"
	for _ in $(seq 100); do
		if grep -q '^ready' "$tmp/$name.out" 2>/dev/null; then
			started=$(sed -n 's/^ready *//p' "$tmp/$name.out" | head -1)
			return
		fi
		sleep 0.1
	done
	echo "$bench: $name did not start:" >&2
	cat "$tmp/$name.err" >&2
	exit 1
}

# start_node NAME CONFIG-FILE: starts the junction binary with CONFIG-FILE
# and waits until it listens; sets $node to the address of its first
# listener and $node_pid to its PID.
start_node() {
	local name=$1 config=$2
	"$tmp/junction" start --config "$config" --logformat json 2>"$tmp/$name.log" &
	node_pid=$!
	pids+=("$node_pid")
	node=""
	for _ in $(seq 100); do
		node=$(grep -o '"msg":"listening".*"address":"[^"]*"' "$tmp/$name.log" 2>/dev/null | sed 's/.*"address":"//;s/"$//' | head -1 || true)
		[ -n "$node" ] && grep -q '"node started"' "$tmp/$name.log" && return
		sleep 0.1
	done
	cat "$tmp/$name.log" >&2
	exit 1
}
