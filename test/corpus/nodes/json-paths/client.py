"""GETs the json documents (top level with options, nested in a path)."""

import json
import urllib.request

from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread

from corpusclient import equal, join, main


def get(url):
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.status, resp.headers.get("Content-Type").split(";")[0], json.loads(resp.read())


@inlineCallbacks
def check(addr):
    got = yield deferToThread(get, "http://%s/config" % addr)
    equal(got, (200, "application/json", {"realm": "realm1", "url": "/ws", "debug": False}), "GET /config")
    got = yield deferToThread(get, "http://%s/api/version" % addr)
    equal(got, (200, "application/json", [21, 3, 1]), "GET /api/version")
    s = yield join("ws://%s/ws" % addr, "realm1")
    yield s.leave()


main(check)
