"""Division, in another container over RawSocket (JSON)."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from twisted.internet.defer import inlineCallbacks


class AppSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def div(x, y):
            if y == 0:
                raise ApplicationError("com.calc.division_by_zero", "cannot divide {} by zero".format(x))
            return x / y

        yield self.register(div, "com.calc.div")
