"""Logs in with TLS client certificates (the test made them: certs/ holds
the node's CA and the clients' certificates and keys). On /ws, by the
static principal's SHA-1 fingerprint: the principal joins with its role, a
certificate of the same CA that no principal has is refused, and a
client without one logs in by ticket on the same transport; on /ws-dynamic, by the Python
authenticator, which reads the certificate's subject and issuer. A
certificate of a CA the node does not trust fails the TLS handshake."""

from twisted.internet.defer import inlineCallbacks
from twisted.internet.ssl import Certificate, PrivateCertificate, optionsForClientTLS

from corpusclient import call, denied, equal, expect, join, main, refused


def tls(client=None):
    """TLS options that trust the node's CA (its certificate is for
    localhost) and present the named client's certificate, or none."""
    with open("certs/server-ca.crt") as f:
        ca = Certificate.loadPEM(f.read())
    cert = None
    if client is not None:
        with open("certs/%s.crt" % client) as c, open("certs/%s.key" % client) as k:
            cert = PrivateCertificate.loadPEM(c.read() + k.read())
    return optionsForClientTLS(u"localhost", trustRoot=ca, clientCertificate=cert)


@inlineCallbacks
def check(addr):
    url = "wss://%s/ws" % addr
    s = yield join(url, "realm1", authmethods=["tls"], ssl=tls("sensor-1"))
    d = s.details
    equal((d.authid, d.authrole, d.authmethod), ("sensor-1", "device", "tls"), "sensor-1's session")
    got = yield call(s, "com.example.whoami")
    equal(got, {"authid": "sensor-1", "authrole": "device"}, "the backend sees the caller")
    yield denied(s, "registering as a device", lambda: s.register(lambda: None, "com.example.mine"))
    yield s.leave()

    e = yield refused(url, "realm1", authmethods=["tls"], ssl=tls("sensor-2"))
    equal(e.reason, "wamp.error.authentication_denied", "a certificate no principal has")
    e = yield refused(url, "realm1", authmethods=["tls"], ssl=tls())
    equal(e.reason, "wamp.error.authentication_denied", "no certificate")
    # as Crossbar, the first configured method offered decides: tls first
    # refuses a client without a certificate, so it logs in by ticket alone
    e = yield refused(url, "realm1", authmethods=["tls", "ticket"], authid="operator", secret="op-secret", ssl=tls())
    equal(e.reason, "wamp.error.authentication_denied", "no certificate, tls offered before ticket")
    s = yield join(url, "realm1", authmethods=["ticket"], authid="operator", secret="op-secret", ssl=tls())
    d = s.details
    equal((d.authid, d.authrole, d.authmethod), ("operator", "operator", "ticket"), "no certificate, a ticket")
    yield s.leave()

    e = yield refused(url, "realm1", authmethods=["tls"], ssl=tls("intruder"))
    equal(e.reason, "(connection closed)", "a certificate of an untrusted CA (the TLS handshake fails)")

    url = "wss://%s/ws-dynamic" % addr
    s = yield join(url, "realm1", authmethods=["tls"], ssl=tls("sensor-2"))
    d = s.details
    equal((d.authid, d.authrole, d.authmethod), ("sensor-2", "device", "tls"), "sensor-2's session, dynamic")
    expect(d.authextra.get("serial"), "the authenticator's extra (the serial) in WELCOME: %r", d.authextra)
    yield s.leave()
    e = yield refused(url, "realm1", authmethods=["tls"], ssl=tls("printer-1"))
    equal(e.reason, "com.example.not_a_device", "a certificate the authenticator refuses")
    e = yield refused(url, "realm1", authmethods=["tls"], ssl=tls())
    equal(e.reason, "com.example.no_certificate", "no certificate, dynamic")


main(check)
