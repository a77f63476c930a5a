package e2e_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// callCases are POSTs to /call naming a procedure of the callee under
// test (PREFIX in the body is its prefix), and the answers Crossbar's
// clients expect.
var callCases = []struct {
	name   string
	body   string
	status int
	want   string
}{
	{"one-result", `{"procedure": "PREFIX.one"}`, 200, `{"args": [42]}`},
	{"two-results", `{"procedure": "PREFIX.two"}`, 200, `{"args": ["a", 2]}`},
	{"kwargs-only", `{"procedure": "PREFIX.kw"}`, 200, `{"kwargs": {"k": "v"}}`},
	{"args-and-kwargs", `{"procedure": "PREFIX.both"}`, 200, `{"args": [1], "kwargs": {"k": "v"}}`},
	{"empty-result", `{"procedure": "PREFIX.empty"}`, 200, `{"args": [null]}`},
	{"echo", `{"procedure": "PREFIX.echo", "args": [1, "x", 2.5, null, true], "kwargs": {"n": {"deep": [1, {}]}, "s": "\u00e9"}}`,
		200, `{"args": [1, "x", 2.5, null, true], "kwargs": {"n": {"deep": [1, {}]}, "s": "é"}}`},
	{"application-error", `{"procedure": "PREFIX.error", "args": [1]}`,
		200, `{"error": "com.e2e.error", "args": ["bad", 42], "kwargs": {"reason": "because", "code": 7}}`},
	{"no-such-procedure", `{"procedure": "PREFIX.nothing"}`, 200, ""},
}

// testCaller runs callCases against each callee, and the refusals that do
// not depend on a callee.
func testCaller(t *testing.T, env *bridgeEnv) {
	for _, prefix := range peerPrefixes {
		for _, tc := range callCases {
			t.Run(prefix+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				r := postJSON(t, env.base+"/call", strings.ReplaceAll(tc.body, "PREFIX", prefix))
				if tc.want == "" {
					checkError(t, r, 200, "wamp.error.no_such_procedure")
					return
				}
				checkAnswer(t, r, tc.status, tc.want)
			})
		}
		t.Run(prefix+"/not-authorized", func(t *testing.T) {
			t.Parallel()
			r := postJSON(t, env.base+"/call-restricted", `{"procedure": "`+prefix+`.one"}`)
			checkError(t, r, 200, "wamp.error.not_authorized")
		})
	}
	t.Run("invalid-procedure-uri", func(t *testing.T) {
		t.Parallel()
		r := postJSON(t, env.base+"/call", `{"procedure": "com..e2e"}`)
		if r.status != http.StatusBadRequest {
			t.Errorf("status %d, want 400; body %s", r.status, r.body)
		}
	})
	t.Run("get-refused", func(t *testing.T) {
		t.Parallel()
		r := do(t, curlRequest(t, http.MethodGet, env.base+"/call", nil))
		if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") == "" {
			t.Errorf("GET: status %d Allow %q, want 405 with Allow", r.status, r.header.Get("Allow"))
		}
	})
}

// checkError checks a JSON error answer: status and "error" URI or text,
// with "args" and "kwargs" members present.
func checkError(t *testing.T, r response, status int, errText string) {
	t.Helper()
	m, _ := decodeJSON(t, "answer", r.body).(map[string]any)
	_, hasArgs := m["args"]
	_, hasKwargs := m["kwargs"]
	if r.status != status || m["error"] != errText || !hasArgs || !hasKwargs {
		t.Errorf("status %d body %s, want %d with error %q, args and kwargs", r.status, r.body, status, errText)
	}
}

// testSlow calls a callee that does not answer: the node answers 504
// wamp.error.timeout after the path's call_timeout, or the request's
// options.timeout, and cancels the call. The Go callee must see an
// INTERRUPT and its handler's context end; autobahn-js 22 has no INTERRUPT
// handler, so for it the test checks the 504 and that the callee still
// serves calls afterwards.
func testSlow(t *testing.T, env *bridgeEnv) {
	cases := []struct{ name, path, options string }{
		{"call-timeout", "/call-short", ""},
		{"request-timeout", "/call", `, "options": {"timeout": 300}`},
	}
	for _, tc := range cases {
		t.Run("com.e2e.go/"+tc.name, func(t *testing.T) {
			r := postJSON(t, env.base+tc.path, `{"procedure": "com.e2e.go.slow"`+tc.options+`}`)
			checkError(t, r, http.StatusGatewayTimeout, "wamp.error.timeout")
			select {
			case <-env.gp.interrupts:
			case <-time.After(10 * time.Second):
				t.Fatal("the Go callee got no INTERRUPT")
			}
			select {
			case <-env.gp.canceled:
			case <-time.After(10 * time.Second):
				t.Fatal("the Go callee's handler context did not end")
			}
			checkAnswer(t, postJSON(t, env.base+"/call", `{"procedure": "com.e2e.go.one"}`), 200, `{"args": [42]}`)
		})
	}
	t.Run("com.e2e.js/call-timeout", func(t *testing.T) {
		r := postJSON(t, env.base+"/call-short", `{"procedure": "com.e2e.js.slow"}`)
		checkError(t, r, http.StatusGatewayTimeout, "wamp.error.timeout")
		if l, ok := env.js.next(t, 10*time.Second); !ok || l.Invoked != "slow" {
			t.Fatalf("peer.js: line %q, want {\"invoked\": \"slow\"}", l.Raw)
		}
		checkAnswer(t, postJSON(t, env.base+"/call", `{"procedure": "com.e2e.js.one"}`), 200, `{"args": [42]}`)
		if t.Failed() {
			t.Logf("after the canceled call the autobahn-js callee is gone; its stderr:\n%s", env.js.stderr.String())
		}
	})
}
