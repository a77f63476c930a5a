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

# poll CMD...: runs CMD every 0.1 s until it succeeds, 100 times at most;
# fails when it never does.
poll() {
	for _ in $(seq 100); do
		"$@" && return
		sleep 0.1
	done
	return 1
}

# start NAME CMD...: runs CMD with stdin held open, waits for its "ready"
# line and sets $started to the rest of that line (an address, for
# servers), $started_pid to its PID and $started_fd to the file
# descriptor of its stdin pipe (closing it ends CMD's stdin). Not to be
# called in a subshell: it records the PID and keeps the stdin pipe open
# in this shell.
start() {
	local name=$1
	shift
	mkfifo "$tmp/$name.in"
	"$@" <"$tmp/$name.in" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	started_pid=$!
	pids+=("$started_pid")
	exec {started_fd}>"$tmp/$name.in"
	if ! poll grep -qs '^ready' "$tmp/$name.out"; then
		echo "$bench: $name did not start:" >&2
		cat "$tmp/$name.err" >&2
		exit 1
	fi
	started=$(sed -n 's/^ready *//p' "$tmp/$name.out" | head -1)
}

# run_node NAME CONFIG-FILE LINE: starts the junction binary ($junction,
# by default the one built here) with CONFIG-FILE, its log in
# $tmp/NAME.log, and waits until the log has a line matching LINE (grep);
# sets $node_pid to its PID.
run_node() {
	local name=$1 config=$2 line=$3
	"${junction:-$tmp/junction}" start --config "$config" --logformat json 2>"$tmp/$name.log" &
	node_pid=$!
	pids+=("$node_pid")
	if ! poll grep -qs "$line" "$tmp/$name.log"; then
		echo "$bench: $name did not start:" >&2
		cat "$tmp/$name.log" >&2
		exit 1
	fi
}

# start_node NAME CONFIG-FILE: run_node until the node has started; sets
# $node to the address of its first listener and $node_pid to its PID.
start_node() {
	run_node "$1" "$2" '"node started"'
	node=$(grep -o '"msg":"listening".*"address":"[^"]*"' "$tmp/$1.log" | sed 's/.*"address":"//;s/"$//' | head -1 || true)
	if [ -z "$node" ]; then
		echo "$bench: $1 listens nowhere:" >&2
		cat "$tmp/$1.log" >&2
		exit 1
	fi
}

# cpu_ticks PID: the CPU time (user + system, clock ticks) used so far by
# the process PID and its children (nginx's worker).
cpu_ticks() {
	local total=0 p f
	for p in "$1" $(cat "/proc/$1/task/"*/children 2>/dev/null); do
		read -ra f <"/proc/$p/stat" || continue
		total=$((total + f[13] + f[14])) # utime, stime (the name has no space)
	done
	echo "$total"
}
