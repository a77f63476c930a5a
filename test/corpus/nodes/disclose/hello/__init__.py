"""A backend that knows who calls and who publishes: the role discloses
callers and publishers."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import RegisterOptions, SubscribeOptions
from twisted.internet.defer import inlineCallbacks


class AppSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        publishers = []

        def whocalled(details=None):
            return {"caller": details.caller, "authid": details.caller_authid, "authrole": details.caller_authrole}

        def on_event(msg, details=None):
            publishers.append({"publisher": details.publisher, "msg": msg})

        yield self.register(whocalled, "com.example.whocalled", options=RegisterOptions(details_arg="details"))
        yield self.subscribe(on_event, "com.example.onhello", options=SubscribeOptions(details_arg="details"))
        yield self.register(lambda: publishers, "com.example.publishers")
