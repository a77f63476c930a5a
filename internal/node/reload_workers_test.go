package node

import (
	"slices"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// TestReloadGuests: a changed guest worker is stopped and started again
// with its new config, an added one started, a removed one stopped.
func TestReloadGuests(t *testing.T) {
	dir := t.TempDir()
	guest := func(word string) string { return shGuest("echo "+word+"; exec sleep 600", "") }
	n, logs := startGuests(t, guestDoc(guest("one")), dir)
	guestLine(t, logs, "workers[1]", "stdout", "one")

	rep, err := n.Reload(testCtx(t), parse(t, guestDoc(guest("two"), guest("three")), nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(rep.Applied); !slices.Equal(got, []string{"workers[1]", "workers[2]"}) || len(rep.Restart)+len(rep.Failed) != 0 {
		t.Errorf("report %+v, want workers[1] restarted and workers[2] started", rep)
	}
	stopped := func(path string) func(logRecord) bool {
		return func(r logRecord) bool { return r.msg == "guest stopped" && r.attrs["worker"] == path }
	}
	logs.nth(t, 1, "workers[1] stopped", stopped("workers[1]"))
	guestLine(t, logs, "workers[1]", "stdout", "two")
	guestLine(t, logs, "workers[2]", "stdout", "three")

	if _, err := n.Reload(testCtx(t), parse(t, guestDoc(guest("two")), nil)); err != nil {
		t.Fatal(err)
	}
	logs.nth(t, 1, "workers[2] stopped", stopped("workers[2]"))
	if got := len(logs.records(stopped("workers[1]"))); got != 1 {
		t.Errorf("workers[1], unchanged, stopped %d times, want once", got)
	}
}

// TestReloadComponent: a router's bridge component whose config changed
// is stopped (its registration goes) and started again with the new one.
func TestReloadComponent(t *testing.T) {
	target, _ := webTarget(t)
	doc := func(proc string) string {
		return `{"version": 2, "workers": [{"type": "router",
			"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
			"transports": [{"type": "websocket", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}}],
			"components": [{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1",
				"extra": {"procedure": "` + proc + `", "baseurl": "` + target.URL + `/api"}}]}]}`
	}
	n := start(t, parse(t, doc("com.one"), nil), t.TempDir())
	s := mustWS(t, "ws://"+address(t, n, web0), websocket.DialOptions{}, client.Config{Realm: "realm1"})
	get := wamp.Dict{"method": "GET", "url": "hello"}
	if _, err := s.Call(testCtx(t), "com.one", nil, wamp.ObjectOf(get)); err != nil {
		t.Fatalf("call com.one: %v", err)
	}
	rep, err := n.Reload(testCtx(t), parse(t, doc("com.two"), nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(rep.Applied); !slices.Equal(got, []string{"workers[0].components[0]"}) || len(rep.Failed) != 0 {
		t.Errorf("report %+v, want the component restarted", rep)
	}
	if _, err := s.Call(testCtx(t), "com.one", nil, wamp.ObjectOf(get)); wampURIOf(err) != wamp.ErrNoSuchProcedure {
		t.Errorf("call com.one after the reload: %v, want %s", err, wamp.ErrNoSuchProcedure)
	}
	if _, err := s.Call(testCtx(t), "com.two", nil, wamp.ObjectOf(get)); err != nil {
		t.Errorf("call com.two after the reload: %v", err)
	}
	if err := n.WaitComponents(testCtx(t)); err != nil {
		t.Errorf("WaitComponents: %v", err)
	}
}
