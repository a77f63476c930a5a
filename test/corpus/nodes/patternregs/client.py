"""Calls procedures that only pattern-based registrations serve, and the
ones two registrations match: an exact registration beats a prefix, which
beats a wildcard."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, denied, equal, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    got = yield call(s, "com.myapp.product.delete")
    equal(got, {"handler": "exact"}, "the exact registration")
    got = yield call(s, "com.myapp.product.update", 1, "blue")
    equal(got, {"handler": "product", "procedure": "com.myapp.product.update", "args": [1, "blue"]}, "the prefix")
    got = yield call(s, "com.myapp.order.create", 7)
    equal(got, {"handler": "create", "procedure": "com.myapp.order.create", "args": [7]}, "the wildcard")
    got = yield call(s, "com.myapp.product.create")
    equal(got["handler"], "product", "the handler of com.myapp.product.create (prefix and wildcard)")
    e = yield denied(s, "a call no pattern matches", lambda: s.call("com.myapp.order.delete"))
    equal(e.error, "wamp.error.no_such_procedure", "the error of com.myapp.order.delete")
    yield s.leave()


main(check)
