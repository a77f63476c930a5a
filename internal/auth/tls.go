package auth

import (
	"crypto/sha1" //nolint:gosec // the fingerprint Crossbar's principals name
	"encoding/hex"
	"strings"
)

// MethodTLS is the authmethod of TLS client certificate authentication.
const MethodTLS = "tls"

// TLSPrincipal is a principal of the tls authenticator.
type TLSPrincipal struct {
	// CertificateSHA1 is the SHA-1 fingerprint of the principal's client
	// certificate, as CertificateSHA1 writes it ("E0:01:..."); other
	// spellings never match (the configuration normalises them).
	CertificateSHA1 string
	Role            string // the authrole given on success
}

// tlsAuth admits the clients whose certificate is a principal's.
// Immutable after construction, so safe for concurrent use.
type tlsAuth struct {
	bySHA1 map[string]Identity // fingerprint -> identity
}

var _ Authenticator = (*tlsAuth)(nil)

// TLS returns the "tls" authenticator over principals keyed by authid:
// a client whose TLS connection presented a certificate (verified by the
// listener against its CAs) with a principal's fingerprint is that
// principal, without a challenge, as in Crossbar. principals is copied.
func TLS(principals map[string]TLSPrincipal) Authenticator {
	t := &tlsAuth{bySHA1: make(map[string]Identity, len(principals))}
	for id, p := range principals {
		t.bySHA1[p.CertificateSHA1] = Identity{AuthID: id, AuthRole: p.Role, AuthMethod: MethodTLS, AuthProvider: ProviderStatic}
	}
	return t
}

func (*tlsAuth) Method() string { return MethodTLS }

// Start admits the principal of the client's certificate, or refuses as
// Crossbar does: no certificate, or one no principal has (the message
// names its fingerprint, which the client knows).
func (t *tlsAuth) Start(req *Request) (*Identity, Challenge, error) {
	if req.Peer.ClientCert == nil {
		return nil, nil, denied(MethodTLS, "client did not send a TLS client certificate")
	}
	fp := CertificateSHA1(req.Peer.ClientCert.Raw)
	id, ok := t.bySHA1[fp]
	if !ok {
		return nil, nil, denied(MethodTLS, "no principal with certificate SHA-1 %q exists", fp)
	}
	return &id, nil, nil
}

// CertificateSHA1 is the fingerprint of a DER certificate as Crossbar
// (OpenSSL's digest) writes it: upper case hex, bytes joined by colons.
func CertificateSHA1(der []byte) string {
	sum := sha1.Sum(der) //nolint:gosec // a fingerprint, as Crossbar's
	return fingerprint(sum[:])
}

// fingerprint writes a digest as OpenSSL does: "E0:01:...".
func fingerprint(sum []byte) string {
	var b strings.Builder
	for i, c := range sum {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

// DynamicTLS returns the "tls" authenticator that asks o's authenticator
// at HELLO, with details {transport, session, authmethod, authextra},
// where transport.client_cert describes the client's certificate as
// Crossbar does (null when it sent none: the authenticator decides). The
// answer is the identity alone, as for anonymous.
func DynamicTLS(o DynamicOptions) Authenticator {
	return &dynamicTLS{dynamic{method: MethodTLS, o: o}}
}

type dynamicTLS struct{ dynamic }

var _ Authenticator = (*dynamicTLS)(nil)

func (t *dynamicTLS) Start(req *Request) (*Identity, Challenge, error) {
	p, err := t.ask(req, req.AuthID, pendingDetails(req, MethodTLS, false))
	if err != nil {
		return nil, nil, err
	}
	return &p.id, nil, nil
}
