"""A component that leaves when asked to; its container starts it again
(restart-always), in the same worker process."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks


class MySession(ApplicationSession):
    # how many sessions of this class have joined in this worker
    runs = 0

    @inlineCallbacks
    def onJoin(self, details):
        MySession.runs += 1
        run = MySession.runs
        print("run {} joined as session {}".format(run, details.session))

        def leave_soon():
            # answer first, then leave
            reactor.callLater(0.1, self.leave)
            return run

        yield self.register(lambda: run, "com.example.run")
        yield self.register(leave_soon, "com.example.leave")
