"""Asks the component to leave and sees it come back as the next run of
the same worker process."""

from autobahn.twisted.util import sleep
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, join, main


@inlineCallbacks
def next_run(s, after):
    """The run serving com.example.run once it is a later one than after."""
    while True:
        try:
            run = yield call(s, "com.example.run")
        except ApplicationError as e:
            # the old session may be leaving right now
            if e.error != "wamp.error.canceled":
                raise
            run = after
        if run != after:
            return run
        yield sleep(0.05)


@inlineCallbacks
def check(addr):
    s = yield join("ws://%s/ws" % addr, "realm1")
    first = yield call(s, "com.example.run")
    for want in (first + 1, first + 2):
        left = yield call(s, "com.example.leave")
        equal(left, want - 1, "the run that left")
        run = yield next_run(s, want - 1)
        equal(run, want, "the run after a restart")
    yield s.leave()


main(check)
