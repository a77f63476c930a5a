package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// Paths of the bridge services built by bridgePath.
const (
	bp     = "workers[0].transports[0].paths.svc"
	bpOpts = bp + ".options"
)

// bridgePath is a document whose web path "svc" is a service of typ on
// realm1 with role anonymous, with the options (none when "").
func bridgePath(typ, options string) string {
	return bridgeDoc(`"type": "`+typ+`", "realm": "realm1", "role": "anonymous"`, options)
}

// bridgeDoc is a document whose web path "svc" has the members and, when
// not "", the options.
func bridgeDoc(members, options string) string {
	if options != "" {
		members += `, "options": {` + options + `}`
	}
	return web(`{"svc": {` + members + `}}`)
}

// hook is a webhook on topic com.example.hook with more options.
func hook(options string) string {
	if options != "" {
		options = ", " + options
	}
	return bridgePath("webhook", `"topic": "com.example.hook"`+options)
}

var bridgeRuleTests = []struct {
	name, doc, path, msg string
}{
	// Required keys.
	{"caller realm", bridgeDoc(`"type": "caller", "role": "anonymous"`, ""), bp + ".realm", "required"},
	{"caller role", bridgeDoc(`"type": "caller", "realm": "realm1"`, ""), bp + ".role", "required"},
	{"publisher realm", bridgeDoc(`"type": "publisher", "role": "anonymous"`, ""), bp + ".realm", "required"},
	{"publisher role", bridgeDoc(`"type": "publisher", "realm": "realm1"`, ""), bp + ".role", "required"},
	{"webhook realm", bridgeDoc(`"type": "webhook", "role": "anonymous"`, `"topic": "t"`), bp + ".realm", "required"},
	{"webhook role", bridgeDoc(`"type": "webhook", "realm": "realm1"`, `"topic": "t"`), bp + ".role", "required"},
	{"webhook topic", bridgePath("webhook", `"success_response": "yes"`), bpOpts + ".topic", "required"},
	{"webhook no options", bridgePath("webhook", ""), bpOpts + ".topic", "required"},
	{"webhook topic invalid", bridgePath("webhook", `"topic": "a..b"`), bpOpts + ".topic", `invalid topic URI "a..b"`},
	{"reverseproxy host", bridgeDoc(`"type": "reverseproxy", "port": 8000`, ""), bp + ".host", "required"},
	{"eventstream realm", bridgeDoc(`"type": "eventstream", "role": "anonymous"`, ""), bp + ".realm", "required"},
	{"eventstream role", bridgeDoc(`"type": "eventstream", "realm": "realm1"`, ""), bp + ".role", "required"},
	{"eventstream role unknown", bridgeDoc(`"type": "eventstream", "realm": "realm1", "role": "x"`, ""), bp + ".role", `role "x" is not defined in realm "realm1"`},

	// Event stream options.
	{"eventstream body limit", bridgePath("eventstream", `"post_body_limit": 10`), bpOpts + ".post_body_limit", "unknown key"},
	{"eventstream heartbeat negative", bridgePath("eventstream", `"heartbeat_interval": -1`), bpOpts + ".heartbeat_interval", "must be in 0..2147483647, not -1"},
	{"eventstream heartbeat type", bridgePath("eventstream", `"heartbeat_interval": "15s"`), bpOpts + ".heartbeat_interval", "must be an integer"},
	{"eventstream queue events 0", bridgePath("eventstream", `"queue_max_events": 0`), bpOpts + ".queue_max_events", "must be in 1..2147483647, not 0"},
	{"eventstream queue bytes 0", bridgePath("eventstream", `"queue_max_bytes": 0`), bpOpts + ".queue_max_bytes", "not 0"},
	{"eventstream max_streams 0", bridgePath("eventstream", `"max_streams": 0`), bpOpts + ".max_streams", "must be in 1..2147483647, not 0"},
	{"eventstream max_streams negative", bridgePath("eventstream", `"max_streams": -5`), bpOpts + ".max_streams", "must be in 1..2147483647, not -5"},
	{"eventstream max_streams_per_ip negative", bridgePath("eventstream", `"max_streams_per_ip": -1`), bpOpts + ".max_streams_per_ip", "must be in 0..2147483647, not -1"},
	{"caller max_streams 0", bridgePath("caller", `"max_streams": 0`), bpOpts + ".max_streams", "must be in 1..2147483647, not 0"},
	{"caller max_streams_per_ip type", bridgePath("caller", `"max_streams_per_ip": "10"`), bpOpts + ".max_streams_per_ip", "must be an integer"},
	{"caller heartbeat negative", bridgePath("caller", `"heartbeat_interval": -1`), bpOpts + ".heartbeat_interval", "must be in 0..2147483647, not -1"},
	{"publisher max_streams", bridgePath("publisher", `"max_streams": 10`), bpOpts + ".max_streams", "unknown key"},
	{"eventstream option misspelt", bridgePath("eventstream", `"heartbeat_intreval": 1000`), bpOpts + ".heartbeat_intreval", `did you mean "heartbeat_interval"?`},
	{"eventstream require_ip type", bridgePath("eventstream", `"require_ip": "127.0.0.1"`), bpOpts + ".require_ip", "must be an array"},
	{"eventstream query token without auth", bridgePath("eventstream", `"allow_query_token": true`), bpOpts + ".allow_query_token", `needs "auth"`},
	{"eventstream query token with basic only", web(`{"ws": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {"alice": {"ticket": "a", "role": "anonymous"}}}}},
		"svc": {"type": "eventstream", "realm": "realm1", "role": "anonymous", "options": {"allow_query_token": true, "auth": {"basic": {"principals_from": "ws"}}}}}`),
		bpOpts + ".allow_query_token", "the query token is a bearer credential"},
	{"eventstream auth role unknown", bridgePath("eventstream", `"auth": {"api_keys": {"k": {"authid": "a", "authrole": "nobody"}}}`),
		bpOpts + ".auth.api_keys.k.authrole", `role "nobody" is not defined in realm "realm1"`},
	{"eventstream auth empty", bridgePath("eventstream", `"auth": {}`), bpOpts + ".auth", "give at least one of bearer.jwt, api_keys and basic"},
	{"caller cancel_mode", bridgePath("caller", `"cancel_mode": "abort"`), bpOpts + ".cancel_mode", `unknown cancel mode "abort" (want kill, killnowait, skip)`},

	// References.
	{"realm invalid", bridgeDoc(`"type": "caller", "realm": "a..b", "role": "anonymous"`, ""), bp + ".realm", `invalid realm URI "a..b"`},
	{"realm unknown", bridgeDoc(`"type": "publisher", "realm": "realm2", "role": "anonymous"`, ""), bp + ".realm", `realm "realm2" is not defined in this router`},
	{"role unknown", bridgeDoc(`"type": "caller", "realm": "realm1", "role": "bridge"`, ""), bp + ".role", `role "bridge" is not defined in realm "realm1"`},
	{"nested role unknown", web(`{"api": {"type": "path", "paths": {"hook": {"type": "webhook", "realm": "realm1", "role": "x", "options": {"topic": "t"}}}}}`),
		"workers[0].transports[0].paths.api.paths.hook.role", `role "x" is not defined`},

	// Signing.
	{"key without secret", bridgePath("caller", `"key": "app1"`), bpOpts + ".secret", `required when "key" is given`},
	{"secret without key", bridgePath("publisher", `"secret": "s3cr3t"`), bpOpts + ".key", `required when "secret" is given`},
	{"secret empty", bridgePath("caller", `"key": "app1", "secret": ""`), bpOpts + ".secret", "must not be empty"},
	{"key empty", bridgePath("publisher", `"key": "", "secret": "s"`), bpOpts + ".key", "must not be empty"},
	{"secret type", bridgePath("caller", `"key": "k", "secret": 1`), bpOpts + ".secret", "must be a string"},
	{"webhook key", hook(`"key": "k"`), bpOpts + ".key", "unknown key"},

	// Ranges and types.
	{"post_body_limit negative", bridgePath("caller", `"post_body_limit": -1`), bpOpts + ".post_body_limit", "must be >= 0, not -1"},
	{"post_body_limit string", bridgePath("webhook", `"topic": "t", "post_body_limit": "1"`), bpOpts + ".post_body_limit", "must be an integer"},
	{"timestamp_delta_limit negative", bridgePath("publisher", `"timestamp_delta_limit": -5`), bpOpts + ".timestamp_delta_limit", "must be in 0..2147483647, not -5"},
	{"call_timeout negative", bridgePath("caller", `"call_timeout": -1`), bpOpts + ".call_timeout", "must be in 0..2147483647, not -1"},
	{"publisher call_timeout", bridgePath("publisher", `"call_timeout": 100`), bpOpts + ".call_timeout", "unknown key"},
	{"require_ip type", bridgePath("caller", `"require_ip": "127.0.0.1"`), bpOpts + ".require_ip", "must be an array"},
	{"require_ip entry type", bridgePath("caller", `"require_ip": [1]`), bpOpts + ".require_ip[0]", "must be a string"},
	{"require_tls type", bridgePath("publisher", `"require_tls": "yes"`), bpOpts + ".require_tls", "must be a boolean"},
	{"options type", bridgeDoc(`"type": "caller", "realm": "realm1", "role": "anonymous", "options": []`, ""), bpOpts, "must be an object"},
	{"port zero", bridgeDoc(`"type": "reverseproxy", "host": "h", "port": 0`, ""), bp + ".port", "must be in 1..65535, not 0"},
	{"port big", bridgeDoc(`"type": "reverseproxy", "host": "h", "port": 65536`, ""), bp + ".port", "must be in 1..65535, not 65536"},
	{"forwarded_port", bridgeDoc(`"type": "reverseproxy", "host": "h", "forwarded_port": 0`, ""), bp + ".forwarded_port", "must be in 1..65535, not 0"},
	{"forwarded_proto", bridgeDoc(`"type": "reverseproxy", "host": "h", "forwarded_proto": "ftp"`, ""), bp + ".forwarded_proto", `unknown protocol "ftp" (want http, https)`},

	// Unknown keys.
	{"caller option unknown", bridgePath("caller", `"post_body_limt": 1`), bpOpts + ".post_body_limt", `did you mean "post_body_limit"?`},
	{"caller key unknown", bridgeDoc(`"type": "caller", "realm": "realm1", "role": "anonymous", "optoins": {}`, ""), bp + ".optoins", `did you mean "options"?`},
	{"publisher option unknown", bridgePath("publisher", `"requre_ip": []`), bpOpts + ".requre_ip", `did you mean "require_ip"?`},
	{"webhook option unknown", hook(`"sucess_response": "y"`), bpOpts + ".sucess_response", `did you mean "success_response"?`},
	{"reverseproxy unknown", bridgeDoc(`"type": "reverseproxy", "host": "h", "pat": "/x"`, ""), bp + ".pat", `did you mean "path"?`},
	{"reverseproxy timeout", bridgeDoc(`"type": "reverseproxy", "host": "h", "timeout": 5`, ""), bp + ".timeout", "unknown key"},

	// Webhook providers.
	{"provider unknown", hook(`"provider_secret": "s", "provider": "bitbucket"`), bpOpts + ".provider", `unknown provider "bitbucket" (want github, gitlab, stripe, slack, shopify, standard)`},
	{"provider upper case", hook(`"provider_secret": "s", "provider": "GitHub"`), bpOpts + ".provider", `unknown provider "GitHub"`},
	{"provider without secret", hook(`"provider": "stripe"`), bpOpts + ".provider", `needs "provider_secret"`},
	{"provider_secret empty", hook(`"provider_secret": "", "provider": "github"`), bpOpts + ".provider_secret", "must not be empty"},
	{"github_secret empty", hook(`"github_secret": ""`), bpOpts + ".github_secret", "must not be empty"},
	{"both secrets", hook(`"github_secret": "a", "provider_secret": "b", "provider": "github"`), bpOpts + ".github_secret", `give "provider_secret" or "github_secret", not both`},
	{"github_secret other provider", hook(`"github_secret": "a", "provider": "stripe"`), bpOpts + ".provider", `"github_secret" means provider "github", not "stripe"`},
}

func TestBridgeRules(t *testing.T) {
	for _, tt := range bridgeRuleTests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1 at %q:\n%v", len(errs), tt.path, errs)
			}
			if errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", errs[0].Error(), tt.path, tt.msg)
			}
		})
	}
}

var bridgeWarningTests = []struct {
	name, doc, path, msg string
}{
	{"unlimited body", bridgePath("caller", `"post_body_limit": 0`), bpOpts + ".post_body_limit", "unlimited: a request body is bounded only by the web transport's body_buffer_limit"},
	{"unlimited webhook body", hook(`"post_body_limit": 0`), bpOpts + ".post_body_limit", "unlimited"},
	{"secret without timestamp limit", bridgePath("publisher", `"key": "k", "secret": "s"`), bpOpts + ".secret",
		"old signed requests can be replayed once their nonce leaves the replay cache"},
	{"secret with timestamp limit 0", bridgePath("caller", `"key": "k", "secret": "s", "timestamp_delta_limit": 0`), bpOpts + ".secret", "replayed"},
	{"secret with timestamp limit", bridgePath("caller", `"key": "k", "secret": "s", "timestamp_delta_limit": 10`), "", ""},
	{"provider_secret unpinned", hook(`"provider_secret": "s"`), bpOpts + ".provider_secret",
		"pin the provider: with detection, a signature captured from one scheme (Stripe, Slack) can be replayed as another (GitHub)"},
	{"provider_secret pinned", hook(`"provider_secret": "s", "provider": "stripe"`), "", ""},
	{"github_secret", hook(`"github_secret": "s"`), "", ""},
	{"debug", bridgePath("caller", `"debug": true`), "", ""},
	{"webhook debug", hook(`"debug": true, "require_ip": ["127.0.0.1"], "require_tls": false`), "", ""},
	{"positive body limit", bridgePath("publisher", `"post_body_limit": 8192`), "", ""},
}

func TestBridgeWarnings(t *testing.T) {
	for _, tt := range bridgeWarningTests {
		t.Run(tt.name, func(t *testing.T) {
			_, warns := mustParse(t, tt.doc)
			if tt.path == "" {
				if len(warns) != 0 {
					t.Fatalf("got warnings, want none:\n%s", warningsText(warns))
				}
				return
			}
			if len(warns) != 1 {
				t.Fatalf("got %d warnings, want 1 at %q:\n%s", len(warns), tt.path, warningsText(warns))
			}
			if warns[0].Path != tt.path || !strings.Contains(warns[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", warns[0].String(), tt.path, tt.msg)
			}
		})
	}
}

// svc decodes doc and returns its path service "svc".
func svc(t *testing.T, doc string) PathService {
	t.Helper()
	c, _ := mustParse(t, doc)
	return c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["svc"]
}

func TestPostBodyLimit(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want int64
	}{
		{"caller absent", bridgePath("caller", ""), DefaultPostBodyLimit},
		{"caller options without limit", bridgePath("caller", `"debug": false`), DefaultPostBodyLimit},
		{"publisher absent", bridgePath("publisher", ""), DefaultPostBodyLimit},
		{"webhook absent", hook(""), DefaultWebhookPostBodyLimit},
		{"caller 0", bridgePath("caller", `"post_body_limit": 0`), NoPostBodyLimit},
		{"webhook 0", hook(`"post_body_limit": 0`), NoPostBodyLimit},
		{"caller positive", bridgePath("caller", `"post_body_limit": 8192`), 8192},
		{"webhook positive", hook(`"post_body_limit": 100000000`), 100000000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got int64
			switch s := svc(t, tt.doc).(type) {
			case *CallerService:
				got = s.PostBodyLimit
			case *PublisherService:
				got = s.PostBodyLimit
			case *WebhookService:
				got = s.PostBodyLimit
			}
			if got != tt.want {
				t.Errorf("PostBodyLimit = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestCallerDecode(t *testing.T) {
	tests := []struct {
		options string
		want    CallerService
	}{
		{"", CallerService{CallTimeout: DefaultCallTimeout, CancelMode: "killnowait", HeartbeatInterval: DefaultHeartbeatInterval, StreamLimits: defaultLimits}},
		{`"cancel_mode": "skip"`, CallerService{CallTimeout: DefaultCallTimeout, CancelMode: "skip", HeartbeatInterval: DefaultHeartbeatInterval, StreamLimits: defaultLimits}},
		{`"call_timeout": 0, "heartbeat_interval": 0`, CallerService{CallTimeout: -1, CancelMode: "killnowait", HeartbeatInterval: -1, StreamLimits: defaultLimits}},
		{`"call_timeout": 1500, "key": "k", "secret": "${SECRET}", "timestamp_delta_limit": 10, "require_ip": ["127.0.0.0/8", "::1"], "require_tls": true, "debug": true`,
			CallerService{CallTimeout: 1500 * time.Millisecond, CancelMode: "killnowait", HeartbeatInterval: DefaultHeartbeatInterval, StreamLimits: defaultLimits,
				Signing:       Signing{Key: "k", Secret: "s3cr3t", TimestampDeltaLimit: 10 * time.Second},
				BridgeService: BridgeService{RequireIP: []string{"127.0.0.0/8", "::1"}, RequireTLS: true, Debug: true}}},
		{`"heartbeat_interval": 500, "max_streams": 20, "max_streams_per_ip": 2`, CallerService{CallTimeout: DefaultCallTimeout, CancelMode: "killnowait",
			HeartbeatInterval: 500 * time.Millisecond, StreamLimits: StreamLimits{MaxStreams: 20, MaxStreamsPerIP: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.options, func(t *testing.T) {
			got := svc(t, bridgePath("caller", tt.options)).(*CallerService)
			tt.want.Realm, tt.want.Role, tt.want.PostBodyLimit = "realm1", "anonymous", DefaultPostBodyLimit
			if got.CallTimeout != tt.want.CallTimeout || got.CancelMode != tt.want.CancelMode || got.Signing != tt.want.Signing ||
				got.HeartbeatInterval != tt.want.HeartbeatInterval || got.StreamLimits != tt.want.StreamLimits ||
				strings.Join(got.RequireIP, ",") != strings.Join(tt.want.RequireIP, ",") ||
				got.RequireTLS != tt.want.RequireTLS || got.Debug != tt.want.Debug ||
				got.Realm != tt.want.Realm || got.Role != tt.want.Role || got.PostBodyLimit != tt.want.PostBodyLimit {
				t.Errorf("got %+v,\nwant %+v", *got, tt.want)
			}
		})
	}
}

// defaultLimits are the stream caps when none is given.
var defaultLimits = StreamLimits{MaxStreams: DefaultMaxStreams}

func TestEventStreamDecode(t *testing.T) {
	tests := []struct {
		options string
		want    EventStreamService
	}{
		{"", EventStreamService{HeartbeatInterval: DefaultHeartbeatInterval, QueueMaxEvents: DefaultStreamQueueEvents, QueueMaxBytes: DefaultStreamQueueBytes, StreamLimits: defaultLimits}},
		{`"heartbeat_interval": 0, "queue_max_events": 10, "queue_max_bytes": 4096, "require_tls": true, "debug": true, "max_streams": 1, "max_streams_per_ip": 1`,
			EventStreamService{HeartbeatInterval: -1, QueueMaxEvents: 10, QueueMaxBytes: 4096, StreamLimits: StreamLimits{MaxStreams: 1, MaxStreamsPerIP: 1},
				BridgeService: BridgeService{RequireTLS: true, Debug: true}}},
		{`"auth": {"api_keys": {"k-alice": {"authid": "alice", "authrole": "anonymous"}}}, "allow_query_token": true`,
			EventStreamService{HeartbeatInterval: DefaultHeartbeatInterval, QueueMaxEvents: DefaultStreamQueueEvents, QueueMaxBytes: DefaultStreamQueueBytes,
				StreamLimits: defaultLimits, AllowQueryToken: true, Auth: &HTTPAuth{Required: true, APIKeys: map[string]APIKey{"k-alice": {AuthID: "alice", AuthRole: "anonymous"}}}}},
		{`"heartbeat_interval": 2500`, EventStreamService{HeartbeatInterval: 2500 * time.Millisecond, QueueMaxEvents: DefaultStreamQueueEvents, QueueMaxBytes: DefaultStreamQueueBytes, StreamLimits: defaultLimits}},
	}
	for _, tt := range tests {
		t.Run(tt.options, func(t *testing.T) {
			got := svc(t, bridgePath("eventstream", tt.options)).(*EventStreamService)
			tt.want.Realm, tt.want.Role = "realm1", "anonymous"
			if got.HeartbeatInterval != tt.want.HeartbeatInterval || got.QueueMaxEvents != tt.want.QueueMaxEvents || got.StreamLimits != tt.want.StreamLimits ||
				got.QueueMaxBytes != tt.want.QueueMaxBytes || got.RequireTLS != tt.want.RequireTLS || got.Debug != tt.want.Debug ||
				got.Realm != tt.want.Realm || got.Role != tt.want.Role || got.PostBodyLimit != 0 ||
				got.AllowQueryToken != tt.want.AllowQueryToken || !reflect.DeepEqual(got.Auth, tt.want.Auth) {
				t.Errorf("got %+v,\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestWebhookDecode(t *testing.T) {
	tests := []struct {
		options                          string
		secret, provider, success, error string
	}{
		{"", "", "", "OK", "NOT OK"},
		{`"github_secret": "g"`, "g", "github", "OK", "NOT OK"},
		{`"github_secret": "g", "provider": "github"`, "g", "github", "OK", "NOT OK"},
		{`"provider_secret": "p", "provider": "slack", "success_response": "", "error_response": "no"`, "p", "slack", "", "no"},
	}
	for _, tt := range tests {
		t.Run(tt.options, func(t *testing.T) {
			s := svc(t, hook(tt.options)).(*WebhookService)
			if s.Topic != "com.example.hook" || s.ProviderSecret != tt.secret || s.Provider != tt.provider ||
				s.SuccessResponse != tt.success || s.ErrorResponse != tt.error {
				t.Errorf("got %+v", *s)
			}
		})
	}
}

func TestReverseProxyDecode(t *testing.T) {
	tests := []struct {
		members string
		want    ReverseProxyService
	}{
		{`"host": "127.0.0.1"`, ReverseProxyService{Host: "127.0.0.1", Port: 80}},
		{`"host": "app", "port": 8000, "path": "/app", "forwarded_port": 443, "forwarded_proto": "https", "id": "proxy1"`,
			ReverseProxyService{Host: "app", Port: 8000, Path: "/app", ForwardedPort: 443, ForwardedProto: "https"}},
	}
	for _, tt := range tests {
		t.Run(tt.members, func(t *testing.T) {
			got := svc(t, bridgeDoc(`"type": "reverseproxy", `+tt.members, "")).(*ReverseProxyService)
			if *got != tt.want {
				t.Errorf("got %+v, want %+v", *got, tt.want)
			}
		})
	}
}

// TestCrossbarBridgePaths loads the web transport of Crossbar's reference
// configuration shape unchanged.
func TestCrossbarBridgePaths(t *testing.T) {
	doc := top(`{"type": "router", "realms": [{"name": "realm1", "roles": [{"name": "bridge", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 8080}, "paths": {
			"call": {"type": "caller", "realm": "realm1", "role": "bridge",
				"options": {"key": "app1", "secret": "s3cr3t", "post_body_limit": 8192, "timestamp_delta_limit": 10,
					"require_ip": ["127.0.0.0/8"], "require_tls": false}},
			"publish": {"type": "publisher", "realm": "realm1", "role": "bridge"},
			"hook": {"type": "webhook", "realm": "realm1", "role": "bridge",
				"options": {"topic": "com.example.hook", "success_response": "OK", "error_response": "NOT OK", "github_secret": "x"}},
			"proxy": {"type": "reverseproxy", "host": "127.0.0.1", "port": 8000, "path": "/app",
				"forwarded_port": 443, "forwarded_proto": "https"}}}]}`)
	_, warns := mustParse(t, doc)
	if len(warns) != 0 {
		t.Errorf("warnings:\n%s", warningsText(warns))
	}
}
