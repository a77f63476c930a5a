package auth

import (
	"crypto/md5" //nolint:gosec // a fingerprint Crossbar gives
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// certDetails describe a client certificate as Crossbar's
// extract_peer_certificate does, for a dynamic authenticator's
// details.transport.client_cert: fingerprints, validity, serial, version
// (0-based, as OpenSSL's), subject and issuer by lower-case attribute
// short name, and the extensions (name, critical as Crossbar spells it
// "criticial", and the value in hex: OpenSSL's text rendering is not
// reproduced). Crossbar's "hash" (OpenSSL's subject name hash) is not
// given. nil for no certificate.
func certDetails(c *x509.Certificate) any {
	if c == nil {
		return nil
	}
	md5Sum, sha256Sum := md5.Sum(c.Raw), sha256.Sum256(c.Raw) //nolint:gosec // fingerprints
	return wamp.Dict{
		"md5":                 fingerprint(md5Sum[:]),
		"sha1":                CertificateSHA1(c.Raw),
		"sha256":              fingerprint(sha256Sum[:]),
		"expired":             time.Now().After(c.NotAfter),
		"serial":              serial(c),
		"signature_algorithm": c.SignatureAlgorithm.String(),
		"version":             int64(c.Version - 1),
		"not_before":          c.NotBefore.UTC().Format(asn1Time),
		"not_after":           c.NotAfter.UTC().Format(asn1Time),
		"extensions":          extensions(c),
		"subject":             nameDetails(c.Subject.Names),
		"issuer":              nameDetails(c.Issuer.Names),
	}
}

// asn1Time is OpenSSL's GeneralizedTime, as Crossbar passes it on.
const asn1Time = "20060102150405Z"

// serial is the serial number as an integer, or its decimal text when it
// does not fit in 64 bits.
func serial(c *x509.Certificate) any {
	if c.SerialNumber.IsInt64() {
		return c.SerialNumber.Int64()
	}
	return c.SerialNumber.String()
}

func extensions(c *x509.Certificate) wamp.List {
	out := make(wamp.List, 0, len(c.Extensions))
	for _, e := range c.Extensions {
		name := e.Id.String()
		if n, ok := extensionNames[name]; ok {
			name = n
		}
		out = append(out, wamp.Dict{"name": name, "value": hex.EncodeToString(e.Value), "criticial": e.Critical})
	}
	return out
}

// extensionNames are OpenSSL's short names of the common extensions.
var extensionNames = map[string]string{
	"2.5.29.14": "subjectKeyIdentifier", "2.5.29.15": "keyUsage", "2.5.29.17": "subjectAltName",
	"2.5.29.19": "basicConstraints", "2.5.29.31": "crlDistributionPoints", "2.5.29.32": "certificatePolicies",
	"2.5.29.35": "authorityKeyIdentifier", "2.5.29.37": "extendedKeyUsage", "1.3.6.1.5.5.7.1.1": "authorityInfoAccess",
}

// attributeNames are OpenSSL's short names of name attributes, in lower
// case as Crossbar keys them.
var attributeNames = map[string]string{
	"2.5.4.3": "cn", "2.5.4.4": "sn", "2.5.4.5": "serialnumber", "2.5.4.6": "c", "2.5.4.7": "l", "2.5.4.8": "st",
	"2.5.4.9": "street", "2.5.4.10": "o", "2.5.4.11": "ou", "2.5.4.12": "title", "2.5.4.42": "gn",
	"1.2.840.113549.1.9.1": "emailaddress", "0.9.2342.19200300.100.1.25": "dc", "0.9.2342.19200300.100.1.1": "uid",
}

// nameDetails are a name's attributes by short name (the dotted OID for
// others); the last of a repeated attribute wins, as in Crossbar.
func nameDetails(names []pkix.AttributeTypeAndValue) wamp.Dict {
	d := make(wamp.Dict, len(names))
	for _, a := range names {
		k := a.Type.String()
		if n, ok := attributeNames[k]; ok {
			k = n
		}
		d[k] = toString(a.Value)
	}
	return d
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if b, err := asn1.Marshal(v); err == nil {
		return hex.EncodeToString(b)
	}
	return ""
}
