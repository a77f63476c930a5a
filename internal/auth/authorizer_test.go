package auth

import (
	"sync"
	"testing"

	"github.com/junction-wamp/junction/internal/uriindex"
	"github.com/junction-wamp/junction/wamp"
)

var all = Actions{Call: true, Register: true, Publish: true, Subscribe: true}

func testAuthorizer() *StaticAuthorizer {
	return NewStaticAuthorizer(map[string][]Rule{
		// Crossbar's usual "everything" rule.
		"anonymous": {{URI: "", Match: uriindex.Prefix, Allow: all, DiscloseCaller: true, DisclosePublisher: true}},
		// The "frontend" role of Crossbar's wampcra example.
		"frontend": {
			{URI: "com.example.add2", Match: uriindex.Exact, Allow: Actions{Call: true}},
			{URI: "com.example.", Match: uriindex.Prefix, Allow: Actions{Publish: true}},
			{URI: "com.example.topic2", Match: uriindex.Exact},
			{URI: "com.foobar.topic1", Match: uriindex.Exact, Allow: Actions{Publish: true}},
		},
		"mixed": {
			{URI: "", Match: uriindex.Prefix, Allow: Actions{Subscribe: true}},
			{URI: "a.", Match: uriindex.Prefix, Allow: Actions{Call: true}},
			{URI: "a.b.", Match: uriindex.Prefix, Allow: Actions{Register: true}},
			{URI: "a..c", Match: uriindex.Wildcard, Allow: Actions{Publish: true}},
			{URI: "x..z", Match: uriindex.Wildcard, Allow: Actions{Publish: true}, DisclosePublisher: true},
			{URI: "x.y.", Match: uriindex.Wildcard, Allow: Actions{Call: true}, DiscloseCaller: true},
			{URI: "x.y.z", Match: uriindex.Exact, Allow: Actions{Subscribe: true}},
			{URI: "dup", Match: uriindex.Exact, Allow: Actions{Call: true}},
			{URI: "dup", Match: uriindex.Exact, Allow: Actions{Register: true}},
			{URI: "bad", Match: uriindex.Match(7), Allow: all},
		},
		"specific": {
			{URI: "p..r", Match: uriindex.Wildcard, Allow: Actions{Register: true}},
			{URI: "p.q.", Match: uriindex.Wildcard, Allow: Actions{Call: true}},
		},
		"nothing": nil,
	})
}

func TestStaticAuthorizer(t *testing.T) {
	a := testAuthorizer()
	allow, deny := Permission{Allow: true}, Permission{}
	disclose := Permission{Allow: true, Disclose: true}
	tests := []struct {
		role   string
		action Action
		uri    wamp.URI
		want   Permission
	}{
		{"anonymous", ActionCall, "com.example.add2", disclose},
		{"anonymous", ActionPublish, "x", disclose},
		{"anonymous", ActionRegister, "any.thing", allow},
		{"anonymous", ActionSubscribe, "any.thing", allow},
		{"anonymous", ActionSubscribe, "", allow},
		{"anonymous", Action("unknown"), "x", deny},

		{"frontend", ActionCall, "com.example.add2", allow},
		{"frontend", ActionPublish, "com.example.add2", deny}, // exact beats prefix
		{"frontend", ActionPublish, "com.example.topic1", allow},
		{"frontend", ActionPublish, "com.example.topic2", deny},
		{"frontend", ActionCall, "com.example.mul2", deny},
		{"frontend", ActionPublish, "com.foobar.topic1", allow},
		{"frontend", ActionPublish, "com.foobar.topic2", deny},
		{"frontend", ActionPublish, "com.example", deny}, // "com.example." is not a prefix

		{"mixed", ActionSubscribe, "z", allow},       // "" prefix matches all
		{"mixed", ActionSubscribe, "a.q", deny},      // longer prefix "a." wins
		{"mixed", ActionCall, "a.q", allow},          // "a."
		{"mixed", ActionCall, "a.b.q", deny},         // longest prefix "a.b."
		{"mixed", ActionRegister, "a.b.q", allow},    // longest prefix "a.b."
		{"mixed", ActionPublish, "a.q.c", allow},     // wildcard "a..c" beats prefix "a."
		{"mixed", ActionCall, "a.q.c", deny},         // wildcard "a..c" beats prefix "a."
		{"mixed", ActionPublish, "a.b.c", allow},     // wildcard "a..c" beats prefix "a.b."
		{"mixed", ActionPublish, "a.q.c.d", deny},    // "a..c" needs three components
		{"mixed", ActionCall, "a.q.c.d", allow},      // so prefix "a."
		{"mixed", ActionPublish, "x.q.z", disclose},  // wildcard "x..z" beats prefix ""
		{"mixed", ActionCall, "x.y.q", disclose},     // wildcard "x.y."
		{"mixed", ActionPublish, "x.y.z", deny},      // exact beats wildcards
		{"mixed", ActionSubscribe, "x.y.z", allow},   // exact
		{"mixed", ActionCall, "x.y.w", disclose},     // only "x.y." matches, not "x..z"
		{"mixed", ActionPublish, "x.y.q", deny},      // "x.y." does not allow publish
		{"mixed", ActionSubscribe, "x.y.q", deny},    // and beats the "" prefix
		{"mixed", ActionCall, "dup", deny},           // later duplicate wins
		{"mixed", ActionRegister, "dup", allow},      // later duplicate wins
		{"mixed", ActionCall, "bad", deny},           // invalid Match ignored
		{"mixed", ActionSubscribe, "bad", allow},     // so the "" prefix applies
		{"specific", ActionCall, "p.q.r", allow},     // concrete beats empty at position 1
		{"specific", ActionRegister, "p.w.r", allow}, // only "p..r" matches
		{"specific", ActionCall, "p.w.r", deny},
		{"nothing", ActionCall, "com.example.add2", deny},
		{"unknown role", ActionCall, "com.example.add2", deny},
	}
	for _, tt := range tests {
		got, err := a.Authorize(&Identity{AuthRole: tt.role}, tt.action, tt.uri, nil)
		if err != nil {
			t.Fatalf("%s %s %q: %v", tt.role, tt.action, tt.uri, err)
		}
		if got != tt.want {
			t.Errorf("%s %s %q = %+v, want %+v", tt.role, tt.action, tt.uri, got, tt.want)
		}
	}
	if got, _ := a.Authorize(nil, ActionCall, "x", nil); got != deny {
		t.Errorf("nil identity = %+v, want deny", got)
	}
}

func TestStaticAuthorizerConcurrent(t *testing.T) {
	a := testAuthorizer()
	id := &Identity{AuthRole: "frontend"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				if p, _ := a.Authorize(id, ActionCall, "com.example.add2", nil); !p.Allow {
					t.Error("call denied")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestStaticAuthorizerDoesNotAllocate(t *testing.T) {
	a := testAuthorizer()
	ids := []*Identity{{AuthRole: "frontend"}, {AuthRole: "mixed"}, {AuthRole: "anonymous"}, {AuthRole: "unknown"}}
	uris := []wamp.URI{"com.example.add2", "com.example.topic9", "a.q.c", "x.y.q", "nomatch"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, id := range ids {
			for _, u := range uris {
				a.Authorize(id, ActionPublish, u, nil)
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("Authorize allocates %v times per run, want 0", allocs)
	}
}

func TestStaticAuthorizerHasRole(t *testing.T) {
	a := testAuthorizer()
	if !a.HasRole("nothing") || !a.HasRole("frontend") || a.HasRole("admin") {
		t.Fatal("HasRole is wrong")
	}
}

func BenchmarkAuthorize(b *testing.B) {
	a := testAuthorizer()
	cases := []struct {
		name string
		role string
		uri  wamp.URI
	}{
		{"exact", "frontend", "com.example.add2"},
		{"prefix", "frontend", "com.example.some.long.topic.name"},
		{"wildcard", "mixed", "x.q.z"},
		{"everything", "anonymous", "com.example.some.long.topic.name"},
		{"denied", "frontend", "org.other.topic"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			id := &Identity{AuthRole: c.role}
			b.ReportAllocs()
			for b.Loop() {
				a.Authorize(id, ActionPublish, c.uri, nil)
			}
		})
	}
}
