"""Multiplication, in a container over RawSocket (MessagePack); products
of long lists come as progressive results."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import RegisterOptions
from twisted.internet.defer import inlineCallbacks


class AppSession(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def mul(*operands, details=None):
            product = 1
            for x in operands:
                product *= x
                if details.progress:
                    details.progress(product)
            return product

        yield self.register(mul, "com.calc.mul", options=RegisterOptions(details_arg="details"))
