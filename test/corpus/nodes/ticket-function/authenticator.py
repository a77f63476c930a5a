"""Function authentication: the router worker calls create_authenticator
once with the "config" of the transport's auth, and then the function it
returns for each client that logs in by ticket."""

from autobahn.wamp.exception import ApplicationError


def create_authenticator(config, controller):
    tickets = dict(config["tickets"])
    role = config["role"]
    print("ticket authenticator created for {} principals".format(len(tickets)))

    def authenticate(realm, authid, details):
        if authid not in tickets:
            raise ApplicationError("com.example.no_such_user", "no principal {}".format(authid))
        if details["ticket"] != tickets[authid]:
            raise ApplicationError("com.example.invalid_ticket", "invalid ticket for {}".format(authid))
        return {"role": role, "extra": {"greeting": "welcome, {}".format(authid)}}

    return authenticate
