// Package interop_test runs WAMP clients that Junction did not write,
// autobahn-js and wampy.js (Node) and autobahn-python (Twisted), against the junction
// binary, started from a config file, over its real transports. See
// README.md.
package interop_test

import (
	"maps"
	"testing"

	"github.com/junction-wamp/junction/test/internal/nodeproc"
	"go.uber.org/goleak"
)

// TestMain installs the dependencies (scripts/install-test-deps.sh, quick
// when they are present) and builds the junction binary once (with -race
// when the tests run with it); when either fails, every test that needs it
// fails with the reason. After the tests, no goroutine may be left.
func TestMain(m *testing.M) {
	nodeproc.Main(m, harness, func() error { return goleak.Find() })
}

var wantInvocations = map[string]int{"add2": 1, "progress": 1, "error": 1}

// wantGoodbye is the reason of the router's reply to a client's GOODBYE.
const wantGoodbye = "wamp.close.goodbye_and_out"

// TestWebSocket runs the whole scenario in one session for each client,
// serializer and authentication method. The node offers permessage-deflate:
// autobahn-js (Node's ws module) takes it, which the node logs at debug
// level for each connection; autobahn-python offers no compression.
func TestWebSocket(t *testing.T) {
	harness.RequireDeps(t)
	n := startNodeWith(t, nodeproc.Options{Debug: true})
	t.Run("matrix", func(t *testing.T) {
		runMatrix(t, n, "websocket", func(client, string) bool { return true })
	})
	n.proc.WaitLog(t, "a permessage-deflate connection per autobahn-js and wampy.js case", 2*len(serializers)*len(authCases),
		nodeproc.MsgIs("websocket: permessage-deflate"))
}

// TestRawSocket runs the whole scenario over RawSocket: autobahn-python with
// each serializer and authentication method, autobahn-js (which speaks
// RawSocket with JSON only) with each authentication method.
func TestRawSocket(t *testing.T) {
	harness.RequireDeps(t)
	n := startNode(t)
	runMatrix(t, n, "rawsocket", func(c client, ser string) bool {
		return c.name == pyClient.name || c.name == jsClient.name && ser == "json"
	})
}

// TestWebSocketProxy runs the scenario through the node's WebSocket reverse
// proxy, for each client and serializer, anonymously: the proxy relays the
// client's frames to the node's WebSocket path on a Unix socket.
func TestWebSocketProxy(t *testing.T) {
	harness.RequireDeps(t)
	n := startNode(t)
	for _, c := range clients {
		for _, ser := range serializers {
			t.Run(c.name+"/"+ser, func(t *testing.T) {
				t.Parallel()
				r := run(t, c, argsFor("ws://"+n.addrs[webTransport]+"/"+wsProxyPath, ser, anonymous))
				checkJoined(t, r, ser, anonymous)
			})
		}
	}
}

// TestUniversal runs the scenario over the universal transport's one
// port, RawSocket and WebSocket: autobahn-python with each serializer and
// authentication method, autobahn-js with JSON (its RawSocket speaks only
// JSON) and each method.
func TestUniversal(t *testing.T) {
	harness.RequireDeps(t)
	n := startNode(t)
	for _, tr := range []string{"universal-rawsocket", "universal-websocket"} {
		t.Run(tr, func(t *testing.T) {
			runMatrix(t, n, tr, func(c client, ser string) bool {
				return c.name == pyClient.name || c.name == jsClient.name && ser == "json"
			})
		})
	}
}

// runMatrix runs the scenario on n over transport tr as parallel subtests
// CLIENT/SERIALIZER/AUTH, for each client and serializer that supported
// accepts, and each authentication method.
func runMatrix(t *testing.T, n *node, tr string, supported func(c client, ser string) bool) {
	for _, c := range clients {
		for _, ser := range serializers {
			if !supported(c, ser) {
				continue
			}
			for _, a := range authCases {
				t.Run(c.name+"/"+ser+"/"+a.name, func(t *testing.T) {
					t.Parallel()
					r := run(t, c, argsFor(n.url(tr, a), ser, a))
					checkJoined(t, r, ser, a)
				})
			}
		}
	}
}

// TestEventHistory: autobahn-python reads the realm store's event
// histories with wamp.subscription.get_events (py/scenario.py --role
// history), over WebSocket and RawSocket with each serializer. The runs
// share the node's histories, so they run one after the other, each
// finding its own events (tagged with its prefix) the newest.
func TestEventHistory(t *testing.T) {
	harness.RequireDeps(t)
	n := startNode(t)
	for _, tr := range []string{"websocket", "rawsocket"} {
		for _, ser := range serializers {
			t.Run("python/"+tr+"/"+ser, func(t *testing.T) {
				args := argsFor(n.url(tr, anonymous), ser, anonymous)
				args.role = "history"
				r := run(t, pyClient, args)
				if r.Role != "history" || r.Serializer != ser {
					t.Errorf("role %q serializer %q, want history %s", r.Role, r.Serializer, ser)
				}
				checkGoodbye(t, r)
			})
		}
	}
}

// TestSubscribeEverything: autobahn-python subscribes to the empty prefix
// (py/scenario.py --role everything), which the router accepts as
// Crossbar does, and gets the events of every topic, over WebSocket and
// RawSocket with each serializer; a role without subscribe permission on
// the URI "" (ticket's user) is refused with wamp.error.not_authorized.
func TestSubscribeEverything(t *testing.T) {
	harness.RequireDeps(t)
	n := startNode(t)
	for _, tr := range []string{"websocket", "rawsocket"} {
		for _, ser := range serializers {
			for _, tc := range []struct {
				auth authCase
				want string
			}{{anonymous, "subscribed"}, {ticket, "wamp.error.not_authorized"}} {
				t.Run("python/"+tr+"/"+ser+"/"+tc.auth.name, func(t *testing.T) {
					t.Parallel()
					args := argsFor(n.url(tr, tc.auth), ser, tc.auth)
					args.role = "everything"
					if r := run(t, pyClient, args); r.Everything != tc.want {
						t.Errorf("everything %q, want %q", r.Everything, tc.want)
					}
				})
			}
		}
	}
}

// TestRefused checks that a wrong ticket, a wrong wampcra secret and a
// cryptosign key that is not authorized, and each of these methods with an
// authid the node does not know, are refused with ABORT
// wamp.error.authentication_denied (an unknown authid is challenged like a
// real one, then refused the same way), and that an anonymous client is
// refused on the ticket-only WebSocket path. Each client library gets a
// node of its own and tries one attempt after the other: after each
// failure the node holds back the next CHALLENGE from 127.0.0.1 a little
// longer (its login throttle), and attempts that arrived all at once
// would be refused with junction.error.login_throttled. The node logs
// each refusal as a warning "join refused" (at most 5 lines per client
// address in 10 seconds, then the count held back).
func TestRefused(t *testing.T) {
	harness.RequireDeps(t)
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := startNodeWith(t, nodeproc.Options{AllowedWarnings: []string{"join refused", "join refused: lines held back"}})
			for _, tc := range refusals(n) {
				t.Run(tc.name, func(t *testing.T) {
					args := argsFor(tc.url, "json", tc.auth)
					args.expectFail = true
					r := run(t, c, args)
					if !r.Refused || r.Reason != tc.wantReason {
						t.Errorf("%s: refused=%v reason=%q, want ABORT %s", c.name, r.Refused, r.Reason, tc.wantReason)
					}
				})
			}
			n.proc.WaitLog(t, "the refusals logged", 5, nodeproc.MsgIs("join refused", "error", "wamp.error.authentication_denied"))
		})
	}
}

// refusal is a join the node must refuse.
type refusal struct {
	name       string
	url        string
	auth       authCase
	wantReason string
}

func refusals(n *node) []refusal {
	const denied = "wamp.error.authentication_denied"
	wrongTicket, wrongCRA, wrongKey := ticket, wampcraSalted, cryptosign
	wrongTicket.secret, wrongCRA.secret = "wrong", "wrong"
	wrongKey.secret = "00000000000000000000000000000000000000000000000000000000000000ff"
	unknownTicket, unknownCRA, unknownKey := ticket, wampcraSalted, cryptosign
	unknownTicket.authid, unknownCRA.authid, unknownKey.authid = "mallory", "mallory", "mallory"
	return []refusal{
		{"wrong-ticket", n.url("websocket", wrongTicket), wrongTicket, denied},
		{"wrong-wampcra-secret", n.url("websocket", wrongCRA), wrongCRA, denied},
		{"wrong-cryptosign-key", n.url("websocket", wrongKey), wrongKey, denied},
		{"unknown-ticket-authid", n.url("websocket", unknownTicket), unknownTicket, denied},
		{"unknown-wampcra-authid", n.url("websocket", unknownCRA), unknownCRA, denied},
		{"unknown-cryptosign-authid", n.url("websocket", unknownKey), unknownKey, denied},
		{"anonymous-on-ticket-path", n.url("websocket", ticket), anonymous, "wamp.error.no_auth_method"},
	}
}

// TestCrossClient has one library's callee and subscriber serve another
// library's caller and publisher, each with its own serializer (and, in the
// second case, its own transport).
func TestCrossClient(t *testing.T) {
	harness.RequireDeps(t)
	n := startNode(t)
	cases := []struct {
		name           string
		callee, caller client
		calleeArgs     scenarioArgs
		callerArgs     scenarioArgs
	}{
		{
			name: "python-callee/js-caller", callee: pyClient, caller: jsClient,
			calleeArgs: argsFor(n.url("websocket", cryptosign), "cbor", cryptosign),
			callerArgs: argsFor(n.url("websocket", ticket), "msgpack", ticket),
		},
		{
			name: "js-callee-rawsocket/python-caller", callee: jsClient, caller: pyClient,
			calleeArgs: argsFor(n.url("rawsocket", anonymous), "json", anonymous),
			callerArgs: argsFor(n.url("websocket", wampcraSalted), "cbor", wampcraSalted),
		},
		{
			name: "wampy-callee/python-caller", callee: wampyClient, caller: pyClient,
			calleeArgs: argsFor(n.url("websocket", ticket), "msgpack", ticket),
			callerArgs: argsFor(n.url("websocket", anonymous), "json", anonymous),
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runPair(t, "com.interop.cross"+string(rune('a'+i)), tc.callee, tc.calleeArgs, tc.caller, tc.callerArgs)
		})
	}
}

// TestPassthru: two autobahn-python sessions (py/scenario.py
// --payload-codec), callee and caller, send every payload in payload
// transparency mode (passthru: opaque bytes with enc_algo, as autobahn
// and Crossbar send them), each with another serializer, over WebSocket
// and RawSocket: calls, progressive results, the callee's error and the
// event come through intact, and each session's codec decoded what it got
// (the callee 3 invocations and the event; the caller 2 results, 3
// progressive ones and the error).
func TestPassthru(t *testing.T) {
	harness.RequireDeps(t)
	n := startNode(t)
	for i, ser := range serializers {
		other := serializers[(i+1)%len(serializers)]
		tr := []string{"websocket", "rawsocket"}[i%2]
		t.Run("python/"+tr+"/"+ser+"-"+other, func(t *testing.T) {
			t.Parallel()
			runPassthruPair(t, "com.interop.passthru"+ser,
				argsFor(n.url(tr, anonymous), ser, anonymous), argsFor(n.url("websocket", anonymous), other, anonymous))
		})
	}
}

// runPassthruPair is runPair for two autobahn-python sessions in
// passthru mode (--payload-codec), each of whose codecs must have
// decoded every payload it got: the callee 3 invocations and the event,
// the caller 2 results, 3 progressive ones and the error.
func runPassthruPair(t *testing.T, prefix string, callee, caller scenarioArgs) {
	t.Helper()
	callee.payloadCodec, caller.payloadCodec = true, true
	callee.role, callee.prefix = "callee", prefix
	caller.role, caller.prefix = "caller", prefix
	p := start(t, pyClient, callee)
	p.waitReady(t)
	rc := run(t, pyClient, caller)
	r := p.wait(t)
	if !maps.Equal(r.Invocations, wantInvocations) || r.Decoded != 4 || rc.Decoded != 6 {
		t.Errorf("callee invocations %v, decoded %d (want %v, 4); caller decoded %d (want 6)", r.Invocations, r.Decoded, wantInvocations, rc.Decoded)
	}
	checkGoodbye(t, r)
	checkGoodbye(t, rc)
}

// runPair runs the scenario split in two under prefix: callee (role
// callee: registers and subscribes) until it is ready, then caller (role
// caller: calls and publishes); both must succeed and leave with the
// router's GOODBYE, the callee invoked once per procedure.
func runPair(t *testing.T, prefix string, callee client, calleeArgs scenarioArgs, caller client, callerArgs scenarioArgs) {
	t.Helper()
	calleeArgs.role, calleeArgs.prefix = "callee", prefix
	callerArgs.role, callerArgs.prefix = "caller", prefix
	p := start(t, callee, calleeArgs)
	p.waitReady(t)
	checkGoodbye(t, run(t, caller, callerArgs))
	r := p.wait(t)
	if !maps.Equal(r.Invocations, wantInvocations) {
		t.Errorf("callee invocations %v, want %v", r.Invocations, wantInvocations)
	}
	checkGoodbye(t, r)
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
