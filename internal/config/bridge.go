package config

import "time"

// Body limits of the HTTP bridge services when "post_body_limit" is not
// given. Crossbar's default is 0, unlimited; ours is a bound, so
// that a client cannot make the node buffer any amount unless the
// configuration says so with an explicit 0.
const (
	// DefaultPostBodyLimit is the default of callers and publishers.
	DefaultPostBodyLimit = 1 << 20
	// DefaultWebhookPostBodyLimit is the default of webhooks: GitHub's own
	// payload cap, so that no real webhook is refused.
	DefaultWebhookPostBodyLimit = 25 << 20
	// NoPostBodyLimit as PostBodyLimit means unlimited ("post_body_limit":
	// 0 in the file).
	NoPostBodyLimit = -1
	// DefaultCallTimeout is a caller's "call_timeout" when not given.
	DefaultCallTimeout = 30 * time.Second
)

// WebhookProviders are the values of a webhook's "provider": the webhook
// signature schemes.
var WebhookProviders = []string{"github", "gitlab", "stripe", "slack", "shopify", "standard"}

// BridgeService is what the caller, publisher and webhook path services
// have in common: an embedded WAMP session joined to Realm as Role.
type BridgeService struct {
	// Realm is "realm" (required): the realm the service's session joins.
	Realm string
	// Role is "role" (required, as in Crossbar's configuration check): the
	// authrole of the service's session, whose permissions apply. It must
	// be a role of Realm, or "trusted".
	Role string
	// PostBodyLimit is "options.post_body_limit" (bytes, >= 0): larger
	// bodies get 413. Absent means DefaultPostBodyLimit (webhooks:
	// DefaultWebhookPostBodyLimit); the file's 0 means unlimited, as in
	// Crossbar, and is NoPostBodyLimit here (with a warning).
	// 0 in a hand-built Config means the default.
	PostBodyLimit int64
	// RequireIP is "options.require_ip": when not empty, only clients from
	// these addresses or networks ("10.0.0.0/8", "192.168.1.0/255.255.255.0",
	// "::1") are served; others get 403. Entries are parsed when the node
	// is built.
	RequireIP []string
	// RequireTLS is "options.require_tls": only requests over TLS are
	// served; others get 403 (default false).
	RequireTLS bool
	// Debug is "options.debug": log each request's decision at debug level
	// (default false).
	Debug bool
}

// Signing is the request signing of callers and publishers.
type Signing struct {
	// Key and Secret are "options.key" and "options.secret": given
	// together, every request must be signed with them (see the HTTP
	// bridge documentation). Neither may be empty.
	Key, Secret string
	// TimestampDeltaLimit is "options.timestamp_delta_limit" (seconds,
	// >= 0): the largest accepted difference between a signed request's
	// timestamp and now (default 0: no limit).
	TimestampDeltaLimit time.Duration
}

// CallerService is a path service of "type": "caller": HTTP POST ->
// WAMP call.
type CallerService struct {
	BridgeService
	Signing
	Access
	// CallTimeout is "options.call_timeout" (ms, >= 0): a call that takes
	// longer is canceled and answered 504 (default DefaultCallTimeout). The
	// file's 0, no timeout, is negative here; 0 in a hand-built Config
	// means the default.
	CallTimeout time.Duration
	// CancelMode is "options.cancel_mode": the mode of the CANCEL sent
	// when the HTTP client goes away or the call times out, one of
	// CancelModes (default "killnowait").
	CancelMode string
	// HeartbeatInterval is "options.heartbeat_interval", as an event
	// stream's: a call answered as an event stream (Accept:
	// text/event-stream) gets a comment line when silent that long.
	HeartbeatInterval time.Duration
	// StreamLimits cap the calls answered as event streams.
	StreamLimits
}

// StreamLimits are the caps of a bridge service's streams (an event
// stream's, a caller's streamed calls), Junction extensions.
type StreamLimits struct {
	// MaxStreams is "options.max_streams" (1..2147483647, default
	// DefaultMaxStreams): the most streams open at once; past it a
	// request gets 503. 0 in a hand-built Config means the default.
	MaxStreams int
	// MaxStreamsPerIP is "options.max_streams_per_ip" (0..2147483647,
	// default 0: no cap): the most streams open at once from one client
	// IP address.
	MaxStreamsPerIP int
}

// DefaultMaxStreams is "max_streams" when not given.
const DefaultMaxStreams = 10000

// CancelModes are the values of a caller's "cancel_mode".
var CancelModes = []string{"kill", "killnowait", "skip"}

// Defaults of an event stream's options.
const (
	DefaultHeartbeatInterval = 15 * time.Second
	DefaultStreamQueueEvents = 1024
	DefaultStreamQueueBytes  = 1 << 20
)

// EventStreamService is a path service of "type": "eventstream": each
// GET streams the events of the topics in its query as Server-Sent
// Events, through the service's session. Its BridgeService has no body
// limit (PostBodyLimit 0: a GET has no body).
type EventStreamService struct {
	BridgeService
	// HeartbeatInterval is "options.heartbeat_interval" (ms, >= 0): a
	// comment line is written to a stream silent that long (default
	// DefaultHeartbeatInterval). The file's 0, none, is negative here.
	HeartbeatInterval time.Duration
	// QueueMaxEvents and QueueMaxBytes are "options.queue_max_events"
	// and "options.queue_max_bytes" (>= 1): the most events, and bytes of
	// them, waiting for one client; a client that falls further behind
	// is closed as slow. Defaults DefaultStreamQueueEvents and
	// DefaultStreamQueueBytes.
	QueueMaxEvents int
	QueueMaxBytes  int64
	// StreamLimits cap the streams.
	StreamLimits
	// Auth is "options.auth", as a caller's: each stream subscribes for
	// its request's identity; nil: as the service's session.
	Auth *HTTPAuth
	// AllowQueryToken is "options.allow_query_token" (default false;
	// needs Auth with bearer.jwt or api_keys): the bearer credential may
	// come as the "access_token" query parameter, for browsers'
	// EventSource, which cannot send headers.
	AllowQueryToken bool
}

// PublisherService is a path service of "type": "publisher": HTTP POST ->
// WAMP publish.
type PublisherService struct {
	BridgeService
	Signing
	Access
}

// WebhookService is a path service of "type": "webhook": each HTTP
// request is published as one event.
type WebhookService struct {
	BridgeService
	// Topic is "options.topic" (required): where requests are published.
	Topic string
	// SuccessResponse is "options.success_response" (default "OK").
	SuccessResponse string
	// ErrorResponse is "options.error_response" (default "NOT OK").
	ErrorResponse string
	// ProviderSecret is "options.provider_secret", or Crossbar's
	// "options.github_secret" (which sets Provider "github"): when set,
	// every request must be signed by a webhook sender's scheme.
	ProviderSecret string
	// Provider is "options.provider": one of WebhookProviders, pinning the
	// scheme; "" recognises it by the request's headers.
	Provider string
}

// PathType returns "caller".
func (*CallerService) PathType() string { return "caller" }

// PathType returns "publisher".
func (*PublisherService) PathType() string { return "publisher" }

// PathType returns "webhook".
func (*WebhookService) PathType() string { return "webhook" }

// PathType returns "eventstream".
func (*EventStreamService) PathType() string { return "eventstream" }

func (d *decoder) callerService(o *object) *CallerService {
	s := &CallerService{CallTimeout: DefaultCallTimeout, CancelMode: "killnowait", HeartbeatInterval: DefaultHeartbeatInterval,
		StreamLimits: StreamLimits{MaxStreams: DefaultMaxStreams}}
	oo := d.bridgeService(o, &s.BridgeService, DefaultPostBodyLimit, false)
	if oo == nil {
		return s
	}
	d.signing(oo, &s.Signing)
	d.access(oo, &s.Access)
	if ms := oo.integer("call_timeout", DefaultCallTimeout.Milliseconds(), 0, maxInt32); ms > 0 {
		s.CallTimeout = time.Duration(ms) * time.Millisecond
	} else {
		s.CallTimeout = -1
	}
	s.CancelMode = oo.enum("cancel_mode", s.CancelMode, "cancel mode", CancelModes...)
	s.HeartbeatInterval = heartbeatInterval(oo)
	s.StreamLimits = streamLimits(oo)
	oo.done()
	return s
}

func (d *decoder) eventStreamService(o *object) *EventStreamService {
	s := &EventStreamService{HeartbeatInterval: DefaultHeartbeatInterval,
		QueueMaxEvents: DefaultStreamQueueEvents, QueueMaxBytes: DefaultStreamQueueBytes,
		StreamLimits: StreamLimits{MaxStreams: DefaultMaxStreams}}
	oo := d.bridgeBase(o, &s.BridgeService, false)
	if oo == nil {
		return s
	}
	s.HeartbeatInterval = heartbeatInterval(oo)
	s.StreamLimits = streamLimits(oo)
	s.QueueMaxEvents = int(oo.integer("queue_max_events", DefaultStreamQueueEvents, 1, maxInt32))
	s.QueueMaxBytes = oo.integer("queue_max_bytes", DefaultStreamQueueBytes, 1, maxInt)
	s.Auth = d.httpAuth(oo)
	s.AllowQueryToken = oo.boolean("allow_query_token", false)
	switch {
	case !s.AllowQueryToken:
	case s.Auth == nil:
		d.errorf(oo.at("allow_query_token"), "needs \"auth\"")
	case s.Auth.JWT == nil && s.Auth.APIKeys == nil:
		d.errorf(oo.at("allow_query_token"), "needs \"auth\" with \"bearer\" or \"api_keys\": the query token is a bearer credential")
	}
	oo.done()
	return s
}

// heartbeatInterval decodes "heartbeat_interval" (ms); the file's 0,
// none, is negative.
func heartbeatInterval(oo *object) time.Duration {
	if ms := oo.integer("heartbeat_interval", DefaultHeartbeatInterval.Milliseconds(), 0, maxInt32); ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return -1
}

// streamLimits decodes "max_streams" and "max_streams_per_ip".
func streamLimits(oo *object) StreamLimits {
	return StreamLimits{
		MaxStreams:      int(oo.integer("max_streams", DefaultMaxStreams, 1, maxInt32)),
		MaxStreamsPerIP: int(oo.integer("max_streams_per_ip", 0, 0, maxInt32)),
	}
}

func (d *decoder) publisherService(o *object) *PublisherService {
	s := &PublisherService{}
	oo := d.bridgeService(o, &s.BridgeService, DefaultPostBodyLimit, false)
	if oo == nil {
		return s
	}
	d.signing(oo, &s.Signing)
	d.access(oo, &s.Access)
	oo.done()
	return s
}

// bridgeService decodes the keys every bridge service has, and returns
// its "options" for the caller to finish (nil when there are none or they
// are not an object; with required, none is an error: the webhook's
// required "options.topic" is missing).
func (d *decoder) bridgeService(o *object, s *BridgeService, bodyLimit int64, required bool) *object {
	s.PostBodyLimit = bodyLimit
	oo := d.bridgeBase(o, s, required)
	if oo != nil {
		s.PostBodyLimit = oo.zeroIsNone("post_body_limit", bodyLimit, NoPostBodyLimit,
			"unlimited: a request body is bounded only by the web transport's body_buffer_limit")
	}
	return oo
}

// bridgeBase decodes the keys of every bridge service but the body limit:
// "realm", "role" and the options "require_ip", "require_tls" and
// "debug"; it returns "options" as bridgeService does.
func (d *decoder) bridgeBase(o *object, s *BridgeService, required bool) *object {
	d.id(o)
	s.Realm = o.reqStr("realm")
	d.realmRef(o, s.Realm)
	s.Role = o.reqStr("role")
	v, ok := o.get("options")
	if !ok {
		if required {
			d.errorf(childPath(o.at("options"), "topic"), "required")
		}
		return nil
	}
	oo, ok := d.object(o.at("options"), v)
	if !ok {
		return nil
	}
	s.RequireIP = oo.strList("require_ip")
	s.RequireTLS = oo.boolean("require_tls", false)
	s.Debug = oo.boolean("debug", false)
	return oo
}

// signing decodes "key", "secret" and "timestamp_delta_limit".
func (d *decoder) signing(oo *object, s *Signing) {
	key, hasKey := d.nonEmpty(oo, "key")
	secret, hasSecret := d.nonEmpty(oo, "secret")
	switch {
	case hasKey && !hasSecret && !oo.has("secret"):
		d.errorf(oo.at("secret"), "required when \"key\" is given")
	case hasSecret && !hasKey && !oo.has("key"):
		d.errorf(oo.at("key"), "required when \"secret\" is given")
	}
	s.Key, s.Secret = key, secret
	s.TimestampDeltaLimit = time.Duration(oo.integer("timestamp_delta_limit", 0, 0, maxInt32)) * time.Second
	if hasSecret && s.TimestampDeltaLimit == 0 {
		d.warnf(oo.at("secret"), "no \"timestamp_delta_limit\": old signed requests can be replayed once their nonce leaves the replay cache")
	}
}

// nonEmpty returns the string at key k, reporting an empty one; ok says
// whether a non-empty string was given.
func (d *decoder) nonEmpty(oo *object, k string) (string, bool) {
	if !oo.has(k) {
		oo.get(k)
		return "", false
	}
	n := len(d.errs)
	s := oo.str(k, "")
	if len(d.errs) > n {
		return "", false
	}
	if s == "" {
		d.errorf(oo.at(k), "must not be empty (remove the key to turn it off)")
		return "", false
	}
	return s, true
}

func (d *decoder) webhookService(o *object) *WebhookService {
	s := &WebhookService{SuccessResponse: "OK", ErrorResponse: "NOT OK"}
	oo := d.bridgeService(o, &s.BridgeService, DefaultWebhookPostBodyLimit, true)
	if oo == nil {
		return s
	}
	s.Topic = oo.reqStr("topic")
	if s.Topic != "" && !looseURI(s.Topic) {
		d.errorf(oo.at("topic"), "invalid topic URI %q", s.Topic)
	}
	s.SuccessResponse = oo.str("success_response", s.SuccessResponse)
	s.ErrorResponse = oo.str("error_response", s.ErrorResponse)
	d.providerSecret(oo, s)
	oo.done()
	return s
}

// providerSecret decodes "provider_secret", "github_secret" (its alias
// with provider github) and "provider".
func (d *decoder) providerSecret(oo *object, s *WebhookService) {
	secret, hasSecret := d.nonEmpty(oo, "provider_secret")
	github, hasGitHub := d.nonEmpty(oo, "github_secret")
	s.Provider = oo.enum("provider", "", "provider", WebhookProviders...)
	switch {
	case oo.has("provider_secret") && oo.has("github_secret"):
		d.errorf(oo.at("github_secret"), "give \"provider_secret\" or \"github_secret\", not both")
	case hasGitHub:
		if s.Provider != "" && s.Provider != "github" {
			d.errorf(oo.at("provider"), "\"github_secret\" means provider \"github\", not %q", s.Provider)
		}
		s.ProviderSecret, s.Provider = github, "github"
	case hasSecret:
		s.ProviderSecret = secret
		if s.Provider == "" {
			d.warnf(oo.at("provider_secret"), "pin the provider: with detection, a signature captured from one scheme (Stripe, Slack) can be replayed as another (GitHub)")
		}
	case s.Provider != "" && !oo.has("provider_secret") && !oo.has("github_secret"):
		d.errorf(oo.at("provider"), "needs \"provider_secret\"")
	}
}
