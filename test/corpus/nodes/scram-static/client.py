"""Logs in with WAMP-SCRAM (argon2id-13, a principal made by autobahn's
derive_scram_credential): the right password joins with the principal's
role and a server signature that checks; a wrong password and an unknown
authid are refused."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, expect, join, main, refused


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    s = yield join(url, "realm1", authmethods=["scram"], authid="alice@example.com", secret="secret123")
    d = s.details
    equal((d.authid, d.authrole, d.authmethod), ("alice@example.com", "user", "scram"), "the session")
    expect(s.scram_server_ok, "the router's scram_server_signature checks")
    got = yield call(s, "com.example.whoami")
    equal(got, {"authid": "alice@example.com", "authrole": "user"}, "the backend sees the caller")
    yield s.leave()
    e = yield refused(url, "realm1", authmethods=["scram"], authid="alice@example.com", secret="wrong")
    equal(e.reason, "wamp.error.authentication_denied", "a wrong password")
    e = yield refused(url, "realm1", authmethods=["scram"], authid="eve@example.com", secret="secret123")
    equal(e.reason, "wamp.error.authentication_denied", "an unknown authid")


main(check)
