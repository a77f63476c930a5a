"""Logs in by WAMP-CRA through the dynamic authenticator: a plain secret,
a salted one (the client derives the key), a wrong secret and an unknown
principal."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, join, main, refused


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    s = yield join(url, "realm1", authmethods=["wampcra"], authid="joe", secret="secret2")
    d = s.details
    equal((d.authid, d.authrole, d.authmethod), ("joe", "frontend", "wampcra"), "joe's session")
    got = yield call(s, "com.example.add2", 1, 2)
    equal(got, 3, "add2(1, 2)")
    yield s.leave()

    s = yield join(url, "realm1", authmethods=["wampcra"], authid="peter", secret="prq7+YkJ1/KlW1X0YczMHw==")
    equal((s.details.authid, s.details.authrole), ("peter", "frontend"), "peter's session (salted)")
    yield s.leave()

    # a wrong secret is refused by the router itself (the reason is the
    # router's: Crossbar says wamp.error.not_authorized)
    yield refused(url, "realm1", authmethods=["wampcra"], authid="joe", secret="wrong")
    r = yield refused(url, "realm1", authmethods=["wampcra"], authid="eve", secret="secret2")
    equal(r.reason, "com.example.no_such_user", "the ABORT reason for an unknown principal")


main(check)
