#!/usr/bin/python3
"""Run the interop scenario with autobahn-python (Twisted) against a router.

Prints one JSON line on stdout: {"ok": true, ...} and exit 0 on success,
{"ok": false, "error": ...} and exit 1 on any failure (the message is also
written to stderr). Run by test/interop/interop_test.go with /usr/bin/python3
(Debian's python3-autobahn), not the python3 first on the PATH.

    /usr/bin/python3 scenario.py --url ws://127.0.0.1:PORT/ws --realm realm1 \
        [--serializer json|msgpack|cbor] \
        [--authmethod anonymous|ticket|wampcra|cryptosign] \
        [--authid ID] [--secret S] [--expect-fail] [--role all|callee|caller|history|everything] \
        [--prefix com.interop.UNIQUE] [--timeout SECONDS] [--payload-codec]

With --authmethod cryptosign (which needs PyNaCl, Debian's python3-nacl),
--secret is the Ed25519 private key's seed (64 hex digits); its public key is
sent in HELLO's authextra.pubkey.

A URL rs://127.0.0.1:PORT uses RawSocket instead of WebSocket.

Roles: "all" (default) registers, calls, subscribes and publishes in one
session. "callee" registers the procedures and subscribes, prints
{"ready": true} once it has, then waits for the caller's event; "caller" calls
the callee's procedures and publishes that event. Both must be given the same
--prefix. "history" publishes to the topics of the realm store's event
histories and reads them back with wamp.subscription.get_events.
"everything" subscribes to the empty prefix (every topic) and checks that
it gets events on two topics under --prefix, with the topic in the details;
the result's "everything" is "subscribed", or the error URI of a refused
SUBSCRIBE.

With --payload-codec the session sends and receives every payload in
payload transparency mode (passthru): autobahn's payload codec (PassthruCodec)
turns args and kwargs into opaque bytes (enc_algo "x_interop"), which the
router forwards untouched, and back; the result's "decoded" counts the
payloads the codec decoded, each proof that one came through in that mode.
"""

import argparse
import binascii
import json
import os
import sys
import time

from twisted.internet import defer, reactor
from twisted.logger import (
    FilteringLogObserver,
    LogLevel,
    LogLevelFilterPredicate,
    globalLogBeginner,
    textFileLogObserver,
)

import txaio

txaio.use_twisted()

from autobahn.twisted.wamp import ApplicationRunner, ApplicationSession  # noqa: E402
from autobahn.wamp import auth, cryptosign  # noqa: E402
from autobahn.wamp.exception import ApplicationError  # noqa: E402
from autobahn.wamp.serializer import (  # noqa: E402
    CBORSerializer,
    JsonSerializer,
    MsgPackSerializer,
)
from autobahn.wamp.interfaces import IPayloadCodec  # noqa: E402
from autobahn.wamp.types import (  # noqa: E402
    CallOptions,
    EncodedPayload,
    PublishOptions,
    RegisterOptions,
    SubscribeOptions,
)

ERROR_URI = "com.interop.error"
EVENT_ARGS = ["hello", 1]
EVENT_KWARGS = {"zeta": "z", "k": "v", "alpha": "a"}  # keys not sorted: their order must arrive
ERROR_ARGS = ["bad", 42]
ERROR_KWARGS = {"reason": "because", "code": 7}
PROGRESS = [1, 2, 3]
FINAL = "done"

# The realm store's event histories (test/interop/config_test.go): the last
# HISTORY_LIMIT events of HISTORY_TOPIC, and those of every topic under
# HISTORY_PREFIX.
HISTORY_TOPIC = "com.interop.history.counter"
HISTORY_LIMIT = 3
HISTORY_PREFIX = "com.interop.history.sensor."

SERIALIZERS = {"json": JsonSerializer, "msgpack": MsgPackSerializer, "cbor": CBORSerializer}


class PassthruCodec(IPayloadCodec):
    """A payload codec of our own for payload transparency (passthru): the
    URI, args and kwargs as JSON, each byte XORed with 0x5a, so that the
    router sees opaque bytes, with enc_algo "x_interop", enc_serializer
    "json" and enc_key "k1". Counts what it decodes."""

    MASK = 0x5A

    def __init__(self):
        self.decoded = 0

    def encode(self, is_originating, uri, args=None, kwargs=None):
        b = json.dumps({"uri": uri, "args": args, "kwargs": kwargs}).encode("utf8")
        return EncodedPayload(bytes(x ^ self.MASK for x in b), "x_interop", enc_serializer="json", enc_key="k1")

    def decode(self, is_originating, uri, encoded_payload):
        e = encoded_payload
        check(isinstance(e.payload, bytes), "passthru payload of type %s" % type(e.payload).__name__)
        check((e.enc_algo, e.enc_serializer, e.enc_key) == ("x_interop", "json", "k1"),
              "passthru options %r" % ((e.enc_algo, e.enc_serializer, e.enc_key),))
        obj = json.loads(bytes(x ^ self.MASK for x in e.payload).decode("utf8"))
        self.decoded += 1
        return obj["uri"], obj["args"], obj["kwargs"]


class CheckError(Exception):
    """A scenario check failed."""


def check(cond, msg):
    if not cond:
        raise CheckError("check failed: " + msg)


def same(got, want):
    """Equal, with the same types: an integer must not come back a float."""
    if type(got) is not type(want):
        return False
    if isinstance(want, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    if isinstance(want, dict):
        return got.keys() == want.keys() and all(same(got[k], want[k]) for k in want)
    return got == want


def parse_args(argv):
    p = argparse.ArgumentParser(description="autobahn-python interop scenario")
    p.add_argument("--url", required=True)
    p.add_argument("--realm", default="realm1")
    p.add_argument("--serializer", choices=sorted(SERIALIZERS), default="json")
    p.add_argument("--authmethod", choices=["anonymous", "ticket", "wampcra", "cryptosign"], default="anonymous")
    p.add_argument("--authid", default="")
    p.add_argument("--secret", default="")
    p.add_argument("--expect-fail", action="store_true")
    p.add_argument("--role", choices=["all", "callee", "caller", "history", "everything"], default="all")
    p.add_argument("--prefix", default="com.interop.py%d_%d" % (os.getpid(), int(time.time() * 1000)))
    p.add_argument("--timeout", type=float, default=20.0)
    p.add_argument("--payload-codec", action="store_true")
    opts = p.parse_args(argv)
    if not (opts.url.startswith("ws://") or opts.url.startswith("rs://")):
        p.error("--url must start with ws:// or rs://")
    if opts.timeout <= 0:
        p.error("--timeout must be positive")
    opts.key = None
    if opts.authmethod == "cryptosign":
        opts.key = cryptosign_key(p, opts.secret)
    return opts


def cryptosign_key(p, seed_hex):
    """The CryptosignKey of a hex Ed25519 seed (32 bytes)."""
    if not cryptosign.HAS_CRYPTOSIGN:
        p.error("--authmethod cryptosign needs PyNaCl (Debian package python3-nacl)")
    try:
        seed = binascii.a2b_hex(seed_hex)
    except (binascii.Error, ValueError):
        seed = b""
    if len(seed) != 32:
        p.error("--secret must be a 64 hex digit Ed25519 seed with --authmethod cryptosign")
    return cryptosign.CryptosignKey.from_bytes(seed)


STARTED = time.monotonic()


def step(msg):
    """Note progress on stderr, so that a failure shows how far it got."""
    sys.stderr.write("scenario.py: +%dms %s\n" % ((time.monotonic() - STARTED) * 1000, msg))
    sys.stderr.flush()


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def uris(prefix):
    return {
        "add2": prefix + ".add2",
        "progress": prefix + ".progress",
        "error": prefix + ".error",
        "topic": prefix + ".topic",
    }


def add2(a, b):
    return a + b


def progressive(details=None):
    if details is None or details.progress is None:
        raise ApplicationError("com.interop.no_progress", "caller did not ask for progressive results")
    for p in PROGRESS:
        details.progress(p)
    return FINAL


def raiser():
    raise ApplicationError(ERROR_URI, *ERROR_ARGS, **ERROR_KWARGS)


@defer.inlineCallbacks
def provide(session, u, counts):
    """Register the procedures and subscribe; return a list holding a
    Deferred of the first event (an inlineCallbacks function cannot return
    a Deferred itself)."""

    def count(name, fn):
        def endpoint(*args, **kwargs):
            counts[name] += 1
            return fn(*args, **kwargs)

        return endpoint

    yield session.register(count("add2", add2), u["add2"])
    yield session.register(count("progress", progressive), u["progress"], RegisterOptions(details_arg="details"))
    yield session.register(count("error", raiser), u["error"])
    step("registered %s, %s, %s" % (u["add2"], u["progress"], u["error"]))
    event = defer.Deferred()

    def on_event(*args, **kwargs):
        if not event.called:
            event.callback((list(args), kwargs))

    yield session.subscribe(on_event, u["topic"])
    step("subscribed to %s" % u["topic"])
    return [event]


@defer.inlineCallbacks
def call_add2(session, u):
    r = yield session.call(u["add2"], 2, 3)
    check(same(r, 5), "add2(2, 3) returned %r, want the integer 5" % (r,))


@defer.inlineCallbacks
def call_progress(session, u):
    got = []
    final = yield session.call(u["progress"], options=CallOptions(on_progress=got.append))
    check(same(got, PROGRESS), "progressive results %r, want %r" % (got, PROGRESS))
    check(same(final, FINAL), "final result %r, want %r" % (final, FINAL))


@defer.inlineCallbacks
def call_error(session, u):
    try:
        r = yield session.call(u["error"])
    except ApplicationError as e:
        check(e.error == ERROR_URI, "error URI %r, want %r" % (e.error, ERROR_URI))
        check(same(list(e.args), ERROR_ARGS), "error args %r, want %r" % (e.args, ERROR_ARGS))
        check(same(dict(e.kwargs or {}), ERROR_KWARGS), "error kwargs %r, want %r" % (e.kwargs, ERROR_KWARGS))
        return
    raise CheckError("call to %s returned %r, want an error" % (u["error"], r))


@defer.inlineCallbacks
def publish(session, u):
    pub = yield session.publish(
        u["topic"], *EVENT_ARGS, options=PublishOptions(acknowledge=True, exclude_me=False), **EVENT_KWARGS
    )
    check(pub is not None and pub.id, "publication acknowledged without an ID: %r" % (pub,))


@defer.inlineCallbacks
def run_caller(session, u):
    yield call_add2(session, u)
    step("called add2")
    yield call_progress(session, u)
    step("called progress")
    yield call_error(session, u)
    step("called error")
    yield publish(session, u)
    step("published")


@defer.inlineCallbacks
def run_history(session, realm, tag):
    """Publishes five counter events and two sensor readings, each tagged
    with tag (the run's own: the node's histories outlive the run), then
    reads the histories: newest first, at most the limit, in Crossbar's item
    shape, with time_ns an exact integer over every serializer; a
    subscription without history answers wamp.error.history_unavailable."""
    ack = PublishOptions(acknowledge=True, exclude_me=False)
    before = time.time_ns()
    for i in range(5):
        yield session.publish(HISTORY_TOPIC, tag, i, options=ack)
    yield session.publish(HISTORY_PREFIX + "temp", tag, 21.5, options=ack, unit="C")
    yield session.publish(HISTORY_PREFIX + "humidity", tag, 40, options=ack)
    after = time.time_ns()
    step("published to the histories")

    sid = yield session.call("wamp.subscription.lookup", HISTORY_TOPIC)
    check(isinstance(sid, int), "the history's subscription of %s: %r" % (HISTORY_TOPIC, sid))
    got = yield session.call("wamp.subscription.get_events", sid)
    want = [[tag, 4], [tag, 3], [tag, 2]]
    check(same([e["args"] for e in got], want), "the counter's history %r, want the args %r" % (got, want))
    e = got[0]
    check((e["topic"], e["realm"], e["session_id"], e["authrole"], e["kwargs"])
          == (HISTORY_TOPIC, realm, session._session_id, "anonymous", None),
          "an item's topic, realm, publisher, role and kwargs: %r" % (e,))
    check(type(e["publication"]) is int, "an item's publication %r, want an integer" % (e["publication"],))
    check(type(e["time_ns"]) is int and before <= e["time_ns"] <= after,
          "an item's time_ns %r, want the integer between %d and %d" % (e["time_ns"], before, after))
    got = yield session.call("wamp.subscription.get_events", sid, 1)
    check(same([e["args"] for e in got], [[tag, 4]]), "get_events with limit 1: %r" % (got,))

    pid = yield session.call("wamp.subscription.lookup", HISTORY_PREFIX, {"match": "prefix"})
    got = yield session.call("wamp.subscription.get_events", pid, 2)
    got = [(e["topic"], e["args"], e["kwargs"]) for e in got]
    want = [(HISTORY_PREFIX + "humidity", [tag, 40], None), (HISTORY_PREFIX + "temp", [tag, 21.5], {"unit": "C"})]
    check(got == want, "the prefix history %r, want %r" % (got, want))

    sub = yield session.subscribe(lambda *a, **kw: None, tag + ".nohistory")
    try:
        r = yield session.call("wamp.subscription.get_events", sub.id)
    except ApplicationError as e:
        check(e.error == "wamp.error.history_unavailable", "get_events without history: %s" % e.error)
    else:
        raise CheckError("get_events of a subscription without history returned %r" % (r,))
    step("read the histories")


@defer.inlineCallbacks
def run_everything(session, tag):
    """Subscribes to the prefix "" (autobahn's client accepts it); when the
    router grants it, publishes to two topics under tag and waits for both
    events, each with its topic in the details. Other runs' events (the
    node is shared) are ignored."""
    topics = [tag + ".one", tag + ".two.deep"]
    pending = {t: defer.Deferred() for t in topics}

    def on_event(*args, details=None):
        d = pending.get(details.topic)
        if d is not None and not d.called:
            d.callback(list(args))

    try:
        yield session.subscribe(on_event, "", SubscribeOptions(match="prefix", details_arg="details"))
    except ApplicationError as e:
        step("subscribe to the empty prefix refused: %s" % e.error)
        return {"everything": e.error}
    step("subscribed to the empty prefix")
    ack = PublishOptions(acknowledge=True, exclude_me=False)
    for t in topics:
        yield session.publish(t, t, options=ack)
    for t in topics:
        args = yield pending[t]
        check(same(args, [t]), "the event on %s: args %r" % (t, args))
    step("received the events on every topic")
    return {"everything": "subscribed"}


@defer.inlineCallbacks
def run_scenario(opts, session):
    if opts.role == "history":
        yield run_history(session, opts.realm, opts.prefix)
        return {}
    if opts.role == "everything":
        result = yield run_everything(session, opts.prefix)
        return result
    u = uris(opts.prefix)
    counts = {"add2": 0, "progress": 0, "error": 0}
    if opts.role == "caller":
        yield run_caller(session, u)
        return {}
    (event,) = yield provide(session, u, counts)
    if opts.role == "callee":
        emit({"ready": True})
    else:
        yield run_caller(session, u)
    args, kwargs = yield event
    step("received the event")
    check(same(args, EVENT_ARGS), "event args %r, want %r" % (args, EVENT_ARGS))
    check(same(kwargs, EVENT_KWARGS), "event kwargs %r, want %r" % (kwargs, EVENT_KWARGS))
    check(list(kwargs) == list(EVENT_KWARGS), "event kwargs keys %r, want in the order sent: %r" % (list(kwargs), list(EVENT_KWARGS)))
    want = {"add2": 1, "progress": 1, "error": 1}
    check(counts == want, "invocations %r, want %r" % (counts, want))
    return {"invocations": counts}


class Outcome:
    """The scenario's result, settled once: ok with a JSON object, or failed."""

    def __init__(self):
        self.result = None
        self.error = None

    @property
    def settled(self):
        return self.result is not None or self.error is not None

    def succeed(self, result):
        if not self.settled:
            self.result = result

    def fail(self, msg):
        if not self.settled:
            self.error = msg


class Scenario(ApplicationSession):
    """One session running the scenario; config.extra holds opts and outcome."""

    def onConnect(self):
        opts = self.config.extra["opts"]
        methods = None if opts.authmethod == "anonymous" else [opts.authmethod]
        authextra = {"pubkey": opts.key.public_key()} if opts.key else None
        self.join(self.config.realm, authmethods=methods, authid=opts.authid or None, authextra=authextra)

    def onChallenge(self, challenge):
        opts = self.config.extra["opts"]
        if challenge.method == "ticket":
            return opts.secret
        if challenge.method == "wampcra":
            key = opts.secret
            extra = challenge.extra
            if "salt" in extra:
                key = auth.derive_key(opts.secret, extra["salt"], extra.get("iterations", 1000), extra.get("keylen", 32))
            return auth.compute_wcs(key, extra["challenge"]).decode("ascii")
        if challenge.method == "cryptosign":
            return opts.key.sign_challenge(challenge)  # a Deferred of the hex signature
        raise Exception("unexpected challenge method %r" % challenge.method)

    @defer.inlineCallbacks
    def onJoin(self, details):
        opts, outcome = self.config.extra["opts"], self.config.extra["outcome"]
        self.joined = True
        step("joined %s as %s/%s" % (details.realm, details.authid, details.authrole))
        if opts.expect_fail:
            outcome.fail("joined as %s/%s, want the join refused" % (details.authid, details.authrole))
            self.leave()
            return
        codec = None
        if opts.payload_codec:
            codec = PassthruCodec()
            self.set_payload_codec(codec)
        try:
            extra = yield run_scenario(opts, self)
            if codec is not None:
                extra["decoded"] = codec.decoded
        except Exception as e:
            outcome.fail("%s: %s" % (type(e).__name__, e))
        else:
            result = {
                "ok": True,
                "client": "autobahn-python",
                "role": opts.role,
                "serializer": self._transport._serializer.SERIALIZER_ID,
                "authid": details.authid,
                "authrole": details.authrole,
                "authmethod": details.authmethod,
            }
            result.update(extra)
            outcome.succeed(result)
        step("leaving")
        self.leave()

    def onLeave(self, details):
        opts, outcome = self.config.extra["opts"], self.config.extra["outcome"]
        if not getattr(self, "joined", False):
            if opts.expect_fail and details.reason:
                outcome.succeed(
                    {"ok": True, "client": "autobahn-python", "refused": True,
                     "reason": details.reason, "message": details.message or ""}
                )
            else:
                outcome.fail("join refused: %s %s" % (details.reason, details.message or ""))
        elif outcome.result is not None:
            outcome.result["goodbye"] = details.reason
        elif not outcome.settled:
            outcome.fail("session left during the scenario: %s %s" % (details.reason, details.message or ""))
        self.disconnect()

    def onDisconnect(self):
        self.config.extra["outcome"].fail("transport closed before the scenario finished")
        if reactor.running:
            reactor.stop()


def start_logging():
    """Send warnings and errors of Twisted and autobahn to stderr, leaving
    stdout to the result line (txaio.start_logging would capture stdout)."""
    predicate = LogLevelFilterPredicate(defaultLogLevel=LogLevel.warn)
    observer = FilteringLogObserver(textFileLogObserver(sys.stderr), [predicate])
    globalLogBeginner.beginLoggingTo([observer], redirectStandardIO=False)
    txaio.set_global_log_level("warn")


def main(argv):
    opts = parse_args(argv)
    start_logging()
    outcome = Outcome()
    ser = SERIALIZERS[opts.serializer]()
    runner = ApplicationRunner(opts.url, opts.realm, extra={"opts": opts, "outcome": outcome}, serializers=[ser])

    def connect_failed(failure):
        outcome.fail("cannot connect to %s: %s" % (opts.url, failure.getErrorMessage()))
        if reactor.running:
            reactor.stop()

    def timed_out():
        outcome.fail("timed out after %gs" % opts.timeout)
        reactor.stop()

    reactor.callLater(opts.timeout, timed_out)
    step("connecting to %s with %s, %s" % (opts.url, opts.serializer, opts.authmethod))
    d = runner.run(Scenario, start_reactor=False, log_level="warn")
    d.addErrback(connect_failed)
    reactor.run()
    if outcome.result is not None:
        emit(outcome.result)
        return 0
    msg = outcome.error or "reactor stopped without a result"
    sys.stderr.write("scenario.py: %s\n" % msg)
    emit({"ok": False, "error": msg})
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
