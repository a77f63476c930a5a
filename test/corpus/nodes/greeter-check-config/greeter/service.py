"""A router component that checks its configuration before it starts
(check_config) and takes a helper module from a second pythonpath entry."""

import os

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks

import textutil


class Greeter(ApplicationSession):
    # what check_config accepted, for the sessions of this class
    checked = None

    @classmethod
    def check_config(cls, personality, extra):
        if not isinstance(extra.get("greeting"), str):
            raise ValueError("extra.greeting must be a string")
        names = extra.get("names")
        if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
            raise ValueError("extra.names must map ids to names")
        cls.checked = sorted(names)

    @inlineCallbacks
    def onJoin(self, details):
        extra = self.config.extra
        mode = os.environ.get("GREETER_MODE", "casual")

        def greet(who):
            if who not in extra["names"]:
                raise ApplicationError("com.greeter.unknown", "nobody called {}".format(who))
            return textutil.sentence(extra["greeting"], extra["names"][who], formal=(mode == "formal"))

        def about():
            return {"checked": self.checked, "mode": mode, "role": details.authrole}

        yield self.register(greet, "com.greeter.greet")
        yield self.register(about, "com.greeter.about")
