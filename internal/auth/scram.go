package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"maps"
	"slices"
	"strconv"

	"github.com/junction-wamp/junction/wamp"
)

// MethodScram is the authmethod of WAMP-SCRAM.
const MethodScram = "scram"

// The key derivation functions a SCRAM principal may name. The router
// never derives a key itself (it holds the stored and server keys): the
// client derives its salted password with the function, salt, iterations
// and memory the CHALLENGE names.
const (
	KDFArgon2id13 = "argon2id-13"
	KDFPBKDF2     = "pbkdf2"
)

// ScramPrincipal is a principal of the scram authenticator: what
// Crossbar's principals hold (StoredKey = SHA-256(HMAC(salted password,
// "Client Key")), ServerKey = HMAC(salted password, "Server Key")).
type ScramPrincipal struct {
	KDF                  string // KDFArgon2id13 or KDFPBKDF2
	Iterations, Memory   int
	Salt                 []byte
	StoredKey, ServerKey []byte // 32 bytes each
	Role                 string // the authrole given on success
}

// scram checks WAMP-SCRAM proofs against static principals. Immutable
// after construction, so safe for concurrent use.
type scram struct {
	principals map[string]ScramPrincipal
	// shapes are the principals sorted by authid: a decoy for an unknown
	// authid shows the kdf, iterations, memory, salt length and role of
	// one of them, chosen by authid (see decoy.go).
	shapes []ScramPrincipal
}

var _ Authenticator = (*scram)(nil)

// Scram returns the "scram" authenticator over principals keyed by
// authid, as Crossbar's: the HELLO names the authid and sends
// authextra.nonce (base64); the CHALLENGE extra is {nonce (the client's
// followed by 16 random bytes, base64), kdf, salt (base64), iterations,
// memory}; the AUTHENTICATE signature is the base64 ClientProof over the
// auth message "n=AUTHID,r=CNONCE,r=SNONCE,s=SALT,i=ITER,c=,r=SNONCE" (no
// channel binding, as in Crossbar); WELCOME's authextra carries
// scram_server_signature for the client to check the router. principals
// is copied.
func Scram(principals map[string]ScramPrincipal) Authenticator {
	s := &scram{principals: maps.Clone(principals)}
	for _, id := range slices.Sorted(maps.Keys(principals)) {
		s.shapes = append(s.shapes, principals[id])
	}
	if len(s.shapes) == 0 {
		s.shapes = []ScramPrincipal{{KDF: KDFArgon2id13, Iterations: 4096, Memory: 512, Salt: make([]byte, 16)}}
	}
	return s
}

func (*scram) Method() string { return MethodScram }

// Start challenges the HELLO's authid; an authid that names no principal
// gets a decoy challenge that no proof satisfies.
func (s *scram) Start(req *Request) (*Identity, Challenge, error) {
	nonce, err := scramNonce(req)
	if err != nil {
		return nil, nil, err
	}
	p, ok := s.principals[req.AuthID]
	decoy := s.decoy(req.AuthID)
	if !ok {
		p = decoy
	}
	id := Identity{AuthID: req.AuthID, AuthRole: p.Role, AuthMethod: MethodScram, AuthProvider: ProviderStatic}
	return nil, newScramChallenge(id, p, nonce, !ok), nil
}

// decoy is a principal shaped like one of the real ones, chosen by
// authid, with a salt and keys stable for authid: no proof matches its
// stored key but by breaking SHA-256.
func (s *scram) decoy(authid string) ScramPrincipal {
	r := decoyRand(MethodScram, authid)
	p := s.shapes[r.IntN(len(s.shapes))]
	sum := decoySum(MethodScram+" salt", authid)
	salt := make([]byte, len(p.Salt))
	for i := range salt {
		salt[i] = sum[i%len(sum)] ^ byte(i/len(sum))
	}
	keys := decoySum(MethodScram+" keys", authid)
	return ScramPrincipal{KDF: p.KDF, Iterations: p.Iterations, Memory: p.Memory, Salt: salt,
		StoredKey: keys[:], ServerKey: keys[:], Role: p.Role}
}

// scramNonce checks the HELLO for an authid and reads its
// authextra.nonce, refusing as Crossbar does.
func scramNonce(req *Request) ([]byte, error) {
	extra, _ := req.Details[wamp.KeyAuthExtra].(wamp.Dict)
	v, ok := extra["nonce"].(string)
	if !ok {
		return nil, denied(MethodScram, "client must send a nonce")
	}
	nonce, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return nil, denied(MethodScram, "client nonce must be base64")
	}
	if req.AuthID == "" {
		return nil, denied(MethodScram, "cannot identify client: no authid requested")
	}
	return nonce, nil
}

// scramChallenge waits for the client's proof.
type scramChallenge struct {
	once
	id          Identity
	p           ScramPrincipal
	clientNonce []byte
	serverNonce []byte
	decoy       bool // no principal: never accepted
}

var _ Challenge = (*scramChallenge)(nil)

func newScramChallenge(id Identity, p ScramPrincipal, clientNonce []byte, decoy bool) *scramChallenge {
	server := append(slices.Clip(clientNonce), randomBytes(16)...)
	return &scramChallenge{id: id, p: p, clientNonce: clientNonce, serverNonce: server, decoy: decoy}
}

func (c *scramChallenge) Message() *wamp.Challenge {
	return &wamp.Challenge{AuthMethod: MethodScram, Extra: wamp.Dict{
		"nonce":      b64(c.serverNonce),
		"kdf":        c.p.KDF,
		"salt":       b64(c.p.Salt),
		"iterations": int64(c.p.Iterations),
		"memory":     int64(c.p.Memory),
	}}
}

// authMessage is SCRAM's AuthMessage as autobahn and Crossbar write it.
// The authid is used as it is: Crossbar applies SASLprep, which leaves
// ASCII names unchanged.
func (c *scramChallenge) authMessage() []byte {
	server := b64(c.serverNonce)
	return []byte("n=" + c.id.AuthID + ",r=" + b64(c.clientNonce) + ",r=" + server + ",s=" + b64(c.p.Salt) +
		",i=" + strconv.Itoa(c.p.Iterations) + ",c=,r=" + server)
}

// Verify checks the ClientProof in a: HMAC(StoredKey, AuthMessage) xor
// the proof is the client key, whose SHA-256 must be the stored key.
func (c *scramChallenge) Verify(a *wamp.Authenticate) (*Identity, error) {
	if !c.take() {
		return nil, denied(MethodScram, "challenge already answered")
	}
	proof, err := base64.StdEncoding.DecodeString(a.Signature)
	if err != nil || len(proof) != sha256.Size {
		return nil, denied(MethodScram, "SCRAM authentication failed")
	}
	msg := c.authMessage()
	clientKey := hmacSHA256(c.p.StoredKey, msg)
	subtle.XORBytes(clientKey, clientKey, proof)
	stored := sha256.Sum256(clientKey)
	if subtle.ConstantTimeCompare(stored[:], c.p.StoredKey) != 1 || c.decoy {
		return nil, denied(MethodScram, "SCRAM authentication failed")
	}
	id := c.id
	id.AuthExtra = maps.Clone(id.AuthExtra) // a dynamic authenticator's "extra", and the signature
	if id.AuthExtra == nil {
		id.AuthExtra = wamp.Dict{}
	}
	id.AuthExtra["scram_server_signature"] = b64(hmacSHA256(c.p.ServerKey, msg))
	return &id, nil
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
