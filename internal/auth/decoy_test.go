package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// exchange is what a client sees of one authentication attempt: the
// CHALLENGE (nil if none) and the refusal (nil if accepted).
type exchange struct {
	challenge *wamp.Challenge
	refusal   *wamp.RequestError
}

// attempt runs Start and, on a challenge, Verify with signature.
func attempt(t *testing.T, a Authenticator, req *Request, signature string) exchange {
	t.Helper()
	_, ch, err := a.Start(req)
	var x exchange
	if ch != nil {
		x.challenge = ch.Message()
		_, err = ch.Verify(&wamp.Authenticate{Signature: signature, Extra: wamp.Dict{}})
	}
	if err != nil && !errors.As(err, &x.refusal) {
		t.Fatalf("refusal %v is not a *wamp.RequestError", err)
	}
	return x
}

// shape is what a challenge shows apart from its per-attempt randomness
// and the authid it was asked for: Extra's keys with their Go types, the
// salt's length, iterations and keylen, and the WAMP-CRA challenge's keys
// and authrole.
func shape(t *testing.T, m *wamp.Challenge) string {
	t.Helper()
	if m == nil {
		return "no challenge"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "method=%s", m.AuthMethod)
	for _, k := range slices.Sorted(maps.Keys(m.Extra)) {
		v := m.Extra[k]
		switch k {
		case "salt":
			fmt.Fprintf(&b, " salt=len%d", len(v.(string)))
		case "iterations", "keylen":
			fmt.Fprintf(&b, " %s=%v", k, v)
		case "challenge":
			fmt.Fprintf(&b, " challenge=%s", challengeShape(t, m.AuthMethod, v.(string)))
		default:
			fmt.Fprintf(&b, " %s=%T", k, v)
		}
	}
	return b.String()
}

func challengeShape(t *testing.T, method, c string) string {
	if method != MethodWampCRA {
		return fmt.Sprintf("len%d", len(c))
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(c), &j); err != nil {
		t.Fatalf("wampcra challenge is not JSON: %v", err)
	}
	return fmt.Sprintf("keys%v,authrole=%v", slices.Sorted(maps.Keys(j)), j["authrole"])
}

// TestUnknownAuthIDLooksLikeWrongSecret is the enumeration part of the
// F9 (docs/SECURITY.md): for each method, an authid that does not exist gets the
// same exchange as a real one with a wrong secret (a challenge of the
// same shape, then the same refusal), and no refusal names the authid.
func TestUnknownAuthIDLooksLikeWrongSecret(t *testing.T) {
	f := newCSFixture(t)
	tests := []struct {
		name   string
		a      Authenticator
		known  *Request
		wrong  string // the known principal's wrong answer
		answer string // the unknown authid's answer
	}{
		{"ticket", Ticket(map[string]TicketPrincipal{"alice": {Ticket: "s3cret", Role: "user"}}),
			&Request{AuthID: "alice"}, "guess", "s3cret"},
		{"wampcra", WampCRA(map[string]CRAUser{"alice": {Secret: "s3cret", Role: "user"}}),
			&Request{AuthID: "alice"}, "Z3Vlc3M=", "Z3Vlc3M="},
		{"wampcra salted", WampCRA(map[string]CRAUser{"alice": {Secret: "s3cret", Role: "user", Salt: "pepper", Iterations: 100, KeyLen: 16}}),
			&Request{AuthID: "alice"}, "Z3Vlc3M=", "Z3Vlc3M="},
		{"cryptosign", f.a, hello("alice", nil), strings.Repeat("ab", 96), strings.Repeat("ab", 96)},
		{"cryptosign with pubkey", f.a, hello("alice", wamp.Dict{"pubkey": f.alicePub}), strings.Repeat("ab", 96), strings.Repeat("ab", 96)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			unknown := *tt.known
			unknown.AuthID = "mallory"
			real := attempt(t, tt.a, tt.known, tt.wrong)
			decoy := attempt(t, tt.a, &unknown, tt.answer)
			if real.challenge == nil || real.refusal == nil {
				t.Fatalf("wrong secret: %+v, want a challenge, then a refusal", real)
			}
			if got, want := shape(t, decoy.challenge), shape(t, real.challenge); got != want {
				t.Errorf("unknown authid's challenge %s,\nwrong secret's %s", got, want)
			}
			if decoy.refusal == nil || decoy.refusal.Error() != real.refusal.Error() {
				t.Errorf("unknown authid refused with %v, wrong secret with %v", decoy.refusal, real.refusal)
			}
			for _, id := range []string{"alice", "mallory"} {
				if strings.Contains(real.refusal.Error()+decoy.refusal.Error(), id) {
					t.Errorf("refusals %q, %q name the authid %q", real.refusal, decoy.refusal, id)
				}
			}
		})
	}
}

// TestWampCRADecoyIsStable: an unknown authid is challenged with the same
// salt, iterations, keylen and authrole on every attempt, as a real user
// is; another unknown authid gets another salt. The decoy copies one of
// the real users' role and parameters.
func TestWampCRADecoyIsStable(t *testing.T) {
	a := WampCRA(craUsers())
	decoy := func(authid string) (wamp.Dict, map[string]any) {
		m := start(t, a, &Request{AuthID: authid}).Message()
		var c map[string]any
		if err := json.Unmarshal([]byte(m.Extra["challenge"].(string)), &c); err != nil {
			t.Fatal(err)
		}
		delete(m.Extra, "challenge")
		return m.Extra, c
	}
	first, c1 := decoy("mallory")
	again, c2 := decoy("mallory")
	if !reflect.DeepEqual(first, again) || c1["authrole"] != c2["authrole"] {
		t.Fatalf("decoy changed between attempts: %v %v, then %v %v", first, c1["authrole"], again, c2["authrole"])
	}
	if c1["nonce"] == c2["nonce"] {
		t.Errorf("decoy nonce repeated: %v", c1["nonce"])
	}
	if c1["authid"] != "mallory" {
		t.Errorf("decoy challenge authid %v, want the one asked for", c1["authid"])
	}
	salted := 0
	for i := range 20 {
		extra, c := decoy(fmt.Sprintf("nobody%d", i))
		if !slices.ContainsFunc(slices.Collect(maps.Values(craUsers())), func(u CRAUser) bool { return u.Role == c["authrole"] }) {
			t.Errorf("decoy authrole %v is no user's", c["authrole"])
		}
		if s, ok := extra["salt"].(string); ok {
			salted++
			if s == first["salt"] {
				t.Errorf("nobody%d got mallory's salt %q", i, s)
			}
		}
	}
	if salted == 0 || salted == 20 {
		t.Errorf("%d of 20 decoys salted, want some (the users are salted and not)", salted)
	}
}

func TestSaltAlphabet(t *testing.T) {
	const digits, lower, upper = "0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	tests := map[string]string{
		"salt123":     digits + lower,
		"pepper":      lower,
		"PEPPER":      upper,
		"Pepper":      lower + upper,
		"123456":      digits,
		"deadbeef00":  digits + "abcdef",
		"DEADBEEF":    digits + "ABCDEF",
		"c2FsdA+/x==": digits + lower + upper,
		"---":         "",
		"":            "",
		"s\u00e4lt-9": digits + lower,
	}
	for salt, want := range tests {
		if got := saltAlphabet(salt); got != want {
			t.Errorf("saltAlphabet(%q) = %q, want %q", salt, got, want)
		}
	}
}

// TestWampCRADecoySaltShape: a decoy salt is as long as its template
// user's salt, its letters and digits are of the classes that salt has
// (never '+' or '/' for an alphanumeric salt, as base64 decoys had in
// about one of five 7-character salts), and its other characters are
// where the template has them.
func TestWampCRADecoySaltShape(t *testing.T) {
	tests := []struct {
		salt string
		want *regexp.Regexp
	}{
		{"salt123", regexp.MustCompile(`^[a-z0-9]{7}$`)},
		{"deadbeef0042", regexp.MustCompile(`^[0-9a-f]{12}$`)},
		{"Zm9vYmFy+/a=", regexp.MustCompile(`^[a-zA-Z0-9]{8}\+/[a-zA-Z0-9]=$`)},
		{"user-2024-x", regexp.MustCompile(`^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]$`)},
	}
	for _, tt := range tests {
		a := WampCRA(map[string]CRAUser{"alice": {Secret: "s3cret", Role: "user", Salt: tt.salt}})
		seen := map[string]bool{}
		for i := range 200 {
			s, _ := start(t, a, &Request{AuthID: fmt.Sprint("nobody", i)}).Message().Extra["salt"].(string)
			if !tt.want.MatchString(s) {
				t.Fatalf("template salt %q: decoy salt %q, want %v", tt.salt, s, tt.want)
			}
			seen[s] = true
		}
		if len(seen) < 190 {
			t.Errorf("template salt %q: %d distinct decoy salts of 200", tt.salt, len(seen))
		}
	}
}

// TestCryptosignDecoyKeys: a decoy checks a signature against as many
// keys as a principal chosen by the authid has (so that Verify takes as
// long as for a real principal), the same number on every attempt, one
// when the client named its key; the keys are no principal's.
func TestCryptosignDecoyKeys(t *testing.T) {
	f := newCSFixture(t)
	c := f.a.(*cryptosign)
	pub, _ := ParsePublicKey(f.strPub)
	counts := map[int]int{}
	for i := range 100 {
		authid := fmt.Sprint("nobody", i)
		ch := c.challenge(authid, nil)
		if !ch.decoy || len(c.challenge(authid, nil).keys) != len(ch.keys) {
			t.Fatalf("%s: decoy %v with %d keys, then %d", authid, ch.decoy, len(ch.keys), len(c.challenge(authid, nil).keys))
		}
		counts[len(ch.keys)]++
		for _, k := range ch.keys {
			if len(c.owners[[32]byte(k)]) != 0 {
				t.Fatalf("%s: decoy key %x is a principal's", authid, k)
			}
		}
		if ch := c.challenge(authid, pub); !ch.decoy || len(ch.keys) != 1 {
			t.Fatalf("%s with a public key: decoy %v with %d keys, want 1", authid, ch.decoy, len(ch.keys))
		}
	}
	if len(counts) != 2 || counts[1] == 0 || counts[2] == 0 {
		t.Errorf("decoys' numbers of keys %v, want 1 (bob, carol) and 2 (alice)", counts)
	}
}
