"""The dynamic ticket authenticator: Junction calls it with the ticket a
client presents and takes the role it returns."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks

# the principals "database"
PRINCIPALS = {
    "joe": {"ticket": "secret!!!", "role": "frontend"},
    "client1": {"ticket": "123sekret", "role": "frontend"},
}


class AuthenticatorSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def authenticate(realm, authid, details):
            if details.get("authmethod") != "ticket" or "transport" not in details:
                raise ApplicationError("com.example.bad_details", "unexpected details {}".format(sorted(details)))
            print("ticket authentication of {} on {}".format(authid, realm))
            principal = PRINCIPALS.get(authid)
            if principal is None:
                raise ApplicationError("com.example.no_such_user", "no principal {}".format(authid))
            if details["ticket"] != principal["ticket"]:
                raise ApplicationError("com.example.invalid_ticket", "invalid ticket for {}".format(authid))
            return principal["role"]

        yield self.register(authenticate, "com.example.authenticate")
        print("dynamic ticket authenticator registered")
