package auth

import (
	"encoding/hex"
	"math"
	"strconv"
)

// DynamicScram returns the "scram" authenticator that asks o's
// authenticator at HELLO (which must name an authid and send a nonce, as
// for static principals), with details {transport, session, authmethod,
// authextra}. Besides the identity, the answer must give the principal's
// "kdf", "iterations", "memory", "salt", "stored-key" and "server-key"
// (the last three in hex), as a static principal's; the router then
// challenges the client as for one.
func DynamicScram(o DynamicOptions) Authenticator {
	return &dynamicScram{dynamic{method: MethodScram, o: o}}
}

type dynamicScram struct{ dynamic }

var _ Authenticator = (*dynamicScram)(nil)

func (s *dynamicScram) Start(req *Request) (*Identity, Challenge, error) {
	nonce, err := scramNonce(req)
	if err != nil {
		return nil, nil, err
	}
	p, err := s.ask(req, req.AuthID, pendingDetails(req, MethodScram, false))
	if err != nil {
		return nil, nil, err
	}
	sp, err := p.scramPrincipal()
	if err != nil {
		return nil, nil, err
	}
	return nil, newScramChallenge(p.id, sp, nonce, false), nil
}

// scramPrincipal is the SCRAM principal the answer describes.
func (p *principal) scramPrincipal() (ScramPrincipal, error) {
	sp := ScramPrincipal{Role: p.id.AuthRole}
	var err error
	if sp.KDF, err = p.text("kdf"); err != nil {
		return sp, err
	}
	if sp.KDF != KDFArgon2id13 && sp.KDF != KDFPBKDF2 {
		return sp, invalidKey("kdf", p.answer["kdf"], `"argon2id-13" or "pbkdf2"`)
	}
	if sp.Iterations, err = p.required("iterations"); err != nil {
		return sp, err
	}
	if sp.Memory, err = p.required("memory"); err != nil {
		return sp, err
	}
	if sp.Salt, err = p.hexBytes("salt", 0); err != nil {
		return sp, err
	}
	if sp.StoredKey, err = p.hexBytes("stored-key", 32); err != nil {
		return sp, err
	}
	sp.ServerKey, err = p.hexBytes("server-key", 32)
	return sp, err
}

// required is the positive integer at k, which must be there.
func (p *principal) required(k string) (int, error) {
	n, err := p.integer(k, math.MaxInt32)
	if err == nil && n == 0 {
		err = invalidKey(k, nil, "an integer from 1")
	}
	return n, err
}

// hexBytes decodes the hex string at k, which must be there (of size
// bytes, unless size is 0).
func (p *principal) hexBytes(k string, size int) ([]byte, error) {
	s, err := p.text(k)
	if err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(s)
	if err != nil || s == "" || size > 0 && len(b) != size {
		return nil, invalidKey(k, p.answer[k], "hex digits"+sizeWords(size))
	}
	return b, nil
}

func sizeWords(size int) string {
	if size == 0 {
		return ""
	}
	return ", " + strconv.Itoa(size) + " bytes"
}
