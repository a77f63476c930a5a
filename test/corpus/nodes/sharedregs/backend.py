"""One procedure, registered by five instances of this component (two in
the router worker, three in two containers): the router invokes them in
turn."""

from autobahn.wamp.types import RegisterOptions
from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class MyComponent(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        place = self.config.extra["place"]

        def add2(x, y):
            return {"sum": x + y, "place": place, "session": details.session}

        yield self.register(add2, "com.example.add2", options=RegisterOptions(invoke="roundrobin"))
        print("instance {} in {} registered add2".format(details.session, place))
