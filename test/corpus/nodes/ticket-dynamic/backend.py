"""The backend: what the authenticated frontends may use."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class BackendSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def add2(x, y):
            return x + y

        yield self.register(add2, "com.example.add2")
