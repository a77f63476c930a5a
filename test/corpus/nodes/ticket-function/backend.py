"""The backend of the function-authentication node."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class BackendSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        yield self.register(lambda x, y: x + y, "com.example.add2")
