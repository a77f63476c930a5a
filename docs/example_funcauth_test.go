package docs

import (
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// TestFunctionAuthExample runs authenticator.md's function authenticator
// (examples/function-auth: its node directory .crossbar and
// authenticator.py beside it) under Debian's /usr/bin/python3, and logs in
// with the right ticket and a wrong one, as the page shows.
func TestFunctionAuthExample(t *testing.T) {
	n := startPythonProject(t, "function-auth")
	url := "ws://" + n.Listeners()[0].Address + "/ws"
	s, err := joinWS(t, url, client.Config{Realm: "realm1", AuthID: "alice", Auth: []client.Authenticator{client.Ticket("secret123")}})
	if err != nil {
		t.Fatal(err)
	}
	d := s.Details()
	extra, _ := d["authextra"].(wamp.Dict)
	if d["authrole"] != "user" || d["authprovider"] != "function" || extra["greeting"] != "Hello, alice!" {
		t.Errorf("WELCOME details %v", d)
	}
	for _, authid := range []string{"alice", "mallory"} {
		_, err = joinWS(t, url, client.Config{Realm: "realm1", AuthID: authid, Auth: []client.Authenticator{client.Ticket("guess")}})
		if wampErr(err) != "com.example.invalid_ticket" {
			t.Errorf("%s with a wrong ticket: %v, want ABORT com.example.invalid_ticket", authid, err)
		}
	}
}
