package auth

import (
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func scramPrincipals() map[string]ScramPrincipal {
	return map[string]ScramPrincipal{"alice": {KDF: KDFArgon2id13, Iterations: 4096, Memory: 512, Salt: make([]byte, 16),
		StoredKey: make([]byte, 32), ServerKey: make([]byte, 32), Role: "user"}}
}

func TestScramRefusals(t *testing.T) {
	s := Scram(scramPrincipals())
	tests := []struct {
		name, authid string
		extra        wamp.Dict
		msg          string
	}{
		{"no nonce", "alice", wamp.Dict{}, "client must send a nonce"},
		{"nonce not base64", "alice", wamp.Dict{"nonce": "%%%"}, "client nonce must be base64"},
		{"no authid", "", wamp.Dict{"nonce": "AAAA"}, "no authid requested"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.Start(helloRequest(tt.authid, wamp.Dict{"authextra": tt.extra}))
			re, ok := err.(*wamp.RequestError)
			if !ok || re.URI != wamp.ErrAuthenticationDenied || !strings.Contains(re.Error(), tt.msg) {
				t.Errorf("err = %v, want %s ...%s...", err, wamp.ErrAuthenticationDenied, tt.msg)
			}
		})
	}
}

// TestScramDecoy: an unknown authid gets a challenge shaped like a real
// principal's, the same salt on every attempt, and the refusal a wrong
// proof gets.
func TestScramDecoy(t *testing.T) {
	s := Scram(scramPrincipals())
	challenge := func(authid string) (wamp.Dict, Challenge) {
		_, ch, err := s.Start(helloRequest(authid, wamp.Dict{"authextra": wamp.Dict{"nonce": "AAAAAAAAAAAAAAAAAAAAAA=="}}))
		if err != nil {
			t.Fatal(err)
		}
		e := ch.Message().Extra
		if !strings.HasPrefix(e["nonce"].(string), "AAAAAAAAAAAAAAAAAAAAA") {
			t.Errorf("nonce %v does not extend the client's", e["nonce"])
		}
		delete(e, "nonce")
		return e, ch
	}
	real, realCh := challenge("alice")
	decoy, decoyCh := challenge("mallory")
	again, _ := challenge("mallory")
	if !reflect.DeepEqual(decoy, again) || len(decoy["salt"].(string)) != len(real["salt"].(string)) ||
		decoy["kdf"] != real["kdf"] || decoy["iterations"] != real["iterations"] || decoy["memory"] != real["memory"] {
		t.Errorf("real %v, decoy %v, again %v", real, decoy, again)
	}
	proof := &wamp.Authenticate{Signature: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}
	_, err1 := realCh.Verify(proof)
	_, err2 := decoyCh.Verify(proof)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("wrong proof: %v; decoy: %v", err1, err2)
	}
}
