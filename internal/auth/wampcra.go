package auth

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/junction-wamp/junction/wamp"
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
	// decoy: made up for an unknown authid; never accepted.
	decoy bool
}

// wampCRA checks WAMP-CRA signatures against static users. Immutable after
// construction, so safe for concurrent use.
type wampCRA struct {
	users map[string]*craUser
	// templates are the users sorted by authid: a decoy takes the role,
	// salt parameters and number of keys of one of them, so that decoys
	// look like real users and cost as much.
	templates []craTemplate
	now       func() time.Time
}

// craTemplate is a user that decoys copy, with what they need made once.
type craTemplate struct {
	user     *craUser
	alphabet string   // of the user's salt: saltAlphabet
	keys     []string // random: as many as the user's, as long (HMAC's cost)
}

func newCRATemplate(u *craUser) craTemplate {
	t := craTemplate{user: u, alphabet: saltAlphabet(u.Salt)}
	for _, k := range u.keys {
		t.keys = append(t.keys, string(randomBytes(len(k))))
	}
	return t
}

var _ Authenticator = (*wampCRA)(nil)

// WampCRA returns the "wampcra" authenticator over users keyed by authid.
// The challenge is a JSON string with authid, authrole, authmethod,
// authprovider, nonce, timestamp and session, as Crossbar sends; salted
// users also get salt, iterations and keylen in CHALLENGE.Extra. PBKDF2 runs
// here, once per salted user, not per session. An authid that names no user
// gets a decoy challenge (see decoy.go) and is refused as a wrong signature
// is. users is copied.
func WampCRA(users map[string]CRAUser) Authenticator {
	w := &wampCRA{users: make(map[string]*craUser, len(users)), now: time.Now}
	for _, id := range slices.Sorted(maps.Keys(users)) {
		u := newCRAUser(users[id])
		w.users[id] = u
		w.templates = append(w.templates, newCRATemplate(u))
	}
	return w
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

// Start looks up req's authid, or makes up a decoy user for it, and builds
// the challenge.
func (w *wampCRA) Start(req *Request) (*Identity, Challenge, error) {
	if req.AuthID == "" {
		return nil, nil, noAuthID(MethodWampCRA)
	}
	u := w.user(req.AuthID)
	id := Identity{AuthID: req.AuthID, AuthRole: u.Role, AuthMethod: MethodWampCRA, AuthProvider: ProviderStatic}
	ch, err := newCRAChallenge(id, u, req.Session, w.now())
	return nil, ch, err
}

// user returns authid's user or, when there is none, a decoy. The decoy is
// made either way, so that Start does the same work for a known authid as
// for an unknown one (see decoy.go).
func (w *wampCRA) user(authid string) *craUser {
	decoy := w.decoy(authid)
	if u, ok := w.users[authid]; ok {
		return u
	}
	return decoy
}

// decoy returns the user an unknown authid is challenged as: the role,
// iterations and keylen of one of the real users, chosen by authid, and a
// salt shaped like that user's (decoySalt), derived from the authid. It
// has as many keys as that user, as long, so that Verify takes as long,
// and Verify refuses it whatever the signature.
func (w *wampCRA) decoy(authid string) *craUser {
	u := &craUser{decoy: true}
	if len(w.templates) == 0 {
		return u
	}
	r := decoyRand("wampcra", authid)
	t := &w.templates[r.IntN(len(w.templates))]
	u.Role, u.Iterations, u.KeyLen, u.keys = t.user.Role, t.user.Iterations, t.user.KeyLen, t.keys
	u.Salt = decoySalt(r, t.user.Salt, t.alphabet)
	return u
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

// newCRAChallenge challenges a client to sign for u, to be admitted as
// id, in session.
func newCRAChallenge(id Identity, u *craUser, session wamp.ID, now time.Time) (*craChallenge, error) {
	challenge, err := craChallengeString(&id, session, now)
	if err != nil {
		return nil, denied(MethodWampCRA, "cannot build challenge: %v", err)
	}
	return &craChallenge{id: id, user: u, challenge: challenge}, nil
}

// craChallengeString returns the JSON challenge text for id in session.
func craChallengeString(id *Identity, session wamp.ID, now time.Time) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(craChallengeJSON{
		AuthID:       id.AuthID,
		AuthRole:     id.AuthRole,
		AuthMethod:   MethodWampCRA,
		AuthProvider: id.AuthProvider,
		Session:      session,
		Nonce:        rand.Text() + rand.Text(),
		Timestamp:    now.UTC().Format("2006-01-02T15:04:05.000Z"),
	})
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), err
}

// craChallenge waits for the signature of one challenge.
type craChallenge struct {
	once
	id        Identity // the session's, once the signature checks out
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
		return nil, denied(MethodWampCRA, "challenge already answered")
	}
	match := 0
	for _, k := range c.user.keys {
		want := SignWampCRA(k, c.challenge)
		match |= subtle.ConstantTimeCompare([]byte(a.Signature), []byte(want))
	}
	if match != 1 || c.user.decoy {
		return nil, denied(MethodWampCRA, "invalid signature")
	}
	id := c.id
	return &id, nil
}
