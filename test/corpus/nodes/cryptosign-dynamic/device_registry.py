"""A registry of the devices that have checked in."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import RegisterOptions
from twisted.internet.defer import inlineCallbacks


class Registry(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        seen = {}

        def check_in(status, details=None):
            seen[details.caller_authid] = status
            return sorted(seen)

        # the device role discloses callers (caller_authid)
        yield self.register(check_in, "com.example.check_in", options=RegisterOptions(details_arg="details"))
