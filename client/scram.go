package client

import (
	"bytes"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/crypto/argon2"

	"github.com/junction-wamp/junction/wamp"
)

// Bounds on the key derivation a SCRAM challenge may ask for: a router
// cannot make the client spend more than about a GiB or run forever.
const (
	maxScramIterations = 1 << 20
	maxScramMemory     = 1 << 20 // KiB
	scramNonceLen      = 16
)

// scram is the Authenticator Scram returns; begin gives each join its own
// nonce and state.
type scram struct{ password string }

// Scram authenticates with a password (WAMP-SCRAM, as Crossbar and
// autobahn do it: the kdf argon2id-13 or pbkdf2 the router's CHALLENGE
// names, no channel binding). Config.AuthID must name the principal. The
// router proves it knows the credential too: Join fails when WELCOME's
// scram_server_signature is missing or wrong.
func Scram(password string) Authenticator { return scram{password: password} }

func (scram) Method() string       { return "scram" }
func (scram) AuthExtra() wamp.Dict { return nil }

func (scram) Respond(*wamp.Challenge) (string, wamp.Dict, error) {
	return "", nil, errors.New("client: scram: challenge outside a join")
}

// begin returns the state of one join's SCRAM exchange.
func (s scram) begin(authid string) Authenticator {
	nonce := make([]byte, scramNonceLen)
	rand.Read(nonce)
	return &scramJoin{password: s.password, authid: authid, nonce: nonce}
}

// scramJoin is one join's SCRAM exchange: the nonce sent in HELLO, then
// what Respond computed, for checking WELCOME. Used by one join alone.
type scramJoin struct {
	password, authid string
	nonce            []byte
	salted           []byte // set by Respond
	authMessage      []byte // set by Respond
}

func (*scramJoin) Method() string { return "scram" }

func (s *scramJoin) AuthExtra() wamp.Dict {
	return wamp.Dict{"nonce": base64.StdEncoding.EncodeToString(s.nonce)}
}

// Respond computes the ClientProof for the CHALLENGE.
func (s *scramJoin) Respond(ch *wamp.Challenge) (string, wamp.Dict, error) {
	if s.authid == "" {
		return "", nil, errors.New("client: scram: Config.AuthID is empty")
	}
	c, err := readScramChallenge(ch.Extra)
	if err != nil {
		return "", nil, fmt.Errorf("client: scram challenge: %w", err)
	}
	if !bytes.HasPrefix(c.nonce, s.nonce) || len(c.nonce) == len(s.nonce) {
		return "", nil, errors.New("client: scram challenge: the router's nonce does not extend ours")
	}
	if s.salted, err = c.saltedPassword(s.password); err != nil {
		return "", nil, fmt.Errorf("client: scram: %w", err)
	}
	s.authMessage = []byte("n=" + s.authid + ",r=" + base64.StdEncoding.EncodeToString(s.nonce) +
		",r=" + c.nonceText + ",s=" + c.saltText + ",i=" + strconv.Itoa(c.iterations) + ",c=,r=" + c.nonceText)
	clientKey := hmacSHA256(s.salted, []byte("Client Key"))
	stored := sha256.Sum256(clientKey)
	proof := hmacSHA256(stored[:], s.authMessage)
	subtle.XORBytes(proof, proof, clientKey)
	return base64.StdEncoding.EncodeToString(proof), nil, nil
}

// checkWelcome checks the router's scram_server_signature.
func (s *scramJoin) checkWelcome(w *wamp.Welcome) error {
	if s.salted == nil {
		return errors.New("client: scram: welcomed without a challenge")
	}
	extra, _ := wamp.AsDict(w.Details[wamp.KeyAuthExtra])
	got, _ := extra["scram_server_signature"].(string)
	want := base64.StdEncoding.EncodeToString(hmacSHA256(hmacSHA256(s.salted, []byte("Server Key")), s.authMessage))
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errors.New("client: scram: the router's server signature is missing or wrong")
	}
	return nil
}

// scramChallenge is what a SCRAM CHALLENGE's extra holds.
type scramChallenge struct {
	nonce, salt         []byte
	nonceText, saltText string // base64, as sent
	kdf                 string
	iterations, memory  int
}

func readScramChallenge(extra wamp.Dict) (*scramChallenge, error) {
	c := &scramChallenge{}
	c.nonceText, _ = extra["nonce"].(string)
	c.saltText, _ = extra["salt"].(string)
	c.kdf, _ = extra["kdf"].(string)
	var err error
	if c.nonce, err = base64.StdEncoding.DecodeString(c.nonceText); err != nil || c.nonceText == "" {
		return nil, errors.New("nonce must be base64")
	}
	if c.salt, err = base64.StdEncoding.DecodeString(c.saltText); err != nil || c.saltText == "" {
		return nil, errors.New("salt must be base64")
	}
	if c.iterations, err = boundedExtra(extra, "iterations", maxScramIterations); err != nil {
		return nil, err
	}
	if c.kdf == "argon2id-13" {
		if c.memory, err = boundedExtra(extra, "memory", maxScramMemory); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// boundedExtra reads a required integer in [1, limit].
func boundedExtra(extra wamp.Dict, key string, limit int) (int, error) {
	n, ok := wamp.AsInt(extra[key])
	if !ok || n < 1 || n > int64(limit) {
		return 0, fmt.Errorf("%s %v: want an integer in [1, %d]", key, extra[key], limit)
	}
	return int(n), nil
}

// saltedPassword derives the salted password as autobahn does: for
// argon2id-13 the unpadded base64 text of the 32-byte Argon2id hash (the
// hash field of Argon2's encoded form), for pbkdf2 the 32-byte
// PBKDF2-HMAC-SHA256 key.
func (c *scramChallenge) saltedPassword(password string) ([]byte, error) {
	switch c.kdf {
	case "argon2id-13":
		raw := argon2.IDKey([]byte(password), c.salt, uint32(c.iterations), uint32(c.memory), 1, 32)
		return []byte(base64.RawStdEncoding.EncodeToString(raw)), nil
	case "pbkdf2":
		return pbkdf2.Key(sha256.New, password, c.salt, c.iterations, 32)
	}
	return nil, fmt.Errorf("unknown kdf %q (want argon2id-13 or pbkdf2)", c.kdf)
}

func hmacSHA256(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}
