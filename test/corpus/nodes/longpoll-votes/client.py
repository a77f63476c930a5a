"""A WebSocket voter: votes, sees its vote published, reads the counts.
The test then votes over long-poll (Go) and sees the counts go on."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, events, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "crossbardemo")
    counts = yield call(s, "io.crossbar.demo.vote.get")
    equal(counts, [{"subject": "Banana", "votes": 0}, {"subject": "Chocolate", "votes": 0},
                   {"subject": "Lemon", "votes": 0}], "the counts at start")
    sub, q = events(s, "io.crossbar.demo.vote.onvote")
    yield sub
    got = yield s.call("io.crossbar.demo.vote.vote", "Lemon")
    equal(got, {"subject": "Lemon", "votes": 1}, "the vote's result")
    ev = yield q.get()
    equal(ev, ([{"subject": "Lemon", "votes": 1}], {}), "the onvote event")
    yield s.leave()


main(check)
