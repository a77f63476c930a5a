"""The dynamic authorizer of role "app": everyone may use com.example.public.,
only alice com.example.admin., and each decision about those may be cached
for the session that asked. It counts the questions it gets."""

import collections

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class Authorizer(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        self.asked = collections.Counter()
        yield self.register(self.authorize, "com.example.authorize")
        yield self.register(self.questions, "com.example.authz.questions")
        print("authorizer ready")

    def authorize(self, session, uri, action, options):
        self.asked[(session["session"], uri, action)] += 1
        if uri.startswith("com.example.authz."):
            # the statistics: never cached, so that every read is counted
            return action == "call"
        if uri.startswith("com.example.public."):
            return {"allow": action in ("call", "register", "subscribe", "publish"), "cache": True}
        if uri.startswith("com.example.admin."):
            # decided by who the session is: a cache per role would be wrong
            return {"allow": session["authid"] in ("alice", None) or action == "register", "cache": True}
        return False

    def questions(self, session_id, uri, action):
        return self.asked[(session_id, uri, action)]
