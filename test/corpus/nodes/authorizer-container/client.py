"""Carol (role "app") does what the authorizer in the container allows,
and no more."""

from autobahn.wamp.types import PublishOptions
from twisted.internet.defer import inlineCallbacks

from corpusclient import call, denied, equal, events, join, main

ACK = PublishOptions(acknowledge=True, exclude_me=False)


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1", authmethods=["ticket"], authid="carol", secret="carol-pw")
    now = yield call(s, "com.example.clock.now")
    equal(now["served_by"], "app", "who served clock.now")

    sub, news = events(s, "com.example.news.today")
    yield sub
    yield s.publish("com.example.news.today", "all good", options=ACK)
    args, _ = yield news.get()
    equal(args, ["all good"], "the news event")

    yield denied(s, "publishing an alert", lambda: s.publish("com.example.alerts", "fire", options=ACK))
    yield denied(s, "registering as carol", lambda: s.register(lambda: None, "com.example.clock.fake"))
    yield denied(s, "calling outside com.example.", lambda: s.call("org.other.thing"))
    yield s.leave()


main(check)
