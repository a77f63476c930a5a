# The procedures behind the wap path "reports" (see
# docs/configuration.md, "wap"): a Python class component, which the
# node runs as Crossbar.io does, joined to realm1.
from twisted.internet.defer import inlineCallbacks
from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError


class Reports(ApplicationSession):

    @inlineCallbacks
    def onJoin(self, details):

        def greeting(name):
            # The URL's variables come as keyword arguments; the dict
            # returned is the template's context.
            return {"name": name, "greeting": "Hello"}

        def product_report(product_id, report):
            if product_id != 42:
                raise ApplicationError("com.example.error.no_such_product")
            return {"product_id": product_id, "report": report, "rows": [["widgets", 3], ["gadgets", 5]]}

        yield self.register(greeting, "com.example.greeting")
        yield self.register(product_report, "com.example.product_report")
