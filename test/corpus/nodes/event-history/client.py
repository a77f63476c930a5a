"""Publishes before anyone subscribes, then reads the histories with the
meta API: the newest events first, in Crossbar's item shape, at most an
item's limit; a prefix item keeps what every matching topic gets; a topic
with no history answers wamp.error.history_unavailable."""

from autobahn.wamp.types import PublishOptions
from twisted.internet.defer import inlineCallbacks

from corpusclient import denied, equal, expect, join, main


@inlineCallbacks
def check(addr):
    pub = yield join("ws://%s/ws" % addr, "realm1")
    ack = PublishOptions(acknowledge=True)
    for i in range(5):
        yield pub.publish("com.example.oncounter", i, options=ack)
    yield pub.publish("com.example.sensor.temp", 21.5, unit="C", options=ack)
    yield pub.publish("com.example.sensor.humidity", 40, options=ack)

    s = yield join("ws://%s/ws" % addr, "realm1")
    sid = yield s.call("wamp.subscription.lookup", "com.example.oncounter")
    expect(sid is not None, "the history's subscription exists from the start")
    got = yield s.call("wamp.subscription.get_events", sid)
    equal([e["args"] for e in got], [[4], [3], [2]], "the counter's history (newest first, limit 3)")
    e = got[0]
    equal(e["topic"], "com.example.oncounter", "an item's topic")
    equal((e["realm"], e["session_id"], e["authrole"], e["kwargs"]), ("realm1", pub._session_id, "anonymous", None),
          "an item's realm, publisher, role and kwargs")
    expect(isinstance(e["publication"], int) and isinstance(e["time_ns"], int), "an item's publication and time: %r", e)
    got = yield s.call("wamp.subscription.get_events", sid, 1)
    equal([e["args"] for e in got], [[4]], "get_events with limit 1")

    pid = yield s.call("wamp.subscription.lookup", "com.example.sensor.", {"match": "prefix"})
    got = yield s.call("wamp.subscription.get_events", pid)
    equal([(e["topic"], e["args"], e.get("kwargs")) for e in got],
          [("com.example.sensor.humidity", [40], None), ("com.example.sensor.temp", [21.5], {"unit": "C"})],
          "the prefix history")

    sub = yield s.subscribe(lambda *a: None, "com.example.nohistory")
    e = yield denied(s, "get_events of a topic without history", lambda: s.call("wamp.subscription.get_events", sub.id))
    equal(e.error, "wamp.error.history_unavailable", "the error of a subscription without history")
    yield s.leave()
    yield pub.leave()


main(check)
