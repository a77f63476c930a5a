"""Uses the node from HTTP (the caller and publisher bridges, as curl or a
web backend would) and from WAMP: a call through HTTP reaches the Python
component, an event published through HTTP reaches the component and a
WAMP subscriber."""

import json
import urllib.request

from twisted.internet.defer import inlineCallbacks
from twisted.internet.threads import deferToThread

from corpusclient import call, equal, events, expect, join, main


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return resp.status, json.loads(resp.read())


@inlineCallbacks
def check(addr):
    base = "http://%s" % addr
    s = yield join("ws://%s/ws" % addr, "realm1")
    yield call(s, "com.example.received")  # the backend is ready

    status, body = yield deferToThread(post, base + "/call", {"procedure": "com.example.add2", "args": [1, 2]})
    equal((status, body.get("args")), (200, [3]), "POST /call add2(1, 2)")
    status, body = yield deferToThread(post, base + "/call", {"procedure": "com.example.add2", "args": ["a", 2]})
    equal((status, body.get("error"), body.get("args")), (200, "com.example.not_a_number", ["add2 adds numbers", "a", 2]),
          "POST /call add2(a, 2)")

    sub, seen = events(s, "com.example.onevent")
    yield sub
    status, body = yield deferToThread(post, base + "/publish", {"topic": "com.example.onevent", "args": ["from REST"], "kwargs": {"n": 1}})
    expect(status == 200 and isinstance(body.get("id"), int), "POST /publish: %d %r", status, body)
    args, kwargs = yield seen.get()
    equal((args, kwargs), (["from REST"], {"n": 1}), "the event a WAMP subscriber got")
    received = []
    while not received:
        status, body = yield deferToThread(post, base + "/call", {"procedure": "com.example.received"})
        received = body["args"][0]
    equal(received, [{"args": ["from REST"], "kwargs": {"n": 1}}], "what the backend received")
    yield s.leave()


main(check)
