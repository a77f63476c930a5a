package auth

import (
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestTicket(t *testing.T) {
	a := Ticket(map[string]TicketPrincipal{
		"client1": {Ticket: "123sekret", Role: "frontend"},
		"nopass":  {Ticket: "", Role: "frontend"},
	})
	tests := []struct {
		name      string
		authid    string
		signature string
		startErr  wamp.URI // refusal of Start, "" if it challenges
		verifyErr wamp.URI // refusal of Verify, "" if it accepts
	}{
		{name: "success", authid: "client1", signature: "123sekret"},
		{name: "wrong ticket", authid: "client1", signature: "123sekreT", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "prefix of ticket", authid: "client1", signature: "123", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "empty ticket", authid: "client1", signature: "", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "empty configured ticket", authid: "nopass", signature: "", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "unknown authid", authid: "mallory", signature: "123sekret", verifyErr: wamp.ErrAuthenticationDenied},
		{name: "missing authid", startErr: wamp.ErrAuthenticationDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &Request{AuthID: tt.authid, AuthMethods: []string{"ticket"}}
			if tt.startErr != "" {
				_, _, err := a.Start(req)
				wantRefusal(t, err, tt.startErr)
				return
			}
			ch := start(t, a, req)
			if m := ch.Message(); m.Extra == nil || len(m.Extra) != 0 {
				t.Fatalf("CHALLENGE extra = %v, want {}", m.Extra)
			}
			id, err := ch.Verify(&wamp.Authenticate{Signature: tt.signature, Extra: wamp.Dict{}})
			if tt.verifyErr != "" {
				wantRefusal(t, err, tt.verifyErr)
				return
			}
			wantIdentity(t, id, err, Identity{AuthID: tt.authid, AuthRole: "frontend", AuthMethod: "ticket", AuthProvider: "static"})
		})
	}
}

func TestChallengeAnsweredOnce(t *testing.T) {
	a := Ticket(map[string]TicketPrincipal{"c": {Ticket: "t", Role: "r"}})
	ch := start(t, a, &Request{AuthID: "c"})
	if _, err := ch.Verify(&wamp.Authenticate{Signature: "t"}); err != nil {
		t.Fatal(err)
	}
	_, err := ch.Verify(&wamp.Authenticate{Signature: "t"})
	wantRefusal(t, err, wamp.ErrAuthenticationDenied)
}

func TestTicketCopiesPrincipals(t *testing.T) {
	p := map[string]TicketPrincipal{"c": {Ticket: "t", Role: "r"}}
	a := Ticket(p)
	delete(p, "c")
	start(t, a, &Request{AuthID: "c"})
}
