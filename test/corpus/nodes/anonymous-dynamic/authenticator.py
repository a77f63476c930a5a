"""The dynamic authenticator of anonymous sessions: every anonymous client
gets role "public" and some welcome data, unless it says it is banned."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks


class AuthenticatorSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def authenticate(realm, authid, details):
            print("anonymous authentication of {} on {}".format(authid, realm))
            if (details.get("authextra") or {}).get("banned"):
                raise ApplicationError("com.example.banned", "this client is banned")
            return {
                "role": "public",
                "extra": {"eins": "zwo", "drei": [4, 5, 6], "authid_seen": authid},
            }

        yield self.register(authenticate, "com.example.authenticate")
