"""Logs in by ticket through the function authenticator: right, wrong and
unknown principals."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, join, main, refused


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    s = yield join(url, "realm1", authmethods=["ticket"], authid="joe", secret="secret!!!")
    d = s.details
    equal((d.authid, d.authrole, d.authmethod), ("joe", "frontend", "ticket"), "joe's session")
    equal(d.authextra.get("greeting"), "welcome, joe", "authextra.greeting in the WELCOME")
    got = yield call(s, "com.example.add2", 40, 2)
    equal(got, 42, "add2(40, 2)")
    yield s.leave()

    r = yield refused(url, "realm1", authmethods=["ticket"], authid="joe", secret="123sekret")
    equal(r.reason, "com.example.invalid_ticket", "the ABORT reason for a wrong ticket")
    r = yield refused(url, "realm1", authmethods=["ticket"], authid="nobody", secret="x")
    equal(r.reason, "com.example.no_such_user", "the ABORT reason for an unknown principal")


main(check)
