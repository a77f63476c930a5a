"""Authenticators for the node's tests (funcauth_test.go), as users write
them for Crossbar: function authenticators, whose factory(config,
controller) returns authenticate(realm, authid, details), and a dynamic
authenticator run as a router component."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet import defer, reactor, task


def create_ticket(config, controller):
    """Tickets from config; "boom" raises a plain exception, "slow" never
    answers; the answer's extra says what the function was given."""
    assert controller is None, "controller %r" % controller
    tickets = config["tickets"]

    def authenticate(realm, authid, details):
        if authid == "boom":
            raise ValueError("boom for %s" % authid)
        if authid == "slow":
            return defer.Deferred()
        if authid is None or tickets.get(authid) != details.get("ticket"):
            raise ApplicationError("com.example.invalid_ticket", "wrong ticket for %s" % authid)
        transport = details["transport"]
        return {"role": "user", "extra": {
            "realm": realm, "session": details["session"], "authmethod": details["authmethod"],
            "transport": transport["type"], "header": transport.get("http_headers_received", {}).get("x-test"),
            "tag": config["tag"]}}

    return authenticate


def create_wampcra(config, controller):
    """carol, with config's secret, salted."""
    def authenticate(realm, authid, details):
        if authid != "carol":
            raise ApplicationError("com.example.no_such_user", "no user %s" % authid)
        return {"secret": config["secret"], "role": "user", "salt": "salt123", "iterations": 100, "keylen": 32}

    return authenticate


def create_cryptosign(config, controller):
    """Any authid, with config's public key; the authid given is kept."""
    def authenticate(realm, authid, details):
        return {"pubkey": config["pubkey"], "role": "user", "authid": authid or "device",
                "extra": {"pubkey_asked": (details.get("authextra") or {}).get("pubkey")}}

    return authenticate


async def create_async(config, controller):
    """A coroutine factory returning a coroutine function."""
    await task.deferLater(reactor, 0, lambda: None)

    async def authenticate(realm, authid, details):
        await task.deferLater(reactor, 0, lambda: None)
        if details.get("ticket") != config["ticket"]:
            raise ApplicationError("com.example.invalid_ticket", "wrong ticket")
        return "user"

    return authenticate


def create_deferred(config, controller):
    """A factory returning a Deferred of a function returning Deferreds."""
    @defer.inlineCallbacks
    def authenticate(realm, authid, details):
        yield task.deferLater(reactor, 0, lambda: None)
        return {"role": "user", "authid": "deferred-" + authid}

    return task.deferLater(reactor, 0, lambda: authenticate)


def create_raises(config, controller):
    raise RuntimeError("the user database is down")


def create_not_a_function(config, controller):
    return 42


class DynamicAuthenticator(ApplicationSession):
    """A dynamic authenticator as Crossbar's examples run it: a router
    component registering com.example.authenticate on its realm."""

    @defer.inlineCallbacks
    def onJoin(self, details):
        def authenticate(realm, authid, details):
            if authid == "alice" and details.get("ticket") == "secret1":
                return {"role": "user", "realm": "realm1", "extra": {"by": "python", "asked_for": realm}}
            raise ApplicationError("com.example.invalid_ticket", "wrong ticket for %s" % authid)

        yield self.register(authenticate, "com.example.authenticate")


def create_scram(config, controller):
    """config's authid, with config's SCRAM principal."""
    def authenticate(realm, authid, details):
        if authid != config["authid"]:
            raise ApplicationError("com.example.no_such_user", "no user %s" % authid)
        return dict(config["principal"], role="user")

    return authenticate
