# Python class components for the node's tests (pyworker_test.go): each
# test copies this module into a project directory and runs it under
# /usr/bin/python3 with Debian's python3-autobahn and python3-twisted.
import os
import sys

from twisted.internet import reactor
from twisted.internet.defer import inlineCallbacks
from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import CallResult


def name_of(session):
    return session.config.extra.get("name", "c")


class Echo(ApplicationSession):
    """Registers <name>.echo and <name>.info; publishes test.joined; leaves
    when <name>.leave is called, fails (an exception escapes an event
    handler) on an event of <name>.fail, and stops the runner (its reactor)
    on an event of <name>.exit."""

    @inlineCallbacks
    def onJoin(self, details):
        name = name_of(self)
        yield self.register(lambda *args: CallResult(*args), name + ".echo")
        yield self.register(lambda: self.info(details), name + ".info")
        yield self.register(self.leave_later, name + ".leave")
        yield self.subscribe(self.fail_now, name + ".fail")
        yield self.subscribe(self.exit_runner, name + ".exit")
        print("joined", name)
        sys.stderr.write("stderr of %s\n" % name)
        self.publish("test.joined", name, os.getpid())

    def info(self, details):
        return {
            "extra": self.config.extra,
            "realm": details.realm,
            "authrole": details.authrole,
            "cwd": os.getcwd(),
            "path0": sys.path[0],
            "path": sys.path,
            "controller": self.config.controller is None,
            "shared": self.config.shared is None,
            "pid": os.getpid(),
            "env": {k: os.environ.get(k) for k in ("PYAPP_MODE", "PYAPP_INHERITED", "PYTHONUNBUFFERED", "HOME")},
        }

    def leave_later(self):
        reactor.callLater(0, self.leave)
        return "leaving"

    def fail_now(self, *args):
        raise RuntimeError("told to fail")

    def exit_runner(self, *args):
        reactor.stop()


class Checked(Echo):
    """check_config refuses an extra with "bad", and marks the extra it
    accepts (the component gets the same dict)."""

    @classmethod
    def check_config(cls, personality, extra):
        if extra.get("bad"):
            raise ValueError("bad is set")
        extra["checked_by"] = personality.NAME


class RaiseInJoin(ApplicationSession):
    def onJoin(self, details):
        self.publish("test.joined", name_of(self), os.getpid())
        return 1 / 0


class LeaveInJoin(ApplicationSession):
    def onJoin(self, details):
        self.leave()


class RaiseInInit(ApplicationSession):
    def __init__(self, config):
        1 / 0


class NotASession(object):
    pass
