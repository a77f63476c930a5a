"""A container component configured through "extra", which also carries
the node directory ("cbdir") as Crossbar adds it."""

import os

from autobahn.twisted.wamp import ApplicationRunner, ApplicationSession
from twisted.internet.defer import inlineCallbacks


class MyComponent(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        print("session joined; configuration: {}".format(self.config.extra))

        def configuration():
            return self.config.extra

        def files():
            # the node directory holds the config this node was started from
            return sorted(os.listdir(self.config.extra["cbdir"]))

        yield self.register(configuration, "com.example.configuration")
        yield self.register(files, "com.example.cbdir_files")


if __name__ == "__main__":
    # run by hand, outside the node
    runner = ApplicationRunner("ws://localhost:8080/ws", "realm1", extra={"foo": "bar", "baz": 23})
    runner.run(MyComponent)
