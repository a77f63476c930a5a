"""A monitor subscribes to wamp.session.on_stats; a client that joins,
publishes and leaves gets its first stats event at join
(trigger_on_join) and its last one at leave, each with its session's
details and what it sent and received (rated by 512 bytes)."""

from autobahn.wamp.types import PublishOptions
from twisted.internet.defer import inlineCallbacks

from corpusclient import equal, events, expect, join, main


@inlineCallbacks
def stats_of(q, sid, last):
    """The next stats event of session sid (the last one when last)."""
    while True:
        args, _ = yield q.get()
        if args[0]["session"] == sid and args[1]["last"] == last:
            return args


@inlineCallbacks
def check(addr):
    mon = yield join("ws://%s" % addr, "realm1")
    sub, q = events(mon, "wamp.session.on_stats")
    yield sub
    c = yield join("ws://%s" % addr, "realm1")
    sid = c._session_id
    details, first = yield stats_of(q, sid, False)
    equal((details["realm"], details["authrole"], details["authid"]), ("realm1", "anonymous", c._authid),
          "the session of the stats event")
    equal((first["first"], first["cycle"]), (True, 1), "the join's stats event")
    yield c.publish("com.example.topic", "x" * 3000, options=PublishOptions(acknowledge=True))
    yield c.leave()
    _, last = yield stats_of(q, sid, True)
    expect(last["cycle"] >= 2 and last["rated_messages"] >= 6 and last["bytes"] > 3000,
           "the last stats count the publication of 3000 bytes (6 rated messages of 512): %r", last)
    yield mon.leave()


main(check)
