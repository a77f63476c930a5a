package node

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// TestCryptosignPrincipalRealm: a static cryptosign principal with
// "realm" joins that realm whatever realm its HELLO names, even one the
// router does not have, as in Crossbar; one without joins the HELLO's.
func TestCryptosignPrincipalRealm(t *testing.T) {
	erinSeed := sha256.Sum256([]byte("junction cryptosign realm test: erin"))
	erinKey := ed25519.NewKeyFromSeed(erinSeed[:])
	pub := func(k ed25519.PrivateKey) string { return hex.EncodeToString(k.Public().(ed25519.PublicKey)) }
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "device", "allow-by-default": true}]},
			{"name": "realm2", "roles": [{"name": "device", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "auth": {"cryptosign": {"type": "static", "principals": {
				"dave": {"authorized_keys": ["` + pub(deviceKey()) + `"], "role": "device", "realm": "realm2"},
				"erin": {"authorized_keys": ["` + pub(erinKey) + `"], "role": "device"}}}}}}}]}]}`
	url := "ws://" + address(t, start(t, parse(t, doc, nil), t.TempDir()), web0) + "/ws"
	tests := []struct {
		name   string
		realm  wamp.URI
		authid string
		key    ed25519.PrivateKey
		want   wamp.URI // the realm joined, or the ABORT
	}{
		{"principal's realm", "realm1", "dave", deviceKey(), "realm2"},
		{"principal's realm from a realm that does not exist", "nowhere", "dave", deviceKey(), "realm2"},
		{"principal's realm by key alone", "realm1", "", deviceKey(), "realm2"},
		{"HELLO's realm", "realm1", "erin", erinKey, "realm1"},
		{"HELLO's realm that does not exist", "nowhere", "erin", erinKey, wamp.ErrNoSuchRealm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := client.Cryptosign(tt.key)
			s, err := joinWS(t, url, websocket.DialOptions{}, client.Config{Realm: tt.realm, AuthID: tt.authid, Auth: []client.Authenticator{cs}})
			if strings.HasPrefix(string(tt.want), "wamp.error.") {
				if wampURIOf(err) != tt.want {
					t.Errorf("join: %v, want ABORT %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("join: %v", err)
			}
			if d := s.Details(); d["realm"] != string(tt.want) || d["authrole"] != "device" {
				t.Errorf("WELCOME details %v, want realm %s", d, tt.want)
			}
		})
	}
}
