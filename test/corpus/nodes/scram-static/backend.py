"""A backend that greets the caller it is disclosed."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import RegisterOptions


class Backend(ApplicationSession):
    def onJoin(self, details):
        def whoami(details=None):
            return {"authid": details.caller_authid, "authrole": details.caller_authrole}

        return self.register(whoami, "com.example.whoami", options=RegisterOptions(details_arg="details"))
