"""Logs users in by ticket and redirects each to its tenant's realm, under
its canonical authid."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks

USERS = {
    "alice": {"ticket": "alice-pw", "realm": "tenant-a"},
    "bob": {"ticket": "bob-pw", "realm": "tenant-b"},
}


class Authenticator(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def authenticate(realm, authid, details):
            user = authid.strip().lower()
            if user not in USERS or USERS[user]["ticket"] != details["ticket"]:
                raise ApplicationError("com.example.invalid_login", "invalid login for {}".format(authid))
            print("{} asked for {}, goes to {}".format(authid, realm, USERS[user]["realm"]))
            return {"realm": USERS[user]["realm"], "authid": user, "role": "tenant"}

        yield self.register(authenticate, "com.example.authenticate")
