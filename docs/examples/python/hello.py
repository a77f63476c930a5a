# A Python class component, as Crossbar.io runs them: Junction's Python
# runner imports hello.Hello and joins it to realm1 (see
# docs/python-components.md).
from twisted.internet.defer import inlineCallbacks
from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError


class Hello(ApplicationSession):

    @classmethod
    def check_config(cls, personality, extra):
        # Called before the component starts: refuse a bad "extra" here,
        # and the node does not start.
        if not isinstance(extra.get("greeting", ""), str):
            raise ValueError("extra.greeting must be a string")

    @inlineCallbacks
    def onJoin(self, details):
        greeting = self.config.extra.get("greeting", "Hello")

        def add2(x, y):
            return x + y

        def greet(name):
            if not name:
                raise ApplicationError("com.example.error.no_name", "who shall I greet?")
            return "%s, %s!" % (greeting, name)

        yield self.register(add2, "com.example.add2")
        yield self.register(greet, "com.example.greet")
        self.log.info("registered com.example.add2 and com.example.greet on {realm}", realm=details.realm)
