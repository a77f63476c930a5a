package config

import (
	"strings"
	"testing"
)

const (
	scramKey  = "8de7864c316f3c2356fd76cfdab696db55bc70e680fe5180e2f731e2345acca2"
	scramMore = `"iterations": 4096, "memory": 512, "salt": "3bc3ca01dd1d501ca1c22e1c5d7d16fe", "stored-key": "` + scramKey + `", "server-key": "` + scramKey + `"`
)

func TestScramAuth(t *testing.T) {
	c, warns := mustParse(t, wsPath(`"auth": {"scram": {"type": "static", "principals": {
		"foobar@example.com": {"kdf": "argon2id-13", "role": "user", `+scramMore+`},
		"nobody": {"kdf": "pbkdf2", `+scramMore+`}}}}`))
	a := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["ws"].(*WebSocketService).Auth.Scram
	want := ScramPrincipal{KDF: "argon2id-13", Iterations: 4096, Memory: 512, Salt: "3bc3ca01dd1d501ca1c22e1c5d7d16fe",
		StoredKey: scramKey, ServerKey: scramKey, Role: "user"}
	if a == nil || a.Principals["foobar@example.com"] != want || a.Principals["nobody"].KDF != "pbkdf2" {
		t.Errorf("scram = %+v", a)
	}
	if len(warns) == 0 || !strings.Contains(warns[0].String(), `no "role"`) {
		t.Errorf("warnings = %v, want one for the principal without a role", warns)
	}
	c, _ = mustParse(t, wsPath(`"auth": {"scram": {"type": "dynamic", "authenticator": "com.example.auth"}}`))
	if a := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["ws"].(*WebSocketService).Auth.Scram; a == nil || a.Dynamic == nil {
		t.Errorf("dynamic scram = %+v", a)
	}
}

func TestScramAuthRules(t *testing.T) {
	p := ws + ".auth.scram"
	principal := func(members string) string {
		return wsPath(`"auth": {"scram": {"type": "static", "principals": {"c": {"role": "r", ` + members + `}}}}`)
	}
	pc := p + ".principals.c"
	tests := []ruleTest{
		{"no principals", wsPath(`"auth": {"scram": {"type": "static"}}`), p + ".principals", "required"},
		{"kdf missing", principal(scramMore), pc + ".kdf", "required"},
		{"kdf unknown", principal(`"kdf": "scrypt", ` + scramMore), pc + ".kdf", `unknown kdf "scrypt"`},
		{"memory missing", principal(`"kdf": "pbkdf2", ` + strings.Replace(scramMore, `"memory": 512, `, "", 1)), pc + ".memory", "required"},
		{"iterations zero", principal(`"kdf": "pbkdf2", ` + strings.Replace(scramMore, `4096`, "0", 1)), pc + ".iterations", "must be in 1.."},
		{"salt not hex", principal(`"kdf": "pbkdf2", ` + strings.Replace(scramMore, `3bc3`, "xyz3", 1)), pc + ".salt", "must be hex digits"},
		{"stored key short", principal(`"kdf": "pbkdf2", ` + strings.Replace(scramMore, `"stored-key": "8de7`, `"stored-key": "`, 1)), pc + ".stored-key", "64 hex digits"},
		{"unknown key", principal(`"kdf": "pbkdf2", "keylen": 32, ` + scramMore), pc + ".keylen", "unknown"},
		{"function without create", wsPath(`"auth": {"scram": {"type": "function"}}`), p + ".create", "required"},
	}
	runRuleTests(t, tests)
}
