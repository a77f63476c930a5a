#!/usr/bin/env bash
# Runs every fuzz target of the module for a short time each.
# Usage: scripts/fuzz-all.sh [duration]   (default 30s)
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-30s}
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for fn in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
		echo "== $pkg $fn"
		go test -run='^$' -fuzz="^$fn\$" -fuzztime="$time" "$pkg"
	done
done
