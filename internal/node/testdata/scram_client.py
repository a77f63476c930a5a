#!/usr/bin/python3
"""Log in to a router with WAMP-SCRAM as autobahn-python implements it.

    /usr/bin/python3 scram_client.py URL REALM AUTHID PASSWORD

Prints a line "RESULT " + JSON (after autobahn's logs): {"ok": true, "authid", "authrole", "authmethod",
"server_signature_ok"} once joined (it then leaves), or {"ok": false,
"error": ...} when the router refuses; exits 0 either way, 1 on a failure
of the script itself. Needs Debian's python3-autobahn and python3-argon2
(and python3-passlib for saslprep).
"""

import json
import sys

import txaio

txaio.use_twisted()

from autobahn.twisted.wamp import ApplicationRunner, ApplicationSession  # noqa: E402
from autobahn.wamp import auth  # noqa: E402
from twisted.internet import reactor  # noqa: E402

URL, REALM, AUTHID, PASSWORD = sys.argv[1:5]
result = {"ok": False, "error": "no answer"}


class Client(ApplicationSession):
    def onConnect(self):
        self._scram = auth.create_authenticator("scram", authid=AUTHID, password=PASSWORD)
        self.join(REALM, authmethods=["scram"], authid=AUTHID, authextra=self._scram.authextra)

    def onChallenge(self, challenge):
        return self._scram.on_challenge(self, challenge).decode("ascii")

    def onJoin(self, details):
        failed = self._scram.on_welcome(self, details.authextra)
        result.clear()
        result.update(ok=True, authid=details.authid, authrole=details.authrole,
                      authmethod=details.authmethod, server_signature_ok=failed is None)
        self.leave()

    def onLeave(self, details):
        if not result.get("ok"):
            result.update(error=details.reason, message=details.message)
        self.disconnect()

    def onDisconnect(self):
        if reactor.running:
            reactor.stop()


def main():
    reactor.callLater(20, reactor.stop)
    ApplicationRunner(URL, REALM).run(Client, start_reactor=True)
    print("RESULT " + json.dumps(result), flush=True)


main()
