"""Joins anonymously: the dynamic authenticator gives the role and the
WELCOME's extra data, and sees the router's authid, never the client's."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import equal, expect, join, main, refused


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    s = yield join(url, "realm1", authid="impostor")
    d = s.details
    equal((d.authrole, d.authmethod), ("public", "anonymous"), "the session's role and method")
    seen = d.authextra.pop("authid_seen", None)
    equal(d.authextra, {"eins": "zwo", "drei": [4, 5, 6]}, "authextra in the WELCOME")
    expect(seen != "impostor", "the authenticator was given the client's authid %r", seen)
    equal(seen, d.authid, "the authid the authenticator saw")
    # a public session may use the realm
    yield s.publish("com.example.hello", "hi")
    yield s.leave()

    r = yield refused(url, "realm1", authextra={"banned": True})
    equal(r.reason, "com.example.banned", "the ABORT reason for a banned client")


main(check)
