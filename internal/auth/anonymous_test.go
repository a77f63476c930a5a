package auth

import (
	"regexp"
	"testing"
)

func TestAnonymous(t *testing.T) {
	serial := regexp.MustCompile(`^[A-Z2-7]{4}(-[A-Z2-7]{4}){5}$`)
	tests := []struct {
		name             string
		o                AnonymousOptions
		authid           string // asked for in HELLO
		wantRole, wantID string // wantID "" means a random serial
	}{
		{name: "default role", wantRole: "anonymous"},
		{name: "configured role", o: AnonymousOptions{Role: "guest"}, wantRole: "guest"},
		{name: "client authid ignored", authid: "alice", wantRole: "anonymous"},
		{name: "configured authid", o: AnonymousOptions{AuthID: "visitor"}, authid: "alice", wantRole: "anonymous", wantID: "visitor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAnonymous(tt.o)
			if a.Method() != "anonymous" {
				t.Fatalf("Method = %q", a.Method())
			}
			id, ch, err := a.Start(&Request{AuthID: tt.authid, Details: map[string]any{"authrole": "admin"}})
			if err != nil || ch != nil || id == nil {
				t.Fatalf("Start = %v, %v, %v; want an identity", id, ch, err)
			}
			if id.AuthRole != tt.wantRole || id.AuthMethod != "anonymous" || id.AuthProvider != "static" {
				t.Fatalf("identity = %+v", id)
			}
			if tt.wantID != "" && id.AuthID != tt.wantID {
				t.Fatalf("authid = %q, want %q", id.AuthID, tt.wantID)
			}
			if tt.wantID == "" && !serial.MatchString(id.AuthID) {
				t.Fatalf("authid = %q, want a serial like XXXX-XXXX-...", id.AuthID)
			}
		})
	}
	if a := Anonymous("guest"); a.(*anonymous).o != (AnonymousOptions{Role: "guest"}) {
		t.Errorf("Anonymous(guest) options = %+v", a.(*anonymous).o)
	}
}

func TestAnonymousAuthIDsAreUnique(t *testing.T) {
	a := Anonymous("")
	seen := make(map[string]bool)
	for range 1000 {
		id, _, _ := a.Start(&Request{})
		if seen[id.AuthID] {
			t.Fatalf("authid %q given twice", id.AuthID)
		}
		seen[id.AuthID] = true
	}
}
