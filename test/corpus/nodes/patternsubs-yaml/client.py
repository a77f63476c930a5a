"""Publishes to topics that the component's exact, prefix and wildcard
subscriptions match, and reads back what each heard."""

from autobahn.wamp.types import PublishOptions
from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, join, main

ACK = PublishOptions(acknowledge=True)


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    yield call(s, "com.myapp.heard")  # the component is ready
    yield s.publish("com.myapp.topic1", 1, options=ACK)
    yield s.publish("com.myapp.topic123", 2, options=ACK)
    yield s.publish("com.myapp.product.update", 3, options=ACK)
    yield s.publish("com.other.topic1", 4, options=ACK)
    want = [
        ["exact", None, [1]],
        ["prefix", "com.myapp.topic1", [1]],
        ["prefix", "com.myapp.topic123", [2]],
        ["wildcard", "com.myapp.product.update", [3]],
    ]
    heard = []
    while len(heard) < len(want):
        heard = yield call(s, "com.myapp.heard")
    equal(sorted(heard, key=lambda h: (h[2], h[0])), want, "what the subscriptions heard")
    yield s.leave()


main(check)
