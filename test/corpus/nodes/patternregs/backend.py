"""A router component that serves whole families of procedures through
pattern-based registrations: a prefix for one object's methods and a
wildcard for one method of every object."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import RegisterOptions
from twisted.internet.defer import inlineCallbacks


class MyComponent(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def on_product(*args, details=None):
            return {"handler": "product", "procedure": details.procedure, "args": list(args)}

        def on_create(*args, details=None):
            return {"handler": "create", "procedure": details.procedure, "args": list(args)}

        def on_exact():
            return {"handler": "exact"}

        yield self.register(
            on_product, "com.myapp.product.", options=RegisterOptions(match="prefix", details_arg="details")
        )
        yield self.register(
            on_create, "com.myapp..create", options=RegisterOptions(match="wildcard", details_arg="details")
        )
        yield self.register(on_exact, "com.myapp.product.delete")
        print("pattern-based registrations are ready")
