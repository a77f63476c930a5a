"""The backend of the hello node: it counts, adds and multiplies."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import LoopingCall


class AppSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        self.counter = 0
        self.greetings = []

        def onhello(msg):
            self.greetings.append(msg)

        yield self.subscribe(onhello, "com.example.onhello")

        def add2(x, y):
            return x + y

        yield self.register(add2, "com.example.add2")
        yield self.register(lambda: self.greetings, "com.example.greetings")
        print("hello backend ready on realm {}".format(details.realm))

        self.ticker = LoopingCall(self.tick)
        self.ticker.start(0.2)

    @inlineCallbacks
    def tick(self):
        self.publish("com.example.oncounter", self.counter)
        try:
            product = yield self.call("com.example.mul2", self.counter, 3)
        except ApplicationError as e:
            if e.error != "wamp.error.no_such_procedure":
                raise
        else:
            self.publish("com.example.onmul2", self.counter, product)
        self.counter += 1

    def onLeave(self, details):
        if self.ticker.running:
            self.ticker.stop()
        ApplicationSession.onLeave(self, details)
