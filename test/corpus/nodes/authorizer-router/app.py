"""The application, joined with role "app" as the clients: the authorizer
decides what it may register."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class App(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        yield self.register(lambda text: text.upper(), "com.example.public.shout")
        yield self.register(lambda: "reset done", "com.example.admin.reset")
        print("app ready")
