package bridge

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// signer checks the signing query parameters of Caller and Publisher
// requests, as Crossbar's HTTP bridge signs them. Immutable after construction,
// but for the nonce cache and the warning limit, which have their own locks.
type signer struct {
	key, secret string // secret "" means unsigned mode
	delta       time.Duration
	nonces      *NonceCache
	shared      SharedNonces // nil: this node alone
	now         func() time.Time
	log         *slog.Logger
	full        lograte.Limit // "replay cache full" warnings
	unshared    lograte.Limit // "replay table unavailable" warnings
}

// fullLogInterval is the shortest time between two "replay cache full"
// warnings of a service.
const fullLogInterval = 5 * time.Second

// newSigner returns the signer of s; log gets its warnings, now (nil:
// time.Now) tells the time.
func newSigner(s Signing, log *slog.Logger, now func() time.Time) *signer {
	n := s.Nonces
	if n == nil && s.Secret != "" {
		n = NewNonceCache(0)
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &signer{key: s.Key, secret: s.Secret, delta: s.TimestampDeltaLimit, nonces: n, shared: s.Shared, now: now,
		log: log, full: lograte.Limit{Interval: fullLogInterval}, unshared: lograte.Limit{Interval: fullLogInterval}}
}

// signed reports whether requests must be signed.
func (s *signer) signed() bool { return s.secret != "" }

// check validates the parameters in Crossbar's order (key, timestamp, seq,
// nonce, signature), then the key, the MAC and the nonce's freshness.
func (s *signer) check(ctx context.Context, q query, body []byte) error {
	if _, ok := q["key"]; !ok && s.signed() {
		return badRequest(textMissingField, "'key' field missing")
	}
	if err := s.checkTimestamp(q); err != nil {
		return err
	}
	if err := checkSeq(q, s.signed()); err != nil {
		return err
	}
	nonce, err := checkNonce(q, s.signed())
	if err != nil {
		return err
	}
	if !s.signed() {
		return nil
	}
	return s.verify(ctx, q, nonce, body)
}

func (s *signer) checkTimestamp(q query) error {
	ts, ok := q["timestamp"]
	if !ok {
		if s.signed() {
			return badRequest(textMissingField, "signed request required, but mandatory 'timestamp' field missing")
		}
		if s.delta > 0 {
			return badRequest(textMissingField, "'timestamp' field missing, required by the timestamp delta limit")
		}
		return nil
	}
	t, err := parseTimestamp(ts)
	if err != nil {
		return badRequest(textInvalidField,
			"invalid timestamp '"+echo(ts)+"' (must be UTC/ISO-8601, e.g. '2011-10-14T16:59:51.123Z')")
	}
	if s.delta > 0 {
		if d := s.now().Sub(t); d > s.delta || d < -s.delta {
			return badRequest(textExpired)
		}
	}
	return nil
}

func checkSeq(q query, signed bool) error {
	seq, ok := q["seq"]
	if !ok {
		if signed {
			return badRequest(textMissingField, "'seq' field missing")
		}
		return nil
	}
	if !isInteger(seq) {
		return badRequest(textInvalidField, "invalid sequence number '"+echo(seq)+"' (must be an integer)")
	}
	return nil
}

// checkNonce returns the nonce, an integer in [0, 2^53].
func checkNonce(q query, signed bool) (uint64, error) {
	v, ok := q["nonce"]
	if !ok {
		if signed {
			return 0, badRequest(textMissingField, "'nonce' field missing")
		}
		return 0, nil
	}
	n, ok := parseNonce(v)
	if !ok {
		return 0, badRequest(textInvalidField, "invalid nonce '"+echo(v)+"' (must be an integer from 0 to 2^53)")
	}
	return n, nil
}

// verify checks the signature, the key, the MAC, then that neither the
// nonce nor the MAC was used before, in that order. Comparisons are
// constant-time.
func (s *signer) verify(ctx context.Context, q query, nonce uint64, body []byte) error {
	sig, ok := q["signature"]
	if !ok {
		return badRequest(textMissingField, "'signature' field missing")
	}
	got, ok := decodeSignature(sig)
	if !ok {
		return badRequest(textInvalidField, "signature is not Base64")
	}
	if subtle.ConstantTimeCompare([]byte(q["key"]), []byte(s.key)) != 1 {
		return refuse(http.StatusUnauthorized, textBadKey)
	}
	mac := Sign(s.secret, q["key"], q["timestamp"], q["seq"], q["nonce"], body)
	if !hmac.Equal(got, mac) {
		return refuse(http.StatusUnauthorized, textBadSignature)
	}
	// The MAC too, not the nonce alone: digits moved between seq and
	// nonce make another nonce with the same MAC.
	err := s.nonces.Use(NonceUse{Key: s.key, Nonce: nonce, MAC: mac, TTL: s.nonceTTL(), Window: s.delta > 0}, s.now())
	switch {
	case errors.Is(err, ErrReplay):
		return refuse(http.StatusUnauthorized, textReplay)
	case errors.Is(err, ErrNoncesFull):
		s.warnFull()
		return &Error{Status: http.StatusServiceUnavailable, Text: textReplayFull, Cause: err}
	}
	return s.claim(ctx, nonce, mac)
}

// claim records the request's (key, nonce) and MAC in the shared replay
// table, if any, and refuses it when either was there. When the table
// cannot tell, the request is refused with 503: without it a copy of the
// request could be accepted on another node.
func (s *signer) claim(ctx context.Context, nonce uint64, mac []byte) error {
	if s.shared == nil {
		return nil
	}
	key := sha256.Sum256([]byte(s.key))
	for _, k := range [...]string{
		"n-" + hex.EncodeToString(key[:macKeySize]) + "-" + strconv.FormatUint(nonce, 10),
		"m-" + hex.EncodeToString(mac[:macKeySize]),
	} {
		fresh, err := s.shared.Claim(ctx, k, s.nonceTTL())
		if err != nil {
			s.warnUnshared(err)
			return &Error{Status: http.StatusServiceUnavailable, Text: textReplayTable, Cause: err}
		}
		if !fresh {
			return refuse(http.StatusUnauthorized, textReplay)
		}
	}
	return nil
}

// warnUnshared logs, rate-limited, that signed requests are refused
// because the shared replay table cannot be reached.
func (s *signer) warnUnshared(err error) {
	if ok, held := s.unshared.Allow(); ok {
		s.log.Warn("bridge: cluster replay table unavailable: signed requests refused with 503",
			"key", s.key, "err", err, "refused_since_last_log", held)
	}
}

// warnFull logs, rate-limited, that signed requests are refused because
// the replay cache is full of requests inside their window.
func (s *signer) warnFull() {
	if ok, held := s.full.Allow(); ok {
		s.log.Warn("bridge: replay cache full of signed requests inside their timestamp window: refused with 503",
			"key", s.key, "max_requests", s.nonces.max, "timestamp_delta_limit", s.delta, "refused_since_last_log", held)
	}
}

// nonceTTL is how long a request must be remembered: a timestamp may be up to
// delta in the future and is accepted until delta after it.
func (s *signer) nonceTTL() time.Duration {
	if s.delta > 0 {
		return 2 * s.delta
	}
	return DefaultNonceHorizon
}

// Sign returns the raw HMAC-SHA256 of a signed request: keyed with secret,
// over key, timestamp, seq and nonce (the query values as received, URL
// decoded) and the body, concatenated without separators. Clients send it
// URL-safe Base64 encoded.
func Sign(secret, key, timestamp, seq, nonce string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	for _, s := range [...]string{key, timestamp, seq, nonce} {
		m.Write([]byte(s))
	}
	m.Write(body)
	return m.Sum(nil)
}

// decodeSignature decodes Base64 in the URL-safe or the standard alphabet,
// padded or not. A '+' sent unescaped in a query arrives as a space and is
// taken back.
func decodeSignature(s string) ([]byte, bool) {
	s = strings.TrimRight(s, "=")
	s = strings.Map(func(r rune) rune {
		switch r {
		case '-', ' ':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s)
	b, err := base64.RawStdEncoding.DecodeString(s)
	return b, err == nil
}

// isInteger reports whether s is a decimal integer with an optional sign,
// as Python's int() accepts it (without its '_' separators and blanks).
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseNonce parses a decimal integer in [0, 2^53].
func parseNonce(s string) (uint64, bool) {
	s = strings.TrimPrefix(s, "+")
	if s == "" || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + uint64(s[i]-'0')
	}
	return n, n <= wamp.MaxID
}

// echo shortens a client's value quoted in an error text.
func echo(v string) string {
	const max = 64
	if len(v) > max {
		return strings.ToValidUTF8(v[:max], "") + "..."
	}
	return v
}
