"""The application backend, a container component that logs in by ticket
as principal "app" (role "app", authorized dynamically)."""

import time

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class App(ApplicationSession):
    def onConnect(self):
        self.join(self.config.realm, authmethods=["ticket"], authid="app")

    def onChallenge(self, challenge):
        return self.config.extra["ticket"]

    @inlineCallbacks
    def onJoin(self, details):
        def now():
            return {"time": time.time(), "served_by": details.authid}

        yield self.register(now, "com.example.clock.now")
