"""The static directories do not exist: their paths answer 404, and the
RawSocket and WebSocket parts of the universal transport work."""

import urllib.error
import urllib.request

from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread

from corpusclient import equal, join, main


def status(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code


@inlineCallbacks
def check(addr):
    for path in ("/", "/index.html", "/shared/autobahn.min.js"):
        equal((yield deferToThread(status, "http://%s%s" % (addr, path))), 404, "GET " + path)
    rs = yield join("rs://%s" % addr, "realm1")
    ws = yield join("ws://%s/ws" % addr, "realm1")
    yield rs.register(lambda: "ok", "com.example.ping")
    equal((yield ws.call("com.example.ping")), "ok", "a call from WebSocket to RawSocket")
    yield rs.leave()
    yield ws.leave()


main(check)
