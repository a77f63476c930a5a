"""A backend in the router worker: it tells a caller who the router says
called (the client, as the proxy authenticated it), and announces each
call."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import PublishOptions, RegisterOptions


class Backend(ApplicationSession):
    def onJoin(self, details):
        def whoami(details=None):
            who = {"authid": details.caller_authid, "authrole": details.caller_authrole}
            self.publish("com.example.called", who, options=PublishOptions(acknowledge=False))
            return who

        return self.register(whoami, "com.example.whoami", options=RegisterOptions(details_arg="details"))
