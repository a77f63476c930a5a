package router

import (
	"context"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/junction-wamp/junction/wamp"
)

// recordHandler keeps the messages of the log records it handles.
type recordHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

func (h *recordHandler) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

func TestSlowConsumer(t *testing.T) {
	logs := &recordHandler{}
	bubble(t, Options{Logger: slog.New(logs)}, func(t *testing.T, r *Router) {
		var slow []*client
		for range 2 {
			// Room for 2 events.
			c := joinPeer(t, r.Gate(), "realm1", nil, newFakePeer(2))
			c.subscribe("com.t", nil)
			c.register(wamp.URI("com.p"+strconv.Itoa(len(slow))), nil)
			slow = append(slow, c)
		}
		fast := join(t, r.Gate(), "realm1", nil)
		fast.subscribe("com.t", nil)
		pub := join(t, r.Gate(), "realm1", nil)
		for i := range 4 {
			pub.publish("com.t", nil, i)
		}
		for _, c := range slow {
			c.waitDone()
		}
		for range 4 {
			expect[*wamp.Event](fast)
		}
		st := r.Stats()
		if st.SlowConsumers != 2 || st.Sessions != 2 || st.Realms["realm1"].Registrations != 0 {
			t.Errorf("stats %+v", st)
		}
		if n := logs.count("slow consumer disconnected"); n != 1 {
			t.Errorf("%d slow consumer lines, want 1 (rate limited)", n)
		}
		// The subscription lives on for the fast subscriber only.
		pub.publish("com.t", nil)
		expect[*wamp.Event](fast)
	})
}

func TestStats(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "a"}, {Name: "b"}}}, func(t *testing.T, r *Router) {
		a := join(t, r.Gate(), "a", nil)
		a.subscribe("com.t", nil)
		a.register("com.p", nil)
		join(t, r.Gate(), "b", nil)
		synctest.Wait() // the senders count what their peers took after Send
		st := r.Stats()
		want := RealmStats{Sessions: 1, Subscriptions: 1, Registrations: 1, Subscribers: 1, Callees: 1, SubscriptionWeight: 1, RegistrationWeight: 1,
			Joins: map[string]uint64{"anonymous": 1}, AuthFailures: map[string]uint64{}}
		if st.Sessions != 2 || !reflect.DeepEqual(st.Realms["a"], want) || st.Realms["b"].Sessions != 1 {
			t.Errorf("stats %+v", st)
		}
		if st.MessagesIn != 4 || st.MessagesOut != 4 {
			t.Errorf("messages in %d out %d, want 4 and 4", st.MessagesIn, st.MessagesOut)
		}
	})
}

func TestRealmOptions(t *testing.T) {
	if _, err := New(Options{Realms: []RealmOptions{{Name: "a"}, {Name: "a"}}}); err == nil {
		t.Error("duplicate realm accepted")
	}
	if _, err := New(Options{Realms: []RealmOptions{{Name: "bad realm"}}}); err == nil {
		t.Error("invalid realm name accepted")
	}
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := r.AddRealm(RealmOptions{Name: "a"}); err == nil {
		t.Error("AddRealm after Close accepted")
	}
}

func TestStrictURIs(t *testing.T) {
	bubble(t, Options{Realms: []RealmOptions{{Name: "realm1", StrictURIs: true}}}, func(t *testing.T, r *Router) {
		c := join(t, r.Gate(), "realm1", nil)
		c.send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: "com.Upper"})
		c.expectError(wamp.ErrInvalidURI)
		c.subscribe("com.lower_1", nil)
	})
}

// TestImports enforces the design rule: the router imports only wamp,
// uriindex, auth, lograte, meter and the standard library.
func TestImports(t *testing.T) {
	allowed := map[string]bool{
		"github.com/junction-wamp/junction/wamp":                true,
		"github.com/junction-wamp/junction/internal/uriindex":   true,
		"github.com/junction-wamp/junction/internal/auth":       true,
		"github.com/junction-wamp/junction/internal/lograte":    true,
		"github.com/junction-wamp/junction/internal/loginguard": true,
		"github.com/junction-wamp/junction/internal/meter":      true,
		"github.com/junction-wamp/junction/internal/unsent":     true,
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.Split(p, "/")[0], ".") && !allowed[p] {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
