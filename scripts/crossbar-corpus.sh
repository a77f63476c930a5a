#!/usr/bin/env bash
# Measures `junction check` on the corpus of real Crossbar node configs
# (kept outside the repository, with a manifest.tsv: path, whether Crossbar
# 21.3.1 accepts the file, the features it uses): how many of the files
# Crossbar accepts load, how many of all, and what refuses the others.
# Not part of make test. Record its output in docs/configuration.md
# (section "Crossbar compatibility").
# Usage: scripts/crossbar-corpus.sh [CORPUS_DIR]
#   (default ../shared/crossbar-configs, relative to the repository)
# Each config's own line: junction check --summary --config FILE...
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-$repo/../shared/crossbar-configs}
if [[ ! -d $corpus ]]; then
	echo "crossbar-corpus.sh: no corpus directory $corpus (give its path as the argument)" >&2
	exit 1
fi
if [[ ! -f $corpus/manifest.tsv ]]; then
	echo "crossbar-corpus.sh: $corpus has no manifest.tsv: is it the Crossbar config corpus?" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$repo" && go build -o "$tmp/junction" ./cmd/junction)

# The variables the corpus's configs refer to: any value does.
for v in MYSECRET MYTICKET XBR_NETWORK_URL CROSSBAR_FABRIC_URL CROSSBAR_METERING_URL \
	CROSSBAR_WATCH_TO_PAIR INFURA_PROJECT_ID INFURA_PROJECT_SECRET; do
	export "$v=${!v:-x}"
done

cd "$corpus"
accepted=() all=()
while IFS=$'\t' read -r path verdict _; do
	[[ -z $path || $path == \#* ]] && continue
	all+=(--config "$path")
	[[ $verdict == accept ]] && accepted+=(--config "$path")
	[[ $verdict == reject ]] && echo "$path" >>"$tmp/rejected"
done <manifest.tsv
touch "$tmp/rejected"

# check runs junction check; status 1 (a config refused) is expected.
check() {
	local rc=0
	"$tmp/junction" check --summary "$@" || rc=$?
	if ((rc > 1)); then
		echo "crossbar-corpus.sh: junction check failed with status $rc" >&2
		exit "$rc"
	fi
}

echo "# junction $("$tmp/junction" version | cut -d' ' -f2) on $corpus, $(date -u +%Y-%m-%d)"
echo "## the $((${#accepted[@]} / 2)) configs that Crossbar 21.3.1 accepts"
check --blockers "${accepted[@]}" >"$tmp/accepted"
sed -n '/^checked /,$p' "$tmp/accepted"
echo "## all $((${#all[@]} / 2)) configs"
check "${all[@]}" >"$tmp/all"
grep '^checked ' "$tmp/all"
sed -n 's/^ok: //p' "$tmp/all" | grep -Fxf "$tmp/rejected" >"$tmp/wrong" || true
echo "loaded although Crossbar refuses them: $(wc -l <"$tmp/wrong")"
sed 's/^/  /' "$tmp/wrong"
