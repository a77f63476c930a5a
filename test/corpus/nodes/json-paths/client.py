"""GETs the json documents: at the top with its options (prettified, CORS,
no caching), and nested in a path with the defaults."""

import json
import urllib.request

from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread

from corpusclient import equal, expect, join, main


def get(url, raw=None):
    with urllib.request.urlopen(url, timeout=10) as resp:
        body = resp.read()
        if raw is not None:
            raw.update(body=body.decode(), headers=resp.headers)
        return resp.status, resp.headers.get("Content-Type").split(";")[0], json.loads(body)


@inlineCallbacks
def check(addr):
    raw = {}
    got = yield deferToThread(get, "http://%s/config" % addr, raw)
    equal(got, (200, "application/json", {"realm": "realm1", "url": "/ws", "debug": False}), "GET /config")
    expect(raw["body"].startswith('{\n   "'), "/config prettified by three spaces: %r", raw["body"])
    equal(raw["headers"].get("Access-Control-Allow-Origin"), "*", "/config's CORS header")
    expect("no-store" in (raw["headers"].get("Cache-Control") or ""), "/config discourages caching: %s", raw["headers"])
    got = yield deferToThread(get, "http://%s/api/version" % addr)
    equal(got, (200, "application/json", [21, 3, 1]), "GET /api/version")
    s = yield join("ws://%s/ws" % addr, "realm1")
    yield s.leave()


main(check)
