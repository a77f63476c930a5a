"""Logs in through the dynamic ticket authenticator with a right ticket, a
wrong one and an unknown principal; the frontend role then bounds what
the session may do."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, denied, equal, join, main, refused


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    s = yield join(url, "realm1", authmethods=["ticket"], authid="joe", secret="secret!!!")
    d = s.details
    equal((d.authid, d.authrole, d.authmethod), ("joe", "frontend", "ticket"), "joe's session")
    got = yield call(s, "com.example.add2", 20, 3)
    equal(got, 23, "add2(20, 3)")
    yield denied(s, "subscribing to com.example.topic2", lambda: s.subscribe(lambda: None, "com.example.topic2"))
    yield s.leave()

    r = yield refused(url, "realm1", authmethods=["ticket"], authid="joe", secret="wrong")
    equal(r.reason, "com.example.invalid_ticket", "the ABORT reason for a wrong ticket")
    r = yield refused(url, "realm1", authmethods=["ticket"], authid="eve", secret="secret!!!")
    equal(r.reason, "com.example.no_such_user", "the ABORT reason for an unknown principal")

    s = yield join(url, "realm1", authmethods=["ticket"], authid="client1", secret="123sekret")
    equal(s.details.authrole, "frontend", "client1's role")
    yield s.leave()


main(check)
