package config

import "encoding/hex"

// ScramAuth is "auth.scram": WAMP-SCRAM, as Crossbar and autobahn
// implement it (HMAC-SHA256; the client derives its salted password with
// the principal's key derivation function).
type ScramAuth struct {
	// Principals is "principals", by authid ("type": "static").
	Principals map[string]ScramPrincipal
	// Dynamic is the authenticator to ask, with "type": "dynamic" (then
	// there are no Principals); nil with "type": "static".
	Dynamic *DynamicAuth
	// Function is the Python authenticator to ask, with "type":
	// "function" (then there are no Principals).
	Function *FunctionAuth
}

// ScramPrincipal is a SCRAM principal, as autobahn's
// derive_scram_credential writes it. All keys but role are required.
type ScramPrincipal struct {
	// KDF is "kdf": "argon2id-13" or "pbkdf2".
	KDF string
	// Iterations is "iterations" (>= 1): the KDF's iterations (Argon2's
	// time cost).
	Iterations int
	// Memory is "memory" (KiB, >= 1): Argon2's memory cost; required for
	// pbkdf2 too, as by Crossbar.
	Memory int
	// Salt is "salt", in hex.
	Salt string
	// StoredKey is "stored-key" and ServerKey "server-key", 32 bytes each
	// in hex.
	StoredKey, ServerKey string
	// Role is "role": the authrole given (Crossbar does not require it;
	// without it every login is refused, wamp.error.no_such_role).
	Role string
}

// scramKDFs are the key derivation functions a principal may name.
var scramKDFs = map[string]bool{"argon2id-13": true, "pbkdf2": true}

func (d *decoder) scramAuth(o *object, a *Auth) {
	a.Scram = &ScramAuth{Principals: map[string]ScramPrincipal{}}
	if !o.has("principals") {
		o.required("principals")
	}
	o.each("principals", func(p, id string, v any) { a.Scram.Principals[id] = d.scramPrincipal(p, v) })
}

func (d *decoder) scramPrincipal(path string, v any) ScramPrincipal {
	var p ScramPrincipal
	o, ok := d.object(path, v)
	if !ok {
		return p
	}
	p.KDF = o.reqValidStr("kdf", func(s string) bool { return scramKDFs[s] }, `unknown kdf %q (want "argon2id-13" or "pbkdf2")`)
	p.Iterations = int(o.integer("iterations", 0, 1, maxInt32))
	p.Memory = int(o.integer("memory", 0, 1, maxInt32))
	for _, k := range []string{"iterations", "memory"} {
		if !o.has(k) {
			o.required(k)
		}
	}
	p.Salt = o.reqValidStr("salt", hexString(0), "must be hex digits, not %q")
	p.StoredKey = o.reqValidStr("stored-key", hexString(32), "must be 64 hex digits (32 bytes), not %q")
	p.ServerKey = o.reqValidStr("server-key", hexString(32), "must be 64 hex digits (32 bytes), not %q")
	p.Role = o.str("role", "")
	o.done()
	return p
}

// hexString accepts hex digits of size bytes (any number but none when
// size is 0).
func hexString(size int) func(string) bool {
	return func(s string) bool {
		b, err := hex.DecodeString(s)
		return err == nil && len(b) > 0 && (size == 0 || len(b) == size)
	}
}

// checkCertAuth checks the roles of a's tls and scram methods (at ap), as
// checkAuth those of the others.
func (rr routerRoles) checkCertAuth(d *decoder, ap string, a Auth) {
	if a.TLS != nil {
		for _, id := range sortedKeysOf(a.TLS.Principals) {
			rr.warn(d, childPath(ap+".tls.principals", id)+".role", a.TLS.Principals[id].Role)
		}
		rr.checkDynamic(d, ap+".tls", a.TLS.Dynamic)
	}
	if a.Scram != nil {
		for _, id := range sortedKeysOf(a.Scram.Principals) {
			if a.Scram.Principals[id].Role == "" {
				d.warnf(childPath(ap+".scram.principals", id), "no \"role\": this principal's logins are refused (wamp.error.no_such_role)")
			}
			rr.warn(d, childPath(ap+".scram.principals", id)+".role", a.Scram.Principals[id].Role)
		}
		rr.checkDynamic(d, ap+".scram", a.Scram.Dynamic)
		rr.checkFunction(d, ap+".scram", a.Scram.Function)
	}
}
