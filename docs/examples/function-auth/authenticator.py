"""A function authenticator, for Junction or Crossbar.io.

The router worker imports this module and calls create(config, controller)
once, at start; the function it returns is called for each ticket login,
as authenticate(realm, authid, details), and says who the client is.
"""

import hmac

from autobahn.wamp.exception import ApplicationError


def create(config, controller):
    # config is the "config" of the method in the node configuration.
    users = config["users"]

    def authenticate(realm, authid, details):
        user = users.get(authid)
        ticket = details.get("ticket") or ""
        # Compare in constant time, and answer an unknown user exactly as
        # a wrong ticket.
        expected = user["ticket"] if user else ""
        if user is None or not hmac.compare_digest(ticket.encode(), expected.encode()):
            raise ApplicationError("com.example.invalid_ticket", "invalid ticket for {}".format(authid))
        return {"role": user["role"], "extra": {"greeting": "Hello, {}!".format(authid)}}

    return authenticate
