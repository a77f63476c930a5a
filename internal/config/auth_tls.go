package config

import (
	"encoding/hex"
	"strings"
)

// TLSAuth is "auth.tls": a client is who its TLS client certificate says.
// The listener's endpoint must set "tls.ca_certificates", so that it asks
// for client certificates and verifies them against those CAs.
type TLSAuth struct {
	// Principals is "principals", by authid ("type": "static").
	Principals map[string]TLSPrincipal
	// Dynamic is the authenticator to ask, with "type": "dynamic" (then
	// there are no Principals); nil with "type": "static".
	Dynamic *DynamicAuth
}

// TLSPrincipal is a tls principal.
type TLSPrincipal struct {
	// CertificateSHA1 is "certificate-sha1" (required): the SHA-1
	// fingerprint of the principal's certificate, 20 bytes in hex, upper
	// case and joined by colons ("E0:01:..."), as Crossbar writes it.
	// Junction also accepts lower case and no colons (Crossbar would
	// never match those), and normalises them.
	CertificateSHA1 string
	// Role is "role" (required): the authrole given.
	Role string
}

func (d *decoder) tlsAuth(o *object, a *Auth) {
	a.TLS = &TLSAuth{Principals: map[string]TLSPrincipal{}}
	o.each("principals", func(p, id string, v any) { a.TLS.Principals[id] = d.tlsPrincipal(p, v) })
}

func (d *decoder) tlsPrincipal(path string, v any) TLSPrincipal {
	var p TLSPrincipal
	o, ok := d.object(path, v)
	if !ok {
		return p
	}
	p.CertificateSHA1 = o.reqStr("certificate-sha1")
	if fp, ok := normalSHA1(p.CertificateSHA1); ok {
		p.CertificateSHA1 = fp
	} else if p.CertificateSHA1 != "" {
		d.errorf(o.at("certificate-sha1"), "invalid SHA-1 fingerprint %q (want 20 bytes in hex, as \"E0:01:...\")", p.CertificateSHA1)
	}
	p.Role = o.reqStr("role")
	o.done()
	return p
}

// normalSHA1 writes a SHA-1 fingerprint as OpenSSL does: upper case hex
// bytes joined by colons; false when s is not 20 bytes in hex, with or
// without colons between them.
func normalSHA1(s string) (string, bool) {
	b, err := hex.DecodeString(strings.ReplaceAll(s, ":", ""))
	if err != nil || len(b) != 20 || strings.Contains(s, ":") && len(s) != 59 {
		return "", false
	}
	h := strings.ToUpper(hex.EncodeToString(b))
	parts := make([]string, 20)
	for i := range parts {
		parts[i] = h[2*i : 2*i+2]
	}
	return strings.Join(parts, ":"), true
}
