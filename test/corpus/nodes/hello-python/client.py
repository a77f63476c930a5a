"""Calls the backend's add2, receives its counter, and serves it mul2."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, events, expect, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    sum_ = yield call(s, "com.example.add2", 2, 3)
    equal(sum_, 5, "add2(2, 3)")

    sub, counters = events(s, "com.example.oncounter")
    yield sub
    args, _ = yield counters.get()
    expect(isinstance(args[0], int), "oncounter carries a counter, got %r", args)

    sub, products = events(s, "com.example.onmul2")
    yield sub
    yield s.register(lambda x, y: x * y, "com.example.mul2")
    args, _ = yield products.get()
    equal(args[1], args[0] * 3, "the product the backend got from mul2(%r, 3)" % args[0])

    yield s.publish("com.example.onhello", "hello from the client", options=None)
    greetings = []
    while "hello from the client" not in greetings:
        greetings = yield call(s, "com.example.greetings")
    yield s.leave()


main(check)
