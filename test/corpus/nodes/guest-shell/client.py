"""Receives the shell guest's announcement (retained, so whenever the
client comes): the JSON the node gave on the guest's stdin and what its
environment held."""

from autobahn.wamp.types import SubscribeOptions
from twisted.internet.defer import inlineCallbacks

from corpusclient import equal, events, join, main


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    sub, announcements = events(s, "com.example.announce", options=SubscribeOptions(get_retained=True))
    yield sub
    args, kwargs = yield announcements.get()
    equal(args, [{"headline": "Junction runs guests", "priority": 2, "tags": ["sh", "curl"]}], "the stdin JSON")
    # HOME is not inherited (inherit lists PATH only); PYTHONUNBUFFERED is
    # added to every guest's environment, as Crossbar does
    want = {"announcer": "shell guest", "home": "unset", "unbuffered": "1", "cwd": "guest"}
    equal(kwargs, want, "what the guest's environment and workdir said")
    yield s.leave()


main(check)
