"""The dynamic WAMP-CRA authenticator: for a principal it returns the
secret (for a salted one, the key derived from the password, and how it
was derived) and the role; the router runs the challenge."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp import auth
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks

SALT = "salt123"
ITERATIONS = 100
KEYLEN = 32

PRINCIPALS = {
    "joe": {"secret": "secret2", "role": "frontend"},
    "peter": {
        "secret": auth.derive_key("prq7+YkJ1/KlW1X0YczMHw==", SALT, ITERATIONS, KEYLEN).decode("ascii"),
        "salt": SALT,
        "iterations": ITERATIONS,
        "keylen": KEYLEN,
        "role": "frontend",
    },
}


class AuthenticatorSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def authenticate(realm, authid, details):
            print("WAMP-CRA authentication of {} on {}".format(authid, realm))
            if authid not in PRINCIPALS:
                raise ApplicationError("com.example.no_such_user", "no principal {}".format(authid))
            return PRINCIPALS[authid]

        yield self.register(authenticate, "com.example.authenticate")
        print("dynamic WAMP-CRA authenticator registered")
