#!/bin/sh
# Reads an announcement (JSON) on stdin and publishes it, retained, through
# the node's HTTP publisher on its Unix socket, with what the environment
# says. Exits when it is done: the node keeps running.
set -eu

payload=$(cat)
echo "announcing on $ANNOUNCE_TOPIC as $ANNOUNCER: $payload"

body=$(printf '{"topic": "%s", "args": [%s], "kwargs": {"announcer": "%s", "home": "%s", "unbuffered": "%s", "cwd": "%s"}, "options": {"retain": true}}' \
    "$ANNOUNCE_TOPIC" "$payload" "$ANNOUNCER" "${HOME:-unset}" "${PYTHONUNBUFFERED:-unset}" "$(basename "$PWD")")

# the router may still be opening its socket
tries=0
until curl --silent --show-error --fail --unix-socket ../.crossbar/bridge.sock \
    -H 'Content-Type: application/json' -d "$body" http://localhost/publish; do
    tries=$((tries + 1))
    if [ "$tries" -ge 100 ]; then
        echo "cannot reach the publisher" >&2
        exit 1
    fi
    sleep 0.1
done
echo
echo "announced"
