package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/junction-wamp/junction/internal/bridge/httpauth"
	"github.com/junction-wamp/junction/wamp"
)

// Defaults of the options.
const (
	// DefaultPostBodyLimit applies when PostBodyLimit is 0. Crossbar's
	// default, 0, means unlimited; we keep a bound (Crossbar's
	// configuration check allows at most this much anyway).
	DefaultPostBodyLimit = 1 << 20
	// DefaultWebhookPostBodyLimit applies to a Webhook when PostBodyLimit
	// is 0: GitHub's own payload cap, so that no real webhook is refused.
	DefaultWebhookPostBodyLimit = 25 << 20
	// DefaultCallTimeout applies when CallTimeout is 0.
	DefaultCallTimeout = 30 * time.Second
	// NoTimeout as CallTimeout turns the call timeout off (config
	// "call_timeout": 0).
	NoTimeout time.Duration = -1
	// publishTimeout bounds the wait for an acknowledged publish.
	publishTimeout = 30 * time.Second
)

// Common holds the options every service has.
type Common struct {
	// PostBodyLimit is the largest accepted body in bytes; 0 means
	// DefaultPostBodyLimit (a Webhook's: DefaultWebhookPostBodyLimit),
	// negative means unlimited.
	PostBodyLimit int64
	// RequireIP: when not empty, only peers in these networks are served
	// (the direct peer address, never X-Forwarded-For); others get 403.
	RequireIP IPRules
	// RequireTLS: only requests over TLS are served (r.TLS != nil; a TLS
	// terminating proxy in front does not count); others get 403.
	RequireTLS bool
	// Buffer bounds the body bytes held at once by the services that share
	// it (a web transport's); nil means a BodyBuffer of
	// DefaultBodyBufferLimit for this service alone.
	Buffer *BodyBuffer
	// Debug logs each request's decision at debug level.
	Debug bool
	// Logger receives the service's logs; nil discards them.
	Logger *slog.Logger
}

// Signing holds the request signature options of Caller and Publisher.
type Signing struct {
	// Key and Secret turn signed requests on; both or neither must be set.
	Key, Secret string
	// TimestampDeltaLimit is the largest accepted difference between a
	// request's timestamp and now; 0 means no limit. When > 0 a request
	// without timestamp is refused, and accepted requests are remembered
	// until their copies would be expired: while the nonce cache is full
	// of them, signed requests get 503 (see NonceUse.Window).
	TimestampDeltaLimit time.Duration
	// Nonces remembers used nonces so that a replay is refused; nil means
	// a cache of DefaultMaxNonces entries for this service alone. Share one
	// between services that have the same key.
	Nonces *NonceCache
	// Shared, when set, remembers the requests accepted by every node of
	// a cluster: a request Nonces accepts is then accepted only if Shared
	// has not seen it either. When Shared cannot tell, the request is
	// refused with 503 (fail closed); its nonce may be recorded, so the
	// client signs it again with a new nonce.
	Shared SharedNonces
}

// SharedNonces is a replay table shared by several nodes (a cluster's).
// Implementations must be safe for concurrent use.
type SharedNonces interface {
	// Claim records key as used for ttl. fresh is false when key is
	// recorded and unexpired; err says the table could not tell.
	Claim(ctx context.Context, key string, ttl time.Duration) (fresh bool, err error)
}

// Identifier tells who an HTTP request comes from: the identity its WAMP
// actions run with, nil for the service's own, or an error to answer
// (an *httpauth.Error: 401 with WWW-Authenticate, 403). An
// *httpauth.Resolver is one. Implementations must be safe for
// concurrent use.
type Identifier interface {
	Resolve(r *http.Request) (*wamp.Identity, error)
}

var _ Identifier = (*httpauth.Resolver)(nil)

// Access holds the options of the services whose requests may run with
// an identity of their own and answer WAMP errors with HTTP statuses
// (Caller, Publisher).
type Access struct {
	// Identity, when set, tells who each request comes from
	// (options.auth): the call or publication runs with that identity,
	// which the router authorizes and discloses, and a refusal by its
	// permissions is answered 403. Credentials are checked before the
	// body is read. nil: every request runs as the service's session.
	Identity Identifier
	// ErrorStatus is options.error_status.
	ErrorStatus ErrorStatus
}

// CallerOptions configure NewCaller.
type CallerOptions struct {
	Common
	Signing
	Access
	// CallTimeout bounds each call: past it the call is canceled and the
	// answer is 504 wamp.error.timeout. 0 means DefaultCallTimeout;
	// NoTimeout (any negative value) means none. A request's
	// "options.timeout" (ms) can only shorten it.
	CallTimeout time.Duration
	// CancelMode is the mode of the CANCEL sent when the client goes away
	// or the call times out: wamp.CancelKillNoWait (the default, ""),
	// wamp.CancelKill or wamp.CancelSkip. The first two interrupt the
	// callee (INTERRUPT); skip leaves it running.
	CancelMode string
	// Heartbeat is how long a call answered as an event stream (Accept:
	// text/event-stream) may stay silent before a comment line is
	// written to it, so that proxies keep a long, quiet call open; 0
	// means DefaultHeartbeat, negative none (an event stream's option).
	Heartbeat time.Duration
	// StreamLimits cap the calls answered as event streams open at once,
	// in all and per client IP address: past a cap such a request gets
	// 503 with Retry-After (plain calls are not counted).
	StreamLimits
}

// PublisherOptions configure NewPublisher.
type PublisherOptions struct {
	Common
	Signing
	Access
}

// WebhookOptions configure NewWebhook. Crossbar's "github_secret" is
// ProviderSecret with Provider "github".
type WebhookOptions struct {
	Common
	// Topic receives one event per request; required.
	Topic string
	// SuccessResponse is the body of a success (202); nil means "OK".
	SuccessResponse *string
	// ErrorResponse is the body of every failure; nil means "NOT OK".
	ErrorResponse *string
	// ProviderSecret: when set, every request must carry a valid signature
	// of a webhook sender's scheme (package webhooksig).
	ProviderSecret string
	// Provider pins the scheme ("github", "gitlab", "stripe", "slack",
	// "shopify", "standard"); "" recognises it by its headers.
	Provider string
}

func (c *Common) logger() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

func (c *Common) bodyLimit() int64 {
	if c.PostBodyLimit == 0 {
		return DefaultPostBodyLimit
	}
	return c.PostBodyLimit
}

func (s *Signing) validate() error {
	switch {
	case s.Key != "" && s.Secret == "":
		return errors.New("bridge: secret: required when key is set")
	case s.Secret != "" && s.Key == "":
		return errors.New("bridge: key: required when secret is set")
	case s.TimestampDeltaLimit < 0:
		return errors.New("bridge: timestamp_delta_limit: must be >= 0")
	}
	return nil
}

func (o *CallerOptions) cancelMode() (string, error) { return cancelModeOf(o.CancelMode) }

func (o *CallerOptions) callTimeout() time.Duration { return callTimeoutOf(o.CallTimeout) }

// cancelModeOf is a CancelMode option's mode (Caller, API).
func cancelModeOf(mode string) (string, error) {
	switch mode {
	case "":
		return wamp.CancelKillNoWait, nil
	case wamp.CancelKill, wamp.CancelKillNoWait, wamp.CancelSkip:
		return mode, nil
	}
	return "", fmt.Errorf("bridge: cancel_mode: must be kill, killnowait or skip, not %q", mode)
}

// callTimeoutOf is a CallTimeout option's timeout, 0 for none (Caller,
// API).
func callTimeoutOf(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultCallTimeout
	case d < 0:
		return 0
	}
	return d
}
