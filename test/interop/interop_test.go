// Package interop_test runs WAMP clients that Junction did not write,
// autobahn-js (Node) and autobahn-python (Twisted), against the router over
// its real transports. See README.md.
package interop_test

import (
	"maps"
	"slices"
	"testing"

	"go.uber.org/goleak"
)

// TestMain installs the clients' dependencies (scripts/install-test-deps.sh,
// quick when they are present) before the tests run; when that fails every
// test fails with the script's output.
func TestMain(m *testing.M) {
	depsErr = ensureDeps()
	goleak.VerifyTestMain(m)
}

var wantInvocations = map[string]int{"add2": 1, "progress": 1, "error": 1}

// wantGoodbye is the reason of the router's reply to a client's GOODBYE.
const wantGoodbye = "wamp.close.goodbye_and_out"

// TestWebSocket runs the whole scenario in one session for each client,
// serializer and authentication method.
func TestWebSocket(t *testing.T) {
	requireDeps(t)
	e := startRouter(t)
	runMatrix(t, e.ws, func(client, string) bool { return true })
}

// TestRawSocket runs the whole scenario over RawSocket: autobahn-python with
// each serializer and authentication method, autobahn-js (which speaks
// RawSocket with JSON only) with each authentication method.
func TestRawSocket(t *testing.T) {
	requireDeps(t)
	e := startRouter(t)
	runMatrix(t, e.rs, func(c client, ser string) bool { return c.name != jsClient.name || ser == "json" })
}

// runMatrix runs the scenario at url as parallel subtests
// CLIENT/SERIALIZER/AUTH, for each client and serializer that supported
// accepts, and each authentication method.
func runMatrix(t *testing.T, url string, supported func(c client, ser string) bool) {
	for _, c := range clients {
		for _, ser := range serializers {
			if !supported(c, ser) {
				continue
			}
			for _, a := range authCases {
				t.Run(c.name+"/"+ser+"/"+a.name, func(t *testing.T) {
					t.Parallel()
					r := run(t, c, argsFor(url, ser, a))
					checkJoined(t, r, ser, a)
				})
			}
		}
	}
}

// TestRefused checks that a wrong ticket and a wrong wampcra secret are
// refused with ABORT wamp.error.authentication_failed.
func TestRefused(t *testing.T) {
	requireDeps(t)
	e := startRouter(t)
	wrongTicket, wrongCRA := ticket, wampcraSalted
	wrongTicket.secret, wrongCRA.secret = "wrong", "wrong"
	cases := map[string]authCase{"wrong-ticket": wrongTicket, "wrong-wampcra-secret": wrongCRA}
	for _, c := range clients {
		for _, name := range slices.Sorted(maps.Keys(cases)) {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				args := argsFor(e.ws, "json", cases[name])
				args.expectFail = true
				r := run(t, c, args)
				if !r.Refused || r.Reason != "wamp.error.authentication_failed" {
					t.Errorf("%s: refused=%v reason=%q, want ABORT wamp.error.authentication_failed", c.name, r.Refused, r.Reason)
				}
			})
		}
	}
}

// TestCrossClient has one library's callee and subscriber serve the other
// library's caller and publisher, each with its own serializer (and, in the
// second case, its own transport).
func TestCrossClient(t *testing.T) {
	requireDeps(t)
	e := startRouter(t)
	cases := []struct {
		name           string
		callee, caller client
		calleeArgs     scenarioArgs
		callerArgs     scenarioArgs
	}{
		{
			name: "python-callee/js-caller", callee: pyClient, caller: jsClient,
			calleeArgs: argsFor(e.ws, "cbor", wampcra), callerArgs: argsFor(e.ws, "msgpack", ticket),
		},
		{
			name: "js-callee-rawsocket/python-caller", callee: jsClient, caller: pyClient,
			calleeArgs: argsFor(e.rs, "json", anonymous), callerArgs: argsFor(e.ws, "cbor", wampcraSalted),
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prefix := "com.interop.cross" + string(rune('a'+i))
			tc.calleeArgs.role, tc.calleeArgs.prefix = "callee", prefix
			tc.callerArgs.role, tc.callerArgs.prefix = "caller", prefix
			callee := start(t, tc.callee, tc.calleeArgs)
			callee.waitReady(t)
			checkGoodbye(t, run(t, tc.caller, tc.callerArgs))
			r := callee.wait(t)
			if !maps.Equal(r.Invocations, wantInvocations) {
				t.Errorf("callee invocations %v, want %v", r.Invocations, wantInvocations)
			}
			checkGoodbye(t, r)
		})
	}
}

func argsFor(url, ser string, a authCase) scenarioArgs {
	return scenarioArgs{url: url, realm: realm, serializer: ser, authmethod: a.method, authid: a.authid, secret: a.secret}
}

// checkJoined checks the identity and counts a role-"all" scenario reports.
func checkJoined(t *testing.T, r result, ser string, a authCase) {
	t.Helper()
	if r.Serializer != ser {
		t.Errorf("serializer %q, want %q", r.Serializer, ser)
	}
	if r.AuthRole != a.wantRole || r.AuthMethod != a.method {
		t.Errorf("authrole %q authmethod %q, want %q %q", r.AuthRole, r.AuthMethod, a.wantRole, a.method)
	}
	if (a.authid != "" && r.AuthID != a.authid) || r.AuthID == "" {
		t.Errorf("authid %q, want %q (or any non-empty one if that is empty)", r.AuthID, a.authid)
	}
	if !maps.Equal(r.Invocations, wantInvocations) {
		t.Errorf("invocations %v, want %v", r.Invocations, wantInvocations)
	}
	checkGoodbye(t, r)
}

// checkGoodbye checks that the router answered the client's GOODBYE.
func checkGoodbye(t *testing.T, r result) {
	t.Helper()
	if r.Goodbye != wantGoodbye {
		t.Errorf("%s: router's GOODBYE reason %q, want %q", r.Client, r.Goodbye, wantGoodbye)
	}
}
