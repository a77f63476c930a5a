"""The container component sees this client's session as the caller of
its procedure and the publisher of its events."""

from autobahn.wamp.types import PublishOptions
from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    me = s.details
    got = yield call(s, "com.example.whocalled")
    equal(got, {"caller": me.session, "authid": me.authid, "authrole": "anonymous"}, "the disclosed caller")
    yield s.publish("com.example.onhello", "hi", options=PublishOptions(acknowledge=True))
    publishers = []
    while not publishers:
        publishers = yield call(s, "com.example.publishers")
    equal(publishers, [{"publisher": me.session, "msg": "hi"}], "the disclosed publisher")
    yield s.leave()


main(check)
