"""Addition, in the router worker."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class AppSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def add(*operands):
            return sum(operands)

        yield self.register(add, "com.calc.add")
        # who am I: a router component joins with role "anonymous" unless
        # its config names one
        yield self.register(lambda: details.authrole, "com.calc.add.role")
