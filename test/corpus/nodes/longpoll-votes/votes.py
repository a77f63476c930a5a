"""The votes backend of the demo: it counts the votes for each flavor,
answers the current counts and publishes every new vote."""

from autobahn.twisted.wamp import ApplicationSession
from twisted.internet.defer import inlineCallbacks


class VotesBackend(ApplicationSession):
    def __init__(self, config=None):
        ApplicationSession.__init__(self, config)
        self.votes = {"Banana": 0, "Chocolate": 0, "Lemon": 0}

    @inlineCallbacks
    def onJoin(self, details):
        def get():
            return [{"subject": s, "votes": n} for s, n in sorted(self.votes.items())]

        def vote(subject):
            if subject not in self.votes:
                return None
            self.votes[subject] += 1
            result = {"subject": subject, "votes": self.votes[subject]}
            self.publish("io.crossbar.demo.vote.onvote", result)
            return result

        def reset():
            for s in self.votes:
                self.votes[s] = 0
            self.publish("io.crossbar.demo.vote.onreset")

        yield self.register(get, "io.crossbar.demo.vote.get")
        yield self.register(vote, "io.crossbar.demo.vote.vote")
        yield self.register(reset, "io.crossbar.demo.vote.reset")
        print("votes backend ready")
