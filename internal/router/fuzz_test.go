package router

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/wamp"
)

// FuzzSession feeds a joined session arbitrary messages (a JSON list of
// WAMP message arrays, decoded by wamp.Decode) next to a callee and a
// subscriber: whatever comes, the router must not panic or hang, and the
// other sessions must keep working.
func FuzzSession(f *testing.F) {
	seeds := []string{
		`[[16,1,{"acknowledge":true,"exclude":[1,"x"]},"com.t",[1]]]`,
		`[[48,1,{"timeout":-5,"receive_progress":true},"com.p.x",[1],{"a":1}],[49,1,{"mode":"skip"}]]`,
		`[[64,1,{"match":"wildcard","invoke":"roundrobin"},"com..x"],[66,2,1]]`,
		`[[32,1,{"match":"prefix","get_retained":true},"com"],[34,2,99]]`,
		`[[70,1,{"progress":true}],[8,68,1,{},"x.y"],[8,48,1,{},"x.y"]]`,
		`[[1,"realm1",{}],[2,1,{}],[36,1,1,{}]]`,
		`[[6,{},"wamp.close.normal"]]`,
		`[[16,1,{"retain":true,"eligible_authrole":["anonymous"]},"com.t"]]`,
		`[[48,1,{},"wamp.session.add_testament",["com.t",["x"],{}],{"scope":"detached","publish_options":{"exclude":[1]}}]]`,
		`[[48,1,{},"wamp.subscription.match",["com.t"]],[48,2,{},"wamp.registration.lookup",["com.p",{"match":"prefix"}]]]`,
		`[[48,1,{},"wamp.session.list",[["anonymous"]]],[48,2,{},"wamp.registration.get",[1]],[48,3,{},"wamp.session.flush_testaments"]]`,
		// Payload passthru ("\u0000..." strings are binaries, see binaries).
		`[[16,1,{"acknowledge":true,"retain":true,"enc_algo":"mqtt"},"com.t","\u0000raw"],[16,2,{"acknowledge":true,"enc_key":"k"},"com.t",[1]]]`,
		`[[48,1,{"enc_algo":"x_ab","enc_serializer":"cbor"},"com.p.x","\u0000raw"],[48,2,{"ppt_scheme":"mqtt"},"com.p.y",["\u0000raw"],{"k":1}]]`,
		`[[70,1,{"enc_algo":"xbr"},"\u0000r"],[8,68,1,{"ppt_scheme":"wamp"},"x.y",["\u0000e"]],[16,3,{"ppt_scheme":"x","enc_algo":"mqtt"},"com.t","\u0000"]]`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var raw [][]any
		if json.Unmarshal([]byte(data), &raw) != nil {
			return
		}
		r := fuzzRouter(t)
		defer r.Close()
		callee := join(t, r.Gate(), "realm1", nil)
		callee.register("com.p", wamp.Dict{"match": "prefix"})
		sub := join(t, r.Gate(), "realm1", nil)
		sub.subscribe("com.t", nil)
		c := join(t, r.Gate(), "realm1", nil)
		for _, l := range raw {
			m, err := wamp.Decode(binaries(l))
			if err != nil {
				c.send(err)
				continue
			}
			c.send(m)
		}
		c.send(&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal})
		c.waitDone()
		other := join(t, r.Gate(), "realm1", nil)
		other.publish("com.t", nil, "still")
		for {
			if ev, ok := sub.recv().(*wamp.Event); ok && len(ev.Args) == 1 && ev.Args[0] == "still" {
				break
			}
		}
	})
}

// binaries turns the strings of l that start with NUL into binaries, as
// the JSON codec reads them, so that the seeds can hold passthru payloads.
func binaries(l []any) []any {
	for i, v := range l {
		switch v := v.(type) {
		case string:
			if rest, ok := strings.CutPrefix(v, "\x00"); ok {
				l[i] = []byte(rest)
			}
		case []any:
			l[i] = binaries(v)
		}
	}
	return l
}

// fuzzRouter is a router on which sessions may not kill one another: the
// fuzzed session could otherwise rightly end the sessions FuzzSession
// checks (wamp.session.kill_by_authrole("anonymous")).
func fuzzRouter(t *testing.T) *Router {
	noKill := authzFunc(func(_ *auth.Identity, _ auth.Action, uri wamp.URI) auth.Permission {
		return auth.Permission{Allow: !strings.HasPrefix(string(uri), "wamp.session.kill")}
	})
	r, err := New(Options{Realms: []RealmOptions{{Name: "realm1", Authorizer: noKill}}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
