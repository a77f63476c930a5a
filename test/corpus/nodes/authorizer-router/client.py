"""Alice and Mallory (both role "app") ask the dynamic authorizer's
permission: public procedures for both, admin ones for Alice only. The
authorizer caches its answers per session, never across sessions."""

from autobahn.wamp.types import PublishOptions
from twisted.internet.defer import inlineCallbacks

from corpusclient import call, denied, equal, join, main

SHOUT = "com.example.public.shout"
RESET = "com.example.admin.reset"


@inlineCallbacks
def questions(s, session_id, uri, action):
    n = yield s.call("com.example.authz.questions", session_id, uri, action)
    return n


@inlineCallbacks
def check(addr):
    url = "ws://%s/ws" % addr
    alice = yield join(url, "realm1", authmethods=["ticket"], authid="alice", secret="alice-secret")
    mallory = yield join(url, "realm1", authmethods=["ticket"], authid="mallory", secret="mallory-secret")
    a, m = alice.details.session, mallory.details.session

    for _ in range(3):
        got = yield call(alice, SHOUT, "hi")
        equal(got, "HI", "shout(hi)")
    n = yield questions(alice, a, SHOUT, "call")
    equal(n, 1, "the authorizer's questions for alice's three calls (cached)")

    got = yield call(alice, RESET)
    equal(got, "reset done", "alice's reset")
    e = yield denied(mallory, "mallory's reset", lambda: mallory.call(RESET))
    equal(e.error, "wamp.error.not_authorized", "the error of mallory's reset")
    yield denied(mallory, "mallory's reset again", lambda: mallory.call(RESET))

    got = yield call(mallory, SHOUT, "hey")
    equal(got, "HEY", "mallory's shout(hey)")
    n = yield questions(mallory, m, SHOUT, "call")
    equal(n, 1, "the authorizer's questions for mallory's first call (never cached across sessions)")
    n = yield questions(mallory, m, RESET, "call")
    equal(n, 1, "the authorizer's questions for mallory's two resets (the refusal cached)")

    yield denied(mallory, "publishing outside the app's URIs",
                 lambda: mallory.publish("com.example.private.note", options=PublishOptions(acknowledge=True)))
    yield alice.leave()
    yield mallory.leave()


main(check)
