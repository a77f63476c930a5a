"""Cookie tracking with cookie authentication: a first login by ticket
gets a cbtid cookie; coming back with it, the client joins by cookie
without a ticket, as joe with his role; a logout makes the cookie
authenticate nobody; without a cookie, the ticket is still asked for.
The cookies are kept in .crossbar/cookies.dat."""

import os

from twisted.internet.defer import inlineCallbacks

from corpusclient import equal, expect, join, main, refused


def cbtid(session):
    """The cbtid cookie the upgrade response set, as a Cookie header value."""
    set_cookie = session._transport.http_headers.get("set-cookie", "")
    expect(set_cookie.startswith("cbtid="), "the upgrade response sets cbtid: %r", set_cookie)
    return set_cookie.split(";")[0]


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    s = yield join(url, "realm1", authmethods=["ticket"], authid="joe", secret="secret!!!")
    cookie = cbtid(s)
    yield s.leave()

    s = yield join(url, "realm1", authmethods=["cookie", "ticket"], headers={"Cookie": cookie})
    d = s.details
    equal((d.authid, d.authrole, d.authmethod, d.authprovider), ("joe", "frontend", "ticket", "cookie"),
          "the session that came back with the cookie")
    yield s.leave("wamp.close.logout")

    e = yield refused(url, "realm1", authmethods=["cookie", "ticket"], headers={"Cookie": cookie})
    equal(e.reason, "wamp.error.authentication_denied", "after logout, the cookie gives no login (no ticket sent)")
    e = yield refused(url, "realm1", authmethods=["cookie"])
    expect(e.reason is not None, "no cookie, no ticket: refused")
    expect(os.path.getsize(os.path.join(".crossbar", "cookies.dat")) > 0, "the cookie store's file")


main(check)
