#!/usr/bin/env bash
# install-test-deps.sh installs what test/interop and test/e2e need, and
# the Python components' tests (internal/node, cmd/junction, docs: the
# Python runner under /usr/bin/python3 with Twisted and Autobahn; the wap
# web path's Python process with Jinja2 and werkzeug):
# autobahn-python and its serializers for /usr/bin/python3 (Debian packages),
# Node.js, curl and Chromium when they are missing (Debian packages; the
# dashboard's browser test in internal/node drives headless Chromium), and autobahn-js
# and wampy.js (npm ci from the committed package-lock.json in
# test/interop/js; test/e2e requires autobahn-js from there).
#
# Idempotent and fast when everything is present: apt is only touched when
# /usr/bin/python3 cannot import the modules or node/npm/curl are missing, npm
# only when node_modules is missing or was installed from another
# package-lock.json. Fails (non-zero exit, message on stderr) when something
# cannot be installed.
#
# With --check it installs nothing and only fails, saying what is missing.
set -euo pipefail

check_only=false
case "${1:-}" in
--check) check_only=true ;;
"") ;;
*)
	echo "usage: $0 [--check]" >&2
	exit 2
	;;
esac

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
js_dir="$repo_root/test/interop/js"
python=/usr/bin/python3
py_modules='import autobahn, twisted, msgpack, cbor2, ubjson, nacl, argon2, passlib, jinja2, werkzeug'
py_packages=(python3-autobahn python3-twisted python3-msgpack python3-cbor2 python3-ubjson python3-nacl python3-argon2 python3-passlib python3-jinja2 python3-werkzeug)
node_packages=(nodejs npm)
curl_packages=(curl)
chromium_packages=(chromium)

die() {
	echo "install-test-deps: $*" >&2
	exit 1
}

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root (or sudo) to run: $*"
	fi
}

python_ok() {
	[ -x "$python" ] && "$python" -c "$py_modules" >/dev/null 2>&1
}

node_ok() {
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1
}

curl_ok() {
	command -v curl >/dev/null 2>&1
}

chromium_ok() {
	command -v chromium >/dev/null 2>&1
}

# install_apt installs the Debian packages of whatever is missing.
install_apt() {
	local want=()
	python_ok || want+=("${py_packages[@]}")
	node_ok || want+=("${node_packages[@]}")
	curl_ok || want+=("${curl_packages[@]}")
	chromium_ok || want+=("${chromium_packages[@]}")
	[ "${#want[@]}" -eq 0 ] && return
	$check_only && die "missing: ${want[*]} (for $python: $py_modules; node, npm, curl and chromium on PATH): run $0 as root"
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install ${want[*]} by hand"
	echo "install-test-deps: installing ${want[*]}" >&2
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || die "apt-get update failed"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${want[@]}" >&2 ||
		die "apt-get install ${want[*]} failed"
	python_ok || die "$python still cannot run: $py_modules"
	node_ok || die "node or npm still not on PATH"
	curl_ok || die "curl still not on PATH"
	chromium_ok || die "chromium still not on PATH"
}

lock_hash() {
	sha256sum "$js_dir/package-lock.json" | cut -d' ' -f1
}

# install_js runs npm ci unless node_modules was installed from this lock file.
install_js() {
	[ -f "$js_dir/package-lock.json" ] || die "$js_dir/package-lock.json is missing"
	local stamp="$js_dir/node_modules/.junction-lock-sha256"
	local want
	want="$(lock_hash)"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
		return
	fi
	$check_only && die "$js_dir/node_modules is missing or stale: run $0 (npm ci)"
	echo "install-test-deps: npm ci in $js_dir" >&2
	# Optional dependencies (bufferutil, utf-8-validate: native add-ons) are
	# left out and no install script runs, so nothing is compiled; ws uses its
	# JS fallbacks. ("when" is a direct dependency: autobahn-js 22 delivers
	# progressive call results only through when.js deferreds.)
	(cd "$js_dir" && npm ci --omit=optional --ignore-scripts --no-audit --no-fund >&2) || die "npm ci in $js_dir failed"
	(cd "$js_dir" && node -e 'require("autobahn"); require("cbor"); require("msgpack5"); require("when"); require("tweetnacl")') ||
		die "autobahn-js does not load after npm ci in $js_dir"
	echo "$want" >"$stamp"
}

install_apt
install_js
