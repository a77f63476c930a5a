# Junction's Python runner: it runs the Python class components of one
# worker, as a Crossbar.io worker process runs them.
#
# This program is part of Junction: the junction binary embeds it (package
# internal/pyrunner) and starts it once per worker that has Python class
# components, as
#
#     <python> -u - '<settings as JSON>'
#
# with this program on stdin, the node directory as working directory,
# options.pythonpath in PYTHONPATH, and file descriptor 3 a Unix stream
# socket to the node: the control channel. Control messages are JSON
# objects, one per line, both ways:
#
#   node -> runner
#     {"type": "call", "id": N, "op": "start", "args": {...}}
#         A file descriptor rides with each "start" (SCM_RIGHTS): the
#         component's end of a socket pair, over which the component speaks
#         WAMP-over-RawSocket to the node. The node answers the other end
#         (a router's gate, or a relay to the component's own transport).
#
#   runner -> node
#     {"type": "hello", ...}                   ready for calls
#     {"type": "fatal", "message": "..."}      cannot run; the runner exits 2
#     {"type": "result", "id": N, "result": {...}}
#     {"type": "error", "id": N, "error": {"stage", "message", "traceback"}}
#     {"type": "event", "event": E, "component": C, "run": R, ...}
#         E is "fatal" (an exception escaped the component's code: it is
#         disconnected), "left" (its session left the realm) or "closed"
#         (its connection is closed: the run is over).
#     {"type": "log", "level": L, "message": M, "component": C}
#
# Calls are answered by id, so that any request and response can travel
# here; "start" is answered once the component is ready (its onJoin has
# returned) or has failed to start.

import json
import os
import socket
import sys
import traceback

CONTROL_FD = 3
FATAL_EXIT = 2


def settings():
    """The settings the node passes as the first argument."""
    return json.loads(sys.argv[1])


def set_path(s):
    """sys.path[0] is the directory the node was started from, as a
    Crossbar worker's (python -m from there), not the working directory;
    options.pythonpath comes after it through PYTHONPATH."""
    if sys.path and sys.path[0] in ("", "-", "."):
        sys.path[0] = s["startdir"]
    else:
        sys.path.insert(0, s["startdir"])


def fatal(message):
    """Tells the node why the runner cannot run, then exits."""
    line = json.dumps({"type": "fatal", "message": message}) + "\n"
    try:
        os.write(CONTROL_FD, line.encode("utf-8"))
    except OSError:
        sys.stderr.write(message + "\n")
    os._exit(FATAL_EXIT)


def import_twisted():
    """Imports Twisted and Autobahn, or reports which one is missing."""
    try:
        import twisted  # noqa: F401
        from twisted.internet import reactor  # noqa: F401
    except Exception as e:
        fatal("cannot import Twisted: %s" % exception_line(e))
    try:
        import autobahn  # noqa: F401
        from autobahn.twisted.wamp import ApplicationSession  # noqa: F401
    except Exception as e:
        fatal("cannot import Autobahn (autobahn.twisted): %s" % exception_line(e))


def exception_line(e):
    """The last line of an exception's report: "Type: message"."""
    return "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()[-1]


def main():
    s = settings()
    set_path(s)
    import_twisted()
    run(s)


def run(s):
    # Imported here: a missing Twisted or Autobahn is reported by
    # import_twisted, in words, before anything else is imported.
    from twisted.internet import reactor
    from twisted.internet.protocol import Factory, Protocol
    from twisted.internet.interfaces import IFileDescriptorReceiver
    from twisted.logger import LogLevel, formatEvent, globalLogBeginner
    from zope.interface import implementer
    import autobahn
    import twisted
    import txaio
    from autobahn.twisted.rawsocket import WampRawSocketClientFactory, WampRawSocketClientProtocol
    from autobahn.twisted.wamp import ApplicationSession
    from autobahn.wamp.types import ComponentConfig

    txaio.use_twisted()

    class Personality(object):
        """What a component's check_config(personality, extra) gets in
        place of Crossbar's personality class: its name and title."""
        NAME = "standalone"
        TITLE = "Junction"
        DESC = "Junction, a WAMP router configured like Crossbar.io"

    class StartError(Exception):
        def __init__(self, stage, message, tb=None):
            Exception.__init__(self, message)
            self.stage = stage
            self.message = message
            self.tb = tb

    def failure_of(stage, what):
        """A StartError for the exception being handled."""
        e = sys.exc_info()[1]
        return StartError(stage, "%s: %s%s" % (what, exception_line(e), where(e)), traceback.format_exc())

    def where(e):
        """ " (file.py line N)" for the innermost frame of e outside this
        program, or ""."""
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename not in ("<stdin>", "<string>")]
        if isinstance(e, SyntaxError) and e.filename:
            return " (%s line %s)" % (e.filename, e.lineno)
        if not frames:
            return ""
        f = frames[-1]
        return " (%s line %d)" % (f.filename, f.lineno)

    def load_class(classname):
        """Imports classname ("package.module.Class") and checks that it
        is an ApplicationSession for Twisted."""
        module_name, _, class_name = classname.rpartition(".")
        if not module_name:
            raise StartError("import", "%r is not a module.Class name" % classname)
        try:
            module = __import__(module_name, fromlist=[class_name])
        except Exception:
            err = failure_of("import", "cannot import module %r" % module_name)
            if isinstance(sys.exc_info()[1], ImportError):
                err.message += " (Python module search path: %s)" % ", ".join(p for p in sys.path if p)
            raise err
        cls = getattr(module, class_name, None)
        if cls is None:
            raise StartError("import", "module %r has no class %r" % (module_name, class_name))
        if not isinstance(cls, type) or not issubclass(cls, ApplicationSession):
            raise StartError("import", "%r is not a subclass of autobahn.twisted.wamp.ApplicationSession" % classname)
        return cls

    def serializer():
        """The best serializer Autobahn has here for the socket to the
        node: CBOR, then MessagePack, then JSON (the node speaks all)."""
        from autobahn.wamp import serializer as ser
        for name in ("CBORSerializer", "MsgPackSerializer", "JsonSerializer"):
            cls = getattr(ser, name, None)
            if cls is not None:
                return cls()
        raise StartError("connect", "Autobahn has no CBOR, MessagePack or JSON serializer")

    class Run(object):
        """One start of one component: its session, from the start call
        to the end of its connection."""

        def __init__(self, control, call_id, args):
            self.control = control
            self.call_id = call_id
            self.component = args["component"]
            self.run = args["run"]
            self.router = bool(args.get("router"))
            self.args = args
            self.session = None
            self.answered = False
            self.failed = False
            self.leave_details = None
            self.fatal = None

        def start(self, fd):
            cls = load_class(self.args["classname"])
            extra = dict(self.args.get("extra") or {})
            extra["cbdir"] = self.control.settings["cbdir"]
            check = getattr(cls, "check_config", None)
            if callable(check):
                try:
                    check(Personality, extra)
                except Exception:
                    raise failure_of("check_config", "%s.check_config refused the component's extra" % cls.__name__)
            config = ComponentConfig(realm=self.args["realm"], extra=extra, keyring=None, controller=None, shared=None)
            try:
                self.session = cls(config)
            except Exception:
                raise failure_of("create", "%s(config) raised" % cls.__name__)
            self.watch(self.session)
            factory = WampRawSocketClientFactory(lambda: self.session, serializer=serializer())
            factory.protocol = self.protocol_class()
            os.set_blocking(fd, False)
            reactor.adoptStreamConnection(fd, socket.AF_UNIX, factory)

        def protocol_class(self):
            run = self

            class RunProtocol(WampRawSocketClientProtocol):
                def connectionLost(self, reason):
                    try:
                        WampRawSocketClientProtocol.connectionLost(self, reason)
                    finally:
                        run.lost(reason)

            return RunProtocol

        def watch(self, session):
            """Hooks the session's life, as Crossbar's worker does: an
            exception escaping the component's code is fatal (the session is
            disconnected); "ready" (onJoin has returned) answers the start."""
            session._swallow_error = self.panic
            user_on_leave = session.onLeave

            def on_leave(details):
                self.leave_details = details
                return user_on_leave(details)

            session.onLeave = on_leave
            session.on("ready", self.ready)
            session.on("leave", self.left)

        def panic(self, fail, msg):
            self.fatal = "%s: %s" % (msg, fail.getErrorMessage())
            self.control.log("error", "Fatal error in component: %s - %s" % (msg, fail.getErrorMessage()), self.component,
                             fail.getTraceback())
            self.control.event("fatal", self, fatal=self.fatal, traceback=fail.getTraceback())
            if self.session is not None:
                self.session.disconnect()

        def ready(self, session):
            if self.answered:
                return
            if self.router and (session._goodbye_sent or self.leave_details is not None):
                # Crossbar's router components join in-process: a leave()
                # in onJoin ends the session before it is ready, which
                # fails the start.
                self.fail("join", "the session left before it was ready")
                return
            self.answered = True
            self.control.reply(self.call_id, {"session": session._session_id, "authid": session._authid,
                                              "authrole": session._authrole})

        def left(self, session, details):
            if self.answered:
                self.control.event("left", self, reason=details.reason, message=details.message)

        def lost(self, reason):
            self.control.runs.pop((self.component, self.run), None)
            if self.failed:
                return
            if not self.answered:
                self.fail("join", "the connection closed before the session was ready%s" % self.why())
                return
            self.control.event("closed", self, fatal=self.fatal)

        def why(self):
            d = self.leave_details
            if d is None:
                return ""
            if d.message:
                return " (%s: %s)" % (d.reason, d.message)
            return " (%s)" % d.reason

        def fail(self, stage, message, tb=None):
            self.answered = True
            self.failed = True
            self.control.fail(self.call_id, stage, message, tb)
            if self.session is not None and self.session._transport is not None:
                self.session.disconnect()

    @implementer(IFileDescriptorReceiver)
    class Control(Protocol):
        """The control channel: JSON lines, and a descriptor with each
        "start"."""

        def __init__(self, settings):
            self.settings = settings
            self.buffer = b""
            self.fds = []
            self.runs = {}

        def connectionMade(self):
            self.send({"type": "hello", "pid": os.getpid(), "python": sys.version.split()[0],
                       "executable": sys.executable, "twisted": twisted.__version__,
                       "autobahn": autobahn.__version__})

        def fileDescriptorReceived(self, fd):
            self.fds.append(fd)

        def dataReceived(self, data):
            self.buffer += data
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                if line.strip():
                    self.handle(json.loads(line.decode("utf-8")))

        def connectionLost(self, reason):
            # The node is gone (or closed the channel): so is the worker.
            try:
                reactor.stop()
            except Exception:
                pass  # already stopping

        def handle(self, msg):
            if msg.get("type") != "call":
                return
            op = OPS.get(msg.get("op"))
            if op is None:
                self.fail(msg.get("id"), "call", "unknown operation %r" % msg.get("op"))
                return
            op(self, msg.get("id"), msg.get("args") or {})

        def op_start(self, call_id, args):
            fd = self.fds.pop(0) if self.fds else None
            if fd is None:
                self.fail(call_id, "call", "no socket came with the start of %s" % args.get("component"))
                return
            r = Run(self, call_id, args)
            self.runs[(r.component, r.run)] = r
            try:
                r.start(fd)
            except StartError as e:
                self.runs.pop((r.component, r.run), None)
                r.fail(e.stage, e.message, e.tb)
            except Exception:
                self.runs.pop((r.component, r.run), None)
                e = failure_of("start", "starting the component failed")
                r.fail(e.stage, e.message, e.tb)
            finally:
                os.close(fd)

        def send(self, msg):
            if self.transport is None or getattr(self.transport, "disconnected", False):
                return
            self.transport.write((json.dumps(msg, default=repr) + "\n").encode("utf-8"))

        def reply(self, call_id, result):
            self.send({"type": "result", "id": call_id, "result": result})

        def fail(self, call_id, stage, message, tb=None):
            self.send({"type": "error", "id": call_id, "error": {"stage": stage, "message": message, "traceback": tb}})

        def event(self, name, r, **fields):
            msg = {"type": "event", "event": name, "component": r.component, "run": r.run}
            msg.update(fields)
            self.send(msg)

        def log(self, level, message, component=None, tb=None):
            msg = {"type": "log", "level": level, "message": message}
            if component:
                msg["component"] = component
            if tb:
                msg["traceback"] = tb
            self.send(msg)

        def component_of(self, source):
            for r in list(self.runs.values()):
                if r.session is not None and r.session is source:
                    return r.component
            return None

    OPS = {"start": Control.op_start}

    levels = {LogLevel.debug: "debug", LogLevel.info: "info", LogLevel.warn: "warn",
              LogLevel.error: "error", LogLevel.critical: "error"}
    debug = s.get("level") == "debug"
    control = Control(s)

    def observer(event):
        """Twisted's (and txaio's) log events go to the node's log."""
        level = levels.get(event.get("log_level"), "info")
        if level == "debug" and not debug:
            return
        try:
            message = formatEvent(event)
            tb = None
            if "log_failure" in event:
                tb = event["log_failure"].getTraceback()
            control.log(level, message, control.component_of(event.get("log_source")), tb)
        except Exception:
            pass

    txaio.set_global_log_level("debug" if debug else "info")
    globalLogBeginner.beginLoggingTo([observer], discardBuffer=True, redirectStandardIO=False)

    class ControlFactory(Factory):
        noisy = False

        def buildProtocol(self, addr):
            control.factory = self
            return control

    os.set_blocking(CONTROL_FD, False)
    reactor.adoptStreamConnection(CONTROL_FD, socket.AF_UNIX, ControlFactory())
    os.close(CONTROL_FD)
    reactor.run()


if __name__ == "__main__":
    main()
