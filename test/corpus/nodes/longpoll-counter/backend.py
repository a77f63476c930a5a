"""The backend of the long-poll example: a counter published every 200 ms
and a procedure that adds two numbers."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import LoopingCall


class Backend(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def add2(x, y):
            return x + y

        yield self.register(add2, "com.example.add2")
        self.counter = 0
        self.ticker = LoopingCall(self.tick)
        self.ticker.start(0.2)

    def tick(self):
        self.publish("com.example.oncounter", self.counter)
        self.counter += 1

    def onLeave(self, details):
        if self.ticker.running:
            self.ticker.stop()
        ApplicationSession.onLeave(self, details)
