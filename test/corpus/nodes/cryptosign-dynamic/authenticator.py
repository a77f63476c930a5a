"""The dynamic cryptosign authenticator, on a realm of its own: it maps a
client's public key to its principal (authid, realm, role, and extra data
for the WELCOME)."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks

PRINCIPALS = [
    {
        "authid": "client01@example.com",
        "realm": "devices",
        "role": "device",
        "extra": {"foo": 23},
        "authorized_keys": ["d04ab232742bb4ab3a1368bd4615e4e6d0224ab71a016baf8520a332c9778737"],
    },
    {
        "authid": "client02@example.com",
        "realm": "devices",
        "role": "device",
        "extra": {"foo": 42, "bar": "baz"},
        "authorized_keys": ["a09aa5f47a6759802ff955f8dc2d2a14a5c99d23be97f864127ff9383455a4f0"],
    },
]


class AuthenticatorSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        by_key = {}
        for p in PRINCIPALS:
            for k in p["authorized_keys"]:
                by_key[k] = p

        def authenticate(realm, authid, details):
            pubkey = details.get("authextra", {}).get("pubkey")
            principal = by_key.get(pubkey)
            if principal is None:
                raise ApplicationError("com.example.no_such_user", "no principal with public key {}".format(pubkey))
            print("cryptosign authentication of {} on {}".format(principal["authid"], realm))
            return {
                "pubkey": pubkey,
                "realm": principal["realm"],
                "authid": principal["authid"],
                "role": principal["role"],
                "extra": principal["extra"],
                "cache": True,
            }

        yield self.register(authenticate, "com.example.authenticate")
