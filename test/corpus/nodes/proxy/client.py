"""Joins through the proxy workers, anonymous and by ticket: the backend
router sees the client's authid and authrole (as the proxy authenticated
it), calls and events cross the proxy, and a realm the proxy has no route
for is refused."""

from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, events, join, main, refused


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    anon = yield join(url, "realm1")
    d = anon.details
    equal((d.realm, d.authrole, d.authmethod), ("realm1", "anonymous", "anonymous"), "the anonymous session")
    user = yield join(url, "realm1", authmethods=["ticket"], authid="user1", secret="secret1")
    equal((user.details.authid, user.details.authrole, user.details.authmethod), ("user1", "user", "ticket"), "user1's session")

    sub, queue = events(anon, "com.example.called")
    yield sub
    got = yield call(user, "com.example.whoami")
    equal(got, {"authid": "user1", "authrole": "user"}, "who the backend says called")
    args, kwargs = yield queue.get()
    equal(args, [{"authid": "user1", "authrole": "user"}], "the backend's event, through the proxy")
    got = yield call(anon, "com.example.whoami")
    equal(got, {"authid": d.authid, "authrole": "anonymous"}, "who the backend says called anonymously")
    yield anon.leave()
    yield user.leave()

    r = yield refused(url, "realm2")
    equal(r.reason, "wamp.error.no_such_realm", "a realm the proxy has no route for")


main(check)
