"""The dynamic authorizer of role "app", a container component that logs
in by ticket: role "app" may call and subscribe under com.example., publish
only news, and register only as the "app" principal."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class Authorizer(ApplicationSession):
    def onConnect(self):
        self.join(self.config.realm, authmethods=["ticket"], authid="authorizer")

    def onChallenge(self, challenge):
        return self.config.extra["ticket"]

    @inlineCallbacks
    def onJoin(self, details):
        yield self.register(self.authorize, "com.example.auth")
        print("authorizer joined as {}".format(details.authrole))

    def authorize(self, session, uri, action, options):
        if not uri.startswith("com.example."):
            return False
        if action in ("call", "subscribe"):
            return True
        if action == "publish":
            return uri.startswith("com.example.news.")
        if action == "register":
            return session["authid"] == "app"
        return False
