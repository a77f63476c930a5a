package interop_test

import (
	"crypto/ed25519"
	"encoding/hex"
)

const realm = "realm1"

// authCase is a way to authenticate, with the identity it must give.
type authCase struct {
	name     string
	method   string
	authid   string // "" lets the router choose
	secret   string // the ticket, the wampcra secret, or the cryptosign seed in hex
	wantRole string
}

// daveSeed is the Ed25519 seed (32 bytes, in hex) of the cryptosign
// principal dave; the config authorizes its public key (see publicKeyHex).
const daveSeed = "4a756e6374696f6e20696e7465726f702074657374206b6579206f6620646176"

// The principals the node's config knows; see nodeConfig.
var (
	anonymous     = authCase{name: "anonymous", method: "anonymous", wantRole: "anonymous"}
	ticket        = authCase{name: "ticket", method: "ticket", authid: "alice", secret: "secret1", wantRole: "user"}
	wampcra       = authCase{name: "wampcra", method: "wampcra", authid: "bob", secret: "s3cr3t", wantRole: "user"}
	wampcraSalted = authCase{name: "wampcra-salted", method: "wampcra", authid: "carol", secret: "pw", wantRole: "user"}
	cryptosign    = authCase{name: "cryptosign", method: "cryptosign", authid: "dave", secret: daveSeed, wantRole: "device"}
	authCases     = []authCase{anonymous, ticket, wampcra, wampcraSalted, cryptosign}
	serializers   = []string{"json", "msgpack", "cbor"}
)

// carol's PBKDF2 parameters (the clients read them from the
// wampcra CHALLENGE).
const (
	carolSalt       = "salt123"
	carolIterations = 100
	carolKeyLen     = 32
)

// publicKeyHex is the Ed25519 public key of a hex seed, as cryptosign's
// "authorized_keys" want it. It panics on a malformed seed: the seeds are
// constants of this package.
func publicKeyHex(seedHex string) string {
	seed, err := hex.DecodeString(seedHex)
	if err != nil || len(seed) != ed25519.SeedSize {
		panic("interop: bad Ed25519 seed " + seedHex)
	}
	return hex.EncodeToString(ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey))
}
