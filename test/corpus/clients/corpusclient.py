"""What the corpus's Python clients share.

A corpus client is a node's client.py, run by test/corpus as

    /usr/bin/python3 client.py HOST:PORT

in the node's directory, with this directory on PYTHONPATH. It joins the
node's realm as any autobahn-python (Twisted) client does, checks what the
node's application code does, and exits 0 only when every check passed:
main() prints the failed check on stderr and exits 1 otherwise, or when the
whole run takes longer than TIMEOUT seconds.
"""

import sys
import traceback

import txaio

txaio.use_twisted()

from autobahn.twisted.util import sleep  # noqa: E402
from autobahn.twisted.wamp import ApplicationRunner, ApplicationSession  # noqa: E402
from autobahn.wamp import auth  # noqa: E402
from autobahn.wamp.exception import ApplicationError  # noqa: E402
from twisted.internet import defer, reactor  # noqa: E402
from twisted.logger import (  # noqa: E402
    FilteringLogObserver,
    LogLevel,
    LogLevelFilterPredicate,
    globalLogBeginner,
    textFileLogObserver,
)

TIMEOUT = 40  # seconds for a whole client
READY_WAIT = 20  # seconds for a node's component to register what is called
NO_SUCH_PROCEDURE = "wamp.error.no_such_procedure"


class CheckFailed(Exception):
    """A check of the client failed."""


class Refused(Exception):
    """The router refused the join (ABORT) or closed the connection first."""

    def __init__(self, reason, message):
        Exception.__init__(self, "join refused: %s %s" % (reason, message or ""))
        self.reason = reason
        self.message = message


def expect(cond, msg, *args):
    """Fails the client with msg % args unless cond holds."""
    if not cond:
        raise CheckFailed(msg % args if args else msg)


def equal(got, want, what):
    """Fails the client unless got == want."""
    expect(got == want, "%s: got %r, want %r", what, got, want)


def note(msg, *args):
    """Progress on stderr, so that a failure shows how far the client got."""
    sys.stderr.write("client: " + (msg % args if args else msg) + "\n")
    sys.stderr.flush()


class _Client(ApplicationSession):
    """A session that joins with the credentials in config.extra and fires
    config.extra["joined"] with itself, or with Refused."""

    def onConnect(self):
        c = self.config.extra
        authextra = dict(c.get("authextra") or {})
        if c.get("key") is not None:
            authextra["pubkey"] = c["key"].public_key()
        methods = c.get("authmethods")
        self.scram = None
        if methods and "scram" in methods:
            self.scram = auth.create_authenticator("scram", authid=c.get("authid"), password=c["secret"])
            authextra.update(self.scram.authextra)
        self.join(self.config.realm, authmethods=methods, authid=c.get("authid"), authextra=authextra or None)

    def onChallenge(self, challenge):
        c = self.config.extra
        if challenge.method == "ticket":
            return c["secret"]
        if challenge.method == "wampcra":
            key = c["secret"]
            extra = challenge.extra
            if "salt" in extra:
                key = auth.derive_key(key, extra["salt"], extra.get("iterations", 1000), extra.get("keylen", 32))
            return auth.compute_wcs(key, extra["challenge"]).decode("ascii")
        if challenge.method == "scram":
            return self.scram.on_challenge(self, challenge).decode("ascii")
        if challenge.method == "cryptosign":
            return c["key"].sign_challenge(challenge)
        raise Exception("unexpected challenge %r" % challenge.method)

    def onJoin(self, details):
        self.details = details
        # WAMP-SCRAM: whether the router proved it knows the principal
        self.scram_server_ok = self.scram is not None and self.scram.on_welcome(self, details.authextra) is None
        joined = self.config.extra["joined"]
        if not joined.called:
            joined.callback(self)

    def onLeave(self, details):
        joined = self.config.extra["joined"]
        if not joined.called:
            joined.errback(Refused(details.reason, details.message))
        self.disconnect()

    def onDisconnect(self):
        joined = self.config.extra["joined"]
        if not joined.called:
            joined.errback(Refused("(connection closed)", ""))


def join(url, realm, authmethods=None, authid=None, secret=None, key=None, authextra=None, serializers=None,
         headers=None, ssl=None):
    """A Deferred of a session joined to realm at url (ws:// or rs://):
    anonymous, or with authmethods (["ticket"], ["wampcra"], ["scram"],
    ["cryptosign"]) and authid, the ticket, wampcra secret or scram
    password, or the cryptosign key (an
    autobahn.wamp.cryptosign.CryptosignKey, whose public key goes in
    authextra). serializers (autobahn serializer objects, the first one for
    RawSocket) replace autobahn's defaults; headers are added to the
    WebSocket upgrade request; ssl (Twisted TLS options, such as
    optionsForClientTLS's) replaces the default ones of a wss:// url. It
    fails with Refused when the router refuses the join."""
    joined = defer.Deferred()
    extra = {
        "joined": joined,
        "authmethods": authmethods,
        "authid": authid,
        "secret": secret,
        "key": key,
        "authextra": authextra,
    }
    runner = ApplicationRunner(url, realm, extra=extra, serializers=serializers, headers=headers, ssl=ssl)
    d = runner.run(_Client, start_reactor=False, auto_reconnect=False)

    def connected(proto):
        # a connection closed before the WAMP session opens (a failed TLS
        # handshake, a refused WebSocket upgrade) reaches no session callback
        def closed(_):
            if not joined.called:
                joined.errback(Refused("(connection closed)", ""))

        proto.is_closed.addCallback(closed)
        return proto

    def connect_failed(f):
        if not joined.called:
            joined.errback(f)

    d.addCallbacks(connected, connect_failed)
    return joined


@defer.inlineCallbacks
def refused(url, realm, **creds):
    """The Refused of a join that the router must refuse; fails the client
    when the session joins instead."""
    try:
        s = yield join(url, realm, **creds)
    except Refused as e:
        note("refused as it should be: %s %s", e.reason, e.message)
        return e
    d = s.details
    yield s.leave()
    raise CheckFailed("joined %s as %s/%s, want the join refused" % (d.realm, d.authid, d.authrole))


@defer.inlineCallbacks
def call(session, procedure, *args, **kwargs):
    """session.call, retried while the procedure is not registered yet (a
    node's components join as it starts), for up to READY_WAIT seconds."""
    waited = 0.0
    while True:
        try:
            res = yield session.call(procedure, *args, **kwargs)
            return res
        except ApplicationError as e:
            if e.error != NO_SUCH_PROCEDURE or waited >= READY_WAIT:
                raise
        yield sleep(0.05)
        waited += 0.05


@defer.inlineCallbacks
def denied(session, what, action):
    """The ApplicationError of action (a Deferred-returning callable) that
    the router must refuse; fails the client when it succeeds."""
    try:
        yield action()
    except ApplicationError as e:
        note("%s refused as it should be: %s", what, e.error)
        return e
    raise CheckFailed("%s succeeded, want it refused" % what)


def events(session, topic, options=None):
    """Subscribes to topic; returns (a Deferred of the subscription, a
    DeferredQueue of (args, kwargs) per event)."""
    q = defer.DeferredQueue()

    def on_event(*args, **kwargs):
        kwargs.pop("details", None)
        q.put((list(args), kwargs))

    return session.subscribe(on_event, topic, options=options), q


def _start_logging():
    """Warnings and errors of Twisted and autobahn go to stderr."""
    predicate = LogLevelFilterPredicate(defaultLogLevel=LogLevel.warn)
    observer = FilteringLogObserver(textFileLogObserver(sys.stderr), [predicate])
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    txaio.set_global_log_level("warn")


def main(check):
    """Runs check(addr) (an inlineCallbacks function of the node's
    "HOST:PORT", the first argument) on the reactor and exits 0 when it
    returns, 1 when it fails or takes longer than TIMEOUT seconds."""
    _start_logging()
    outcome = {}

    def done(result):
        outcome["ok"] = True

    def failed(f):
        outcome["error"] = f.getTraceback() if not f.check(CheckFailed, Refused) else f.getErrorMessage()

    def run():
        d = defer.maybeDeferred(check, sys.argv[1])
        d.addTimeout(TIMEOUT, reactor)
        d.addCallbacks(done, failed)
        d.addBoth(lambda _: reactor.stop())

    reactor.callWhenRunning(run)
    try:
        reactor.run()
    except Exception:
        traceback.print_exc()
    if outcome.get("ok"):
        note("all checks passed")
        sys.exit(0)
    sys.stderr.write("client: FAILED: %s\n" % outcome.get("error", "the reactor stopped without a result"))
    sys.exit(1)
