package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

func TestAuthentication(t *testing.T) {
	good := []struct {
		name string
		cfg  client.Config
	}{
		{"anonymous", client.Config{}},
		{"ticket", client.Config{AuthID: "alice", Auth: []client.Authenticator{client.Ticket("alice-ticket")}}},
		{"wampcra", client.Config{AuthID: "bob", Auth: []client.Authenticator{client.WampCRA("bob-secret")}}},
		{"wampcra salted", client.Config{AuthID: "carol", Auth: []client.Authenticator{client.WampCRA("carol-pw")}}},
		{"cryptosign", client.Config{AuthID: "dave", Auth: []client.Authenticator{client.Cryptosign(cryptosignKey)}}},
	}
	bad := []struct {
		name string
		cfg  client.Config
		uri  wamp.URI
	}{
		{"wrong ticket", client.Config{AuthID: "alice", Auth: []client.Authenticator{client.Ticket("nope")}}, wamp.ErrAuthenticationDenied},
		{"wrong secret", client.Config{AuthID: "bob", Auth: []client.Authenticator{client.WampCRA("nope")}}, wamp.ErrAuthenticationDenied},
		{"unknown authid", client.Config{AuthID: "mallory", Auth: []client.Authenticator{client.Ticket("x")}}, wamp.ErrAuthenticationDenied},
		{"no such realm", client.Config{Realm: "realm.none"}, wamp.ErrNoSuchRealm},
	}
	forEachTransport(t, func(t *testing.T, e *env) {
		for _, tc := range good {
			s := e.join(tc.cfg)
			wantRole := "user"
			if tc.name == "anonymous" {
				wantRole = "anonymous"
			}
			if s.Details()["authrole"] != wantRole {
				t.Errorf("%s: authrole = %v, want %s", tc.name, s.Details()["authrole"], wantRole)
			}
		}
		for _, tc := range bad {
			err := e.joinErr(tc.cfg)
			var re *wamp.RequestError
			if !errors.As(err, &re) || re.URI != tc.uri {
				t.Errorf("%s: join error = %v, want %s", tc.name, err, tc.uri)
			}
		}
	})
}

// joinErr is join for a session that must be refused.
func (e *env) joinErr(cfg client.Config) error {
	if cfg.Realm == "" {
		cfg.Realm = realm
	}
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := e.dial(c)
	if err != nil {
		return err
	}
	s, err := client.Join(c, p, cfg)
	if err == nil {
		s.Close()
		return errors.New("join succeeded")
	}
	return err
}

// clientConfig is the ticket login of a known principal.
func clientConfig(authid string) client.Config {
	return client.Config{AuthID: authid, Auth: []client.Authenticator{client.Ticket(authid + "-ticket")}}
}
