"""A router component that listens to whole families of topics through
pattern-based subscriptions and tells what it heard."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.types import SubscribeOptions
from twisted.internet.defer import inlineCallbacks


class MyComponent(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        heard = []

        def listener(name):
            def on_event(*args, details=None):
                # details only where the subscription asked for them
                heard.append([name, details.topic if details else None, list(args)])

            return on_event

        yield self.subscribe(listener("exact"), "com.myapp.topic1")
        yield self.subscribe(
            listener("prefix"), "com.myapp.topic1", options=SubscribeOptions(match="prefix", details_arg="details")
        )
        yield self.subscribe(
            listener("wildcard"), "com.myapp..update", options=SubscribeOptions(match="wildcard", details_arg="details")
        )
        yield self.register(lambda: heard, "com.myapp.heard")
        print("pattern-based subscriptions are ready")
