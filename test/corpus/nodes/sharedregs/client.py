"""Calls the shared procedure until every instance has answered: round
robin goes through all five, in the router worker and both containers."""

import collections

from autobahn.twisted.util import sleep
from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, expect, join, main

INSTANCES = 5


@inlineCallbacks
def sessions(s):
    """The instances registered so far, by the callee list of the
    registration meta API."""
    reg = yield s.call("wamp.registration.lookup", "com.example.add2")
    if reg is None:
        return []
    callees = yield s.call("wamp.registration.list_callees", reg)
    return callees


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    for _ in range(400):
        callees = yield sessions(s)
        if len(callees) == INSTANCES:
            break
        yield sleep(0.05)
    equal(len(callees), INSTANCES, "the callees of com.example.add2")

    seen = collections.Counter()
    places = collections.Counter()
    for i in range(2 * INSTANCES):
        got = yield call(s, "com.example.add2", i, 1)
        equal(got["sum"], i + 1, "add2(%d, 1)" % i)
        seen[got["session"]] += 1
        places[got["place"]] += 1
    expect(all(n == 2 for n in seen.values()) and len(seen) == INSTANCES,
           "round robin over %d instances answered %r", INSTANCES, dict(seen))
    equal(dict(places), {"router": 4, "container 1": 4, "container 2": 2}, "the answers by place")
    yield s.leave()


main(check)
