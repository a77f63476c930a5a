"""The backend: tells a caller who the router says it is, and
authenticates the dynamic path's clients by their certificate."""

from autobahn.twisted.wamp import ApplicationSession
from autobahn.wamp.exception import ApplicationError
from autobahn.wamp.types import RegisterOptions
from twisted.internet.defer import inlineCallbacks

# the issuer of the devices' certificates (the test's client CA)
DEVICE_ISSUER = "Example Devices CA"


class Backend(ApplicationSession):
    @inlineCallbacks
    def onJoin(self, details):
        def whoami(details=None):
            return {"authid": details.caller_authid, "authrole": details.caller_authrole}

        def authenticate(realm, authid, details):
            cert = details["transport"].get("client_cert")
            if cert is None:
                raise ApplicationError("com.example.no_certificate", "a device logs in with its certificate")
            if cert["issuer"].get("cn") != DEVICE_ISSUER or cert["expired"]:
                raise ApplicationError("com.example.not_a_device", "issuer {}".format(cert["issuer"]))
            cn = cert["subject"]["cn"]
            if not cn.startswith("sensor-"):
                raise ApplicationError("com.example.not_a_device", "subject {}".format(cn))
            print("tls authentication of {} ({})".format(cn, cert["sha1"]))
            return {"authid": cn, "role": "device", "extra": {"serial": cert["serial"]}}

        yield self.register(whoami, "com.example.whoami", options=RegisterOptions(details_arg="details"))
        yield self.register(authenticate, "auth.authenticate")
