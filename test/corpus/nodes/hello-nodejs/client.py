"""Talks to the Node.js guest: its procedures, its events, and what its
configuration (arguments, workdir, env vars) gave it."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, events, expect, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    got = yield call(s, "com.example.add2", 2, 3)
    equal(got, 15, "add2(2, 3) with HELLO_OFFSET 10")
    me = yield call(s, "com.example.whoami")
    equal(me, {"runtime": "node", "cwd": "node", "argv": ["ws+unix:../.crossbar/router.sock:/ws"]}, "whoami")

    sub, counters = events(s, "com.example.oncounter")
    yield sub
    args, _ = yield counters.get()
    expect(isinstance(args[0], int), "oncounter carries a counter, got %r", args)

    s.publish("com.example.onhello", "hello from Python")
    greetings = []
    while "hello from Python" not in greetings:
        greetings = yield call(s, "com.example.greetings")
    yield s.leave()


main(check)
