package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// ap is the path of a caller's or publisher's options.auth.
const ap = bpOpts + ".auth"

// withAuth is a caller on realm1 with options.auth auth.
func withAuth(typ, auth string) string { return bridgePath(typ, `"auth": `+auth) }

// jwtHS is a valid bearer.jwt with more members.
func jwtHS(more string) string {
	return `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "s", "authrole": "anonymous"` + more + `}}}`
}

var httpAuthRuleTests = []struct {
	name, doc, path, msg string
}{
	{"no method", withAuth("caller", `{"required": true}`), ap, "give at least one of bearer.jwt, api_keys and basic"},
	{"auth type", withAuth("caller", `[]`), ap, "must be an object"},
	{"unknown key", withAuth("caller", `{"api_keys": {"k": {"authid": "a", "authrole": "anonymous"}}, "requird": true}`), ap + ".requird", `did you mean "required"?`},
	{"bearer without jwt", withAuth("caller", `{"bearer": {}}`), ap + ".bearer.jwt", "required"},
	{"no algorithms", withAuth("caller", `{"bearer": {"jwt": {"secret": "s", "authrole": "anonymous"}}}`), ap + ".bearer.jwt.algorithms", "required"},
	{"empty algorithms", withAuth("caller", `{"bearer": {"jwt": {"algorithms": [], "secret": "s", "authrole": "anonymous"}}}`), ap + ".bearer.jwt.algorithms", "must not be empty"},
	{"alg none", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["none"], "secret": "s", "authrole": "anonymous"}}}`), ap + ".bearer.jwt.algorithms[0]", `"none" is never accepted`},
	{"RS256 with secret", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256", "RS256"], "secret": "s", "authrole": "anonymous"}}}`),
		ap + ".bearer.jwt.algorithms[1]", `"RS256" does not go with "secret"`},
	{"HS256 with a key", withAuth("publisher", `{"bearer": {"jwt": {"algorithms": ["HS256"], "public_key": "k.pem", "authrole": "anonymous"}}}`),
		ap + ".bearer.jwt.algorithms[0]", `"HS256" does not go with a public key`},
	{"unknown algorithm", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["RS1"], "jwks_file": "k.json", "authrole": "anonymous"}}}`),
		ap + ".bearer.jwt.algorithms[0]", `"RS1" does not go with a public key`},
	{"no key", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["RS256"], "authrole": "anonymous"}}}`), ap + ".bearer.jwt", `give exactly one of "secret", "public_key"`},
	{"two keys", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["RS256"], "public_key": "k.pem", "jwks_file": "k.json", "authrole": "anonymous"}}}`),
		ap + ".bearer.jwt", "give exactly one of"},
	{"empty secret", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "", "authrole": "anonymous"}}}`), ap + ".bearer.jwt.secret", "must not be empty"},
	{"secret env missing", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "${NO_SUCH_JWT_SECRET}", "authrole": "anonymous"}}}`),
		ap + ".bearer.jwt.secret", "environment variable NO_SUCH_JWT_SECRET is not set"},
	{"jwks_url scheme", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["RS256"], "jwks_url": "ftp://x/k", "authrole": "anonymous"}}}`),
		ap + ".bearer.jwt.jwks_url", `must be an http or https URL, not "ftp://x/k"`},
	{"jwks_refresh without url", withAuth("caller", jwtHS(`, "jwks_refresh": 60`)), ap + ".bearer.jwt.jwks_refresh", `needs "jwks_url" or "jwks_file"`},
	{"leeway range", withAuth("caller", jwtHS(`, "leeway": -1`)), ap + ".bearer.jwt.leeway", "must be in 0..3600, not -1"},
	{"no role", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "s"}}}`), ap + ".bearer.jwt", `give "authrole_claim"`},
	{"both roles", withAuth("caller", jwtHS(`, "authrole_claim": "role", "allowed_roles": ["anonymous"]`)), ap + ".bearer.jwt.authrole", "not both"},
	{"role claim without allowed", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "s", "authrole_claim": "role"}}}`),
		ap + ".bearer.jwt.allowed_roles", `required with "authrole_claim"`},
	{"jwt role unknown", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "s", "authrole": "admin"}}}`),
		ap + ".bearer.jwt.authrole", `role "admin" is not defined in realm "realm1"`},
	{"allowed role unknown", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "s", "authrole_claim": "r", "allowed_roles": ["anonymous", "admin"]}}}`),
		ap + ".bearer.jwt.allowed_roles[1]", `role "admin" is not defined`},
	{"audience type", withAuth("caller", jwtHS(`, "audience": 1`)), ap + ".bearer.jwt.audience", "must be an array"},
	{"api key role unknown", withAuth("caller", `{"api_keys": {"k": {"authid": "a", "authrole": "admin"}}}`), ap + ".api_keys.k.authrole", `role "admin" is not defined`},
	{"api key authid", withAuth("caller", `{"api_keys": {"k": {"authrole": "anonymous"}}}`), ap + ".api_keys.k.authid", "required"},
	{"api key hash", withAuth("caller", `{"api_keys": {"sha256:abc": {"authid": "a", "authrole": "anonymous"}}}`), childPath(ap+".api_keys", "sha256:abc"), `"sha256:" and 64 hex digits`},
	{"api key header", withAuth("caller", `{"api_keys": {"k": {"authid": "a", "authrole": "anonymous"}}, "api_key_header": "X Key"}`),
		ap + ".api_key_header", `invalid header name "X Key"`},
	{"api key header without keys", withAuth("caller", `{"bearer": {"jwt": {"algorithms": ["HS256"], "secret": "s", "authrole": "anonymous"}}, "api_key_header": "X-Key"}`),
		ap + ".api_key_header", `needs "api_keys"`},
	{"principals_from missing", withAuth("caller", `{"basic": {}}`), ap + ".basic.principals_from", "required"},
	{"principals_from unknown", withAuth("caller", `{"basic": {"principals_from": "ws"}}`), ap + ".basic.principals_from", `"ws" is not a websocket path of this transport`},
	{"principals_from anonymous", web(`{"ws": {"type": "websocket"}, "svc": {"type": "caller", "realm": "realm1", "role": "anonymous", "options": {"auth": {"basic": {"principals_from": "ws"}}}}}`),
		ap + ".basic.principals_from", `websocket path "ws" has no static ticket or wampcra principals`},
	{"error_status type", bridgePath("caller", `"error_status": "yes"`), bpOpts + ".error_status", "must be a boolean"},
	{"error_status code", bridgePath("publisher", `"error_status": {"com.example.error.gone": 200}`), childPath(bpOpts+".error_status", "com.example.error.gone"), "must be an HTTP error status (400..599), not 200"},
	{"error_status uri", bridgePath("caller", `"error_status": {"a..b": 404}`), childPath(bpOpts+".error_status", "a..b"), `invalid error URI "a..b"`},
	{"webhook auth", hook(`"auth": {"api_keys": {}}`), bpOpts + ".auth", "unknown key"},
}

func TestHTTPAuthRules(t *testing.T) {
	for _, tt := range httpAuthRuleTests {
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

func TestHTTPAuthDecode(t *testing.T) {
	doc := web(`{"ws": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {"bob": {"ticket": "t-bob", "role": "anonymous"}}},
		"wampcra": {"type": "static", "users": {"bob": {"secret": "c-bob", "role": "anonymous"}, "carol": {"secret": "c-carol", "role": "anonymous"}}}}},
		"svc": {"type": "caller", "realm": "realm1", "role": "anonymous", "options": {"error_status": {"com.example.error.gone": 410},
		"auth": {"bearer": {"jwt": {"algorithms": ["RS256", "ES256"], "jwks_url": "https://issuer.example/keys", "jwks_refresh": 60,
			"issuer": "https://issuer.example", "audience": "api", "leeway": 0, "authrole_claim": "role", "allowed_roles": ["anonymous"]}},
		"api_keys": {"k": {"authid": "alice", "authrole": "anonymous"}}, "api_key_header": "X-API-Key",
		"basic": {"principals_from": "ws"}, "required": false}}}}`)
	c, _ := mustParse(t, doc)
	paths := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths
	s := paths["svc"].(*CallerService)
	want := Access{
		Auth: &HTTPAuth{
			JWT: &JWTAuth{Algorithms: []string{"RS256", "ES256"}, JWKSURL: "https://issuer.example/keys", JWKSRefresh: time.Minute,
				Issuer: "https://issuer.example", Audience: []string{"api"}, Leeway: -1, AuthIDClaim: "sub",
				AuthRoleClaim: "role", AllowedRoles: []string{"anonymous"}},
			APIKeys:      map[string]APIKey{"k": {"alice", "anonymous"}},
			APIKeyHeader: "X-API-Key", BasicFrom: "ws", Required: false,
		},
		ErrorStatus: ErrorStatus{On: true, Statuses: map[string]int{"com.example.error.gone": 410}},
	}
	if !reflect.DeepEqual(s.Access, want) {
		t.Fatalf("Access = %+v\n%+v, want %+v\n%+v", s.Access, s.Access.Auth.JWT, want, want.Auth.JWT)
	}
	got := BasicPrincipals(&paths["ws"].(*WebSocketService).Auth)
	wantP := map[string]BasicPrincipal{"bob": {"t-bob", "anonymous"}, "carol": {"c-carol", "anonymous"}}
	if !reflect.DeepEqual(got, wantP) {
		t.Fatalf("BasicPrincipals = %v, want %v", got, wantP)
	}
	// Defaults: required, a leeway of 30 s, authid from sub; error_status off.
	p := svc(t, withAuth("publisher", jwtHS(""))).(*PublisherService)
	if j := p.Auth.JWT; !p.Auth.Required || j.Leeway != DefaultJWTLeeway || j.AuthIDClaim != "sub" || j.JWKSRefresh != DefaultJWKSRefresh || p.ErrorStatus.On {
		t.Fatalf("defaults: %+v %+v %+v", p.Auth, j, p.ErrorStatus)
	}
	if p := svc(t, bridgePath("publisher", `"error_status": true`)).(*PublisherService); !p.ErrorStatus.On || p.Auth != nil {
		t.Fatalf("error_status true: %+v", p.Access)
	}
	// A jwks_file is read again every jwks_refresh too.
	p = svc(t, withAuth("publisher", `{"bearer": {"jwt": {"algorithms": ["RS256"], "jwks_file": "k.json", "jwks_refresh": 30, "authrole": "anonymous"}}}`)).(*PublisherService)
	if j := p.Auth.JWT; j.JWKSFile != "k.json" || j.JWKSRefresh != 30*time.Second {
		t.Fatalf("jwks_file: %+v", j)
	}
}
