package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"time"

	"github.com/junction-wamp/junction/internal/wamp"
)

// CRAUser is a principal of the wampcra authenticator.
type CRAUser struct {
	Secret string // the shared secret; "" never matches
	Role   string // the authrole given on success

	// Salt, when not "", makes the secret salted: the client signs with
	// DeriveKey(secret, Salt, Iterations, KeyLen), and the CHALLENGE tells
	// it these parameters. Iterations and KeyLen of 0 mean 1000 and 32.
	Salt       string
	Iterations int
	KeyLen     int
}

// craUser is a CRAUser with its signing keys worked out once.
type craUser struct {
	CRAUser
	// keys are the HMAC keys a signature may use. For a salted user both
	// DeriveKey(Secret, ...) and Secret itself are accepted: the first
	// matches configs that hold the client's password (and the Crossbar
	// example configs), the second older Crossbar configs that hold the
	// already derived key. Whoever knows Secret can compute both.
	keys []string
}

// wampCRA checks WAMP-CRA signatures against static users. Immutable after
// construction, so safe for concurrent use.
type wampCRA struct {
	users map[string]*craUser
	now   func() time.Time
}

var _ Authenticator = (*wampCRA)(nil)

// WampCRA returns the "wampcra" authenticator over users keyed by authid.
// The challenge is a JSON string with authid, authrole, authmethod,
// authprovider, nonce, timestamp and session, as Crossbar sends; salted
// users also get salt, iterations and keylen in CHALLENGE.Extra. PBKDF2 runs
// here, once per salted user, not per session. users is copied.
func WampCRA(users map[string]CRAUser) Authenticator {
	m := make(map[string]*craUser, len(users))
	for id, u := range users {
		m[id] = newCRAUser(u)
	}
	return &wampCRA{users: m, now: time.Now}
}

func newCRAUser(u CRAUser) *craUser {
	c := &craUser{CRAUser: u}
	if u.Secret == "" {
		return c
	}
	if u.Salt != "" {
		if c.Iterations <= 0 {
			c.Iterations = DefaultCRAIterations
		}
		if c.KeyLen <= 0 {
			c.KeyLen = DefaultCRAKeyLen
		}
		if k := DeriveKey(u.Secret, u.Salt, c.Iterations, c.KeyLen); k != "" {
			c.keys = append(c.keys, k)
		}
	}
	c.keys = append(c.keys, u.Secret)
	return c
}

func (*wampCRA) Method() string { return MethodWampCRA }

// Start looks up req's authid and builds the challenge.
func (w *wampCRA) Start(req *Request) (*Identity, Challenge, error) {
	if req.AuthID == "" {
		return nil, nil, noAuthID(MethodWampCRA)
	}
	u, ok := w.users[req.AuthID]
	if !ok {
		return nil, nil, noPrincipal(MethodWampCRA, req.AuthID)
	}
	challenge, err := craChallengeString(req, u.Role, w.now())
	if err != nil {
		return nil, nil, failed(MethodWampCRA, "cannot build challenge: %v", err)
	}
	return nil, &craChallenge{authid: req.AuthID, user: u, challenge: challenge}, nil
}

// craChallengeJSON is the challenge's content, in Crossbar's key order.
type craChallengeJSON struct {
	AuthID       string  `json:"authid"`
	AuthRole     string  `json:"authrole"`
	AuthMethod   string  `json:"authmethod"`
	AuthProvider string  `json:"authprovider"`
	Session      wamp.ID `json:"session"`
	Nonce        string  `json:"nonce"`
	Timestamp    string  `json:"timestamp"`
}

// craChallengeString returns the JSON challenge text for req.
func craChallengeString(req *Request, role string, now time.Time) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(craChallengeJSON{
		AuthID:       req.AuthID,
		AuthRole:     role,
		AuthMethod:   MethodWampCRA,
		AuthProvider: ProviderStatic,
		Session:      req.Session,
		Nonce:        rand.Text() + rand.Text(),
		Timestamp:    now.UTC().Format("2006-01-02T15:04:05.000Z"),
	})
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), err
}

// craChallenge waits for the signature of one challenge.
type craChallenge struct {
	once
	authid    string
	user      *craUser
	challenge string
}

var _ Challenge = (*craChallenge)(nil)

func (c *craChallenge) Message() *wamp.Challenge {
	extra := wamp.Dict{"challenge": c.challenge}
	if c.user.Salt != "" {
		extra["salt"] = c.user.Salt
		extra["iterations"] = c.user.Iterations
		extra["keylen"] = c.user.KeyLen
	}
	return &wamp.Challenge{AuthMethod: MethodWampCRA, Extra: extra}
}

// Verify checks the signature in a against every key of the user.
func (c *craChallenge) Verify(a *wamp.Authenticate) (*Identity, error) {
	if !c.take() {
		return nil, failed(MethodWampCRA, "challenge already answered")
	}
	match := 0
	for _, k := range c.user.keys {
		want := SignWampCRA(k, c.challenge)
		match |= subtle.ConstantTimeCompare([]byte(a.Signature), []byte(want))
	}
	if match != 1 {
		return nil, failed(MethodWampCRA, "invalid signature for authid %q", c.authid)
	}
	return &Identity{
		AuthID:       c.authid,
		AuthRole:     c.user.Role,
		AuthMethod:   MethodWampCRA,
		AuthProvider: ProviderStatic,
	}, nil
}
