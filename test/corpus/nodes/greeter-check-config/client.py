"""Gets greeted by the router component, whose check_config ran on its
extra and whose worker environment sets the greeting's mode."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, denied, equal, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    got = yield call(s, "com.greeter.greet", "ada")
    equal(got, "Hello, Ada Lovelace.", "greet(ada)")
    about = yield call(s, "com.greeter.about")
    equal(about, {"checked": ["ada", "alan"], "mode": "formal", "role": "greeter"}, "about")
    e = yield denied(s, "greet(bob)", lambda: s.call("com.greeter.greet", "bob"))
    equal(e.error, "com.greeter.unknown", "the error of greet(bob)")
    yield denied(s, "registering as anonymous", lambda: s.register(lambda: None, "com.greeter.fake"))
    yield s.leave()


main(check)
