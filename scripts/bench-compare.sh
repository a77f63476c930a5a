#!/usr/bin/env bash
# Compares the end-to-end RPC and fan-out benchmarks (test/bench) of a base
# commit with the work tree's HEAD, with benchstat: time, calls or events
# per second, and allocations per operation.
# Usage: scripts/bench-compare.sh BASE_COMMIT [COUNT]   (COUNT default 10)
# BENCH, BENCHTIME override the benchmark pattern and -benchtime.
# Runs on a quiet machine give meaningful numbers; the two builds run
# alternately, one round each at a time, so that a drift of the machine
# during the run hits both alike.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 BASE_COMMIT [COUNT]" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
base=$(git rev-parse --verify "$1^{commit}")
count=${2:-10}
bench=${BENCH:-BenchmarkRPC|BenchmarkFanout}
benchtime=${BENCHTIME:-1s}

tmp=$(mktemp -d)
cleanup() {
	git worktree remove --force "$tmp/base" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

git worktree add --detach -q "$tmp/base" "$base"
# One test binary per side, built once.
(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./test/bench/)
go test -c -o "$tmp/head.test" ./test/bench/

run() { # run SIDE: one round of the side's benchmarks, appended to its file
	(cd test/bench && "$tmp/$1.test" -test.run='^$' -test.bench="$bench" \
		-test.benchtime="$benchtime" -test.benchmem -test.count=1) >>"$tmp/$1.txt"
}
for i in $(seq "$count"); do
	echo "round $i of $count" >&2
	run base
	run head
done
echo "# base $(git rev-parse --short "$base") vs HEAD $(git rev-parse --short HEAD), $count runs each, $(nproc) cores, $(go version)"
go run golang.org/x/perf/cmd/benchstat@latest base="$tmp/base.txt" head="$tmp/head.txt"
