"""Users land in their tenant's realm whatever realm they ask for: the
WELCOME says which, and that realm's service answers."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, join, main, refused


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    for authid, ticket, asked, want in [
        ("alice", "alice-pw", "tenant-a", "tenant-a"),
        ("Bob", "bob-pw", "tenant-a", "tenant-b"),
        ("alice", "alice-pw", "tenant-b", "tenant-a"),
    ]:
        s = yield join(url, asked, authmethods=["ticket"], authid=authid, secret=ticket)
        d = s.details
        equal((d.realm, d.authid, d.authrole), (want, authid.lower(), "tenant"), "%s asking for %s" % (authid, asked))
        got = yield call(s, "com.example.tenant")
        equal(got["realm"], want, "the realm of the service %s reaches" % authid)
        yield s.leave()
    r = yield refused(url, "tenant-a", authmethods=["ticket"], authid="bob", secret="alice-pw")
    equal(r.reason, "com.example.invalid_login", "the ABORT reason for a wrong ticket")


main(check)
