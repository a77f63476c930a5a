"""Devices log in by cryptosign: the dynamic authenticator on another
realm identifies them by public key and sends extra data in the WELCOME;
an unknown key is refused with the authenticator's error."""

import binascii

from autobahn.wamp import cryptosign
from twisted.internet.defer import inlineCallbacks

from corpusclient import call, equal, join, main, refused


def key(seed_hex):
    return cryptosign.CryptosignKey.from_bytes(binascii.a2b_hex(seed_hex))


@inlineCallbacks
def check(addr):
    url = "ws://%s" % addr
    s = yield join(url, "devices", authmethods=["cryptosign"], key=key("11" * 32))
    d = s.details
    equal((d.realm, d.authid, d.authrole, d.authmethod),
          ("devices", "client01@example.com", "device", "cryptosign"), "client01's session")
    equal(d.authextra.get("foo"), 23, "authextra.foo in the WELCOME")

    s2 = yield join(url, "devices", authmethods=["cryptosign"], key=key("22" * 32))
    equal((s2.details.authid, s2.details.authextra.get("bar")), ("client02@example.com", "baz"), "client02's session")

    yield call(s, "com.example.check_in", "ok")
    devices = yield call(s2, "com.example.check_in", "ok")
    equal(devices, ["client01@example.com", "client02@example.com"], "the devices checked in")
    yield s.leave()
    yield s2.leave()

    r = yield refused(url, "devices", authmethods=["cryptosign"], key=key("33" * 32))
    equal(r.reason, "com.example.no_such_user", "the ABORT reason for an unknown key")


main(check)
