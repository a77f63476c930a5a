"""The backend behind the node's REST bridge: a procedure to call over
HTTP, a topic to publish to over HTTP, and what it received."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks


class AppSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        received = []

        def add2(x, y):
            if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
                raise ApplicationError("com.example.not_a_number", "add2 adds numbers", x, y)
            return x + y

        def on_event(*args, **kwargs):
            received.append({"args": list(args), "kwargs": kwargs})

        yield self.register(add2, "com.example.add2")
        yield self.subscribe(on_event, "com.example.onevent")
        yield self.register(lambda: received, "com.example.received")
