package config

import (
	"strings"
	"testing"
)

const fpUpper = "E0:01:02:03:04:05:06:07:08:09:0A:0B:0C:0D:0E:0F:10:11:12:13"

func TestTLSAuth(t *testing.T) {
	tests := []struct {
		name, fp string
	}{
		{"crossbar spelling", fpUpper},
		{"lower case", strings.ToLower(fpUpper)},
		{"no colons", strings.ReplaceAll(fpUpper, ":", "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, wsPath(`"auth": {"tls": {"type": "static", "principals": {"client1": {"certificate-sha1": "`+tt.fp+`", "role": "backend"}}}}`))
			a := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["ws"].(*WebSocketService).Auth.TLS
			want := TLSPrincipal{CertificateSHA1: fpUpper, Role: "backend"}
			if a == nil || a.Principals["client1"] != want {
				t.Errorf("tls = %+v, want principal %+v", a, want)
			}
		})
	}
	c, _ := mustParse(t, wsPath(`"auth": {"tls": {"type": "dynamic", "authenticator": "com.example.auth"}}`))
	a := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["ws"].(*WebSocketService).Auth.TLS
	if a == nil || a.Dynamic == nil || a.Dynamic.Authenticator != "com.example.auth" {
		t.Errorf("dynamic tls = %+v", a)
	}
}

func TestTLSAuthRules(t *testing.T) {
	p := ws + ".auth.tls"
	principal := func(members string) string {
		return wsPath(`"auth": {"tls": {"type": "static", "principals": {"c": {` + members + `}}}}`)
	}
	tests := []ruleTest{
		{"fingerprint missing", principal(`"role": "r"`), p + ".principals.c.certificate-sha1", "required"},
		{"role missing", principal(`"certificate-sha1": "` + fpUpper + `"`), p + ".principals.c.role", "required"},
		{"fingerprint short", principal(`"certificate-sha1": "E0:01", "role": "r"`), p + ".principals.c.certificate-sha1", "invalid SHA-1 fingerprint"},
		{"fingerprint not hex", principal(`"certificate-sha1": "` + strings.Replace(fpUpper, "E0", "G0", 1) + `", "role": "r"`),
			p + ".principals.c.certificate-sha1", "invalid SHA-1 fingerprint"},
		{"fingerprint odd colons", principal(`"certificate-sha1": "E:00:1` + fpUpper[5:] + `", "role": "r"`), p + ".principals.c.certificate-sha1", "invalid SHA-1 fingerprint"},
		{"unknown key", principal(`"certificate-sha1": "` + fpUpper + `", "role": "r", "sha1": "x"`), p + ".principals.c.sha1", "unknown"},
		{"function", wsPath(`"auth": {"tls": {"type": "function", "create": "a.b"}}`), p + ".type", `unknown authentication type "function" for tls`},
		{"dynamic without authenticator", wsPath(`"auth": {"tls": {"type": "dynamic"}}`), p + ".authenticator", "required"},
	}
	runRuleTests(t, tests)
}

// runRuleTests runs tests, each a document with one error.
func runRuleTests(t *testing.T, tests []ruleTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 || errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %v,\nwant one error at %s: ...%s...", errs, tt.path, tt.msg)
			}
		})
	}
}
