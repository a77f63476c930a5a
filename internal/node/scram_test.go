package node

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/argon2"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// saltedPassword derives the SCRAM salted password as autobahn does: for
// argon2id-13, the base64 (unpadded, as in Argon2's encoded hash) of the
// 32-byte Argon2id hash, as ASCII bytes; for pbkdf2, the 32-byte
// PBKDF2-HMAC-SHA256 key of the raw salt.
func saltedPassword(t *testing.T, kdf, password string, salt []byte, iterations, memory int) []byte {
	t.Helper()
	switch kdf {
	case "argon2id-13":
		raw := argon2.IDKey([]byte(password), salt, uint32(iterations), uint32(memory), 1, 32)
		return []byte(base64.RawStdEncoding.EncodeToString(raw))
	case "pbkdf2":
		k, err := pbkdf2.Key(sha256.New, password, salt, iterations, 32)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	t.Fatalf("kdf %q", kdf)
	return nil
}

func mac(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// scramCredential is a principal's config members, as autobahn's
// derive_scram_credential writes them.
func scramCredential(t *testing.T, kdf, password string, iterations, memory int) string {
	t.Helper()
	salt := make([]byte, 16)
	rand.Read(salt)
	sp := saltedPassword(t, kdf, password, salt, iterations, memory)
	stored := sha256.Sum256(mac(sp, "Client Key"))
	return fmt.Sprintf(`"kdf": %q, "iterations": %d, "memory": %d, "salt": %q, "stored-key": %q, "server-key": %q`,
		kdf, iterations, memory, hex.EncodeToString(salt), hex.EncodeToString(stored[:]), hex.EncodeToString(mac(sp, "Server Key")))
}

// scramClient is a WAMP-SCRAM client written from autobahn's AuthScram.
type scramClient struct {
	t                *testing.T
	authid, password string
	nonce            string
	authMessage      string
	salted           []byte
}

func newScramClient(t *testing.T, authid, password string) *scramClient {
	n := make([]byte, 16)
	rand.Read(n)
	return &scramClient{t: t, authid: authid, password: password, nonce: base64.StdEncoding.EncodeToString(n)}
}

func (c *scramClient) Method() string       { return "scram" }
func (c *scramClient) AuthExtra() wamp.Dict { return wamp.Dict{"nonce": c.nonce} }

func (c *scramClient) Respond(ch *wamp.Challenge) (string, wamp.Dict, error) {
	e := ch.Extra
	iterations, _ := wamp.AsInt(e["iterations"])
	memory, _ := wamp.AsInt(e["memory"])
	salt, err := base64.StdEncoding.DecodeString(e["salt"].(string))
	if err != nil {
		return "", nil, err
	}
	server := e["nonce"].(string)
	if !strings.HasPrefix(server, strings.TrimRight(c.nonce, "=")[:20]) {
		return "", nil, fmt.Errorf("server nonce %q does not extend the client's", server)
	}
	c.authMessage = "n=" + c.authid + ",r=" + c.nonce + ",r=" + server + ",s=" + e["salt"].(string) +
		",i=" + strconv.Itoa(int(iterations)) + ",c=,r=" + server
	c.salted = saltedPassword(c.t, e["kdf"].(string), c.password, salt, int(iterations), int(memory))
	clientKey := mac(c.salted, "Client Key")
	stored := sha256.Sum256(clientKey)
	proof := mac(stored[:], c.authMessage)
	for i := range proof {
		proof[i] ^= clientKey[i]
	}
	return base64.StdEncoding.EncodeToString(proof), nil, nil
}

// serverSignatureOK checks WELCOME's scram_server_signature.
func (c *scramClient) serverSignatureOK(details wamp.Dict) bool {
	extra, _ := wamp.AsDict(details["authextra"])
	sig, _ := extra["scram_server_signature"].(string)
	return sig != "" && sig == base64.StdEncoding.EncodeToString(mac(mac(c.salted, "Server Key"), c.authMessage))
}

// scramNode starts a node whose path "ws" has static SCRAM principals
// alice (argon2id-13) and bob (pbkdf2), path "dyn" asks
// com.example.scramauth, registered here over path "svc", which knows
// carol (argon2id-13). It returns the base URL "ws://ADDR/".
func scramNode(t *testing.T) string {
	t.Helper()
	doc := `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "user", "allow-by-default": true}, {"name": "svc", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"ws": {"type": "websocket", "auth": {"scram": {"type": "static", "principals": {
				"alice": {"role": "user", ` + scramCredential(t, "argon2id-13", "alice-pw", 4, 512) + `},
				"bob": {"role": "user", ` + scramCredential(t, "pbkdf2", "bob-pw", 1000, 1) + `}}}}},
			"dyn": {"type": "websocket", "auth": {"scram": {"type": "dynamic", "authenticator": "com.example.scramauth"}}},
			"svc": {"type": "websocket", "auth": {"ticket": {"type": "static", "principals": {
				"svc": {"ticket": "svc-secret", "role": "svc"}}}}}}}]}]}`
	n := start(t, parse(t, doc, nil), t.TempDir())
	base := "ws://" + address(t, n, web0) + "/"
	var carol map[string]any
	if err := json.Unmarshal([]byte("{"+scramCredential(t, "argon2id-13", "carol-pw", 3, 256)+"}"), &carol); err != nil {
		t.Fatal(err)
	}
	svc := mustWS(t, base+"svc", websocket.DialOptions{},
		client.Config{Realm: "realm1", AuthID: "svc", Auth: []client.Authenticator{client.Ticket("svc-secret")}})
	authenticate := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		if inv.Args[1] != "carol" {
			return nil, &wamp.RequestError{URI: "com.example.no_such_user", Args: wamp.List{"no such user"}}
		}
		answer := wamp.Dict{"role": "user", "extra": wamp.Dict{"plan": "gold"}}
		for k, v := range carol {
			answer[k] = v
		}
		return &client.Result{Args: wamp.List{answer}}, nil
	}
	if _, err := svc.Register(testCtx(t), "com.example.scramauth", authenticate, nil); err != nil {
		t.Fatal(err)
	}
	return base
}

func TestScramGoClient(t *testing.T) {
	base := scramNode(t)
	tests := []struct {
		path, authid, password string
		wantErr                wamp.URI
	}{
		{"ws", "alice", "alice-pw", ""},
		{"ws", "bob", "bob-pw", ""},
		{"ws", "alice", "wrong", wamp.ErrAuthenticationDenied},
		{"ws", "bob", "alice-pw", wamp.ErrAuthenticationDenied},
		{"ws", "mallory", "alice-pw", wamp.ErrAuthenticationDenied}, // a decoy
		{"dyn", "carol", "carol-pw", ""},
		{"dyn", "carol", "wrong", wamp.ErrAuthenticationDenied},
		{"dyn", "dave", "carol-pw", "com.example.no_such_user"},
	}
	for _, tt := range tests {
		t.Run(tt.path+"/"+tt.authid+"/"+tt.password, func(t *testing.T) {
			c := newScramClient(t, tt.authid, tt.password)
			s, err := joinWS(t, base+tt.path, websocket.DialOptions{},
				client.Config{Realm: "realm1", AuthID: tt.authid, Auth: []client.Authenticator{c}})
			if tt.wantErr != "" {
				if wampURIOf(err) != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := s.Details()
			if d["authid"] != tt.authid || d["authrole"] != "user" || d["authmethod"] != "scram" || !c.serverSignatureOK(d) {
				t.Errorf("WELCOME details = %v", d)
			}
			if extra, _ := wamp.AsDict(d["authextra"]); tt.path == "dyn" && extra["plan"] != "gold" {
				t.Errorf("authextra = %v, want the authenticator's extra too", extra)
			}
		})
	}
}

// TestScramAutobahn: autobahn-python logs in with its own SCRAM client
// (argon2id-13: its pbkdf2 client raises before answering, see
// docs/configuration.md) and checks the router's signature.
func TestScramAutobahn(t *testing.T) {
	base := scramNode(t)
	for _, tt := range []struct {
		path, authid, password string
		ok                     bool
	}{
		{"ws", "alice", "alice-pw", true},
		{"ws", "alice", "wrong", false},
		{"dyn", "carol", "carol-pw", true},
	} {
		cmd := exec.CommandContext(testCtx(t), "/usr/bin/python3", "testdata/scram_client.py", base+tt.path, "realm1", tt.authid, tt.password)
		out, err := cmd.Output()
		var res struct {
			OK          bool   `json:"ok"`
			AuthID      string `json:"authid"`
			AuthMethod  string `json:"authmethod"`
			SignatureOK bool   `json:"server_signature_ok"`
			Error       string `json:"error"`
		}
		_, line, _ := strings.Cut(string(out), "RESULT ")
		if jerr := json.Unmarshal([]byte(line), &res); err != nil || jerr != nil {
			t.Fatalf("scram_client.py (needs Debian's python3-autobahn and python3-argon2: scripts/install-test-deps.sh): %v %v\nstdout: %s\nstderr: %s",
				err, jerr, out, stderrOf(err))
		}
		switch {
		case tt.ok && (!res.OK || res.AuthID != tt.authid || res.AuthMethod != "scram" || !res.SignatureOK):
			t.Errorf("%s %s: autobahn got %s", tt.path, tt.authid, out)
		case !tt.ok && (res.OK || res.Error != string(wamp.ErrAuthenticationDenied)):
			t.Errorf("%s %s with a wrong password: autobahn got %s", tt.path, tt.authid, out)
		}
	}
}

// TestScramFunction: a Python function authenticator gives the SCRAM
// principal; the Go client logs in with it.
func TestScramFunction(t *testing.T) {
	cbdir := funcAuthProject(t)
	principal := "{" + scramCredential(t, "pbkdf2", "erin-pw", 500, 1) + "}"
	paths := `"ws": {"type": "websocket", "auth": {"scram": {"type": "function", "create": "pyauth.create_scram",
		"config": {"authid": "erin", "principal": ` + principal + `}}}}`
	n := start(t, parse(t, pyDoc(funcAuthRouter(paths)), nil), cbdir)
	url := "ws://" + address(t, n, web0) + "/ws"
	c := newScramClient(t, "erin", "erin-pw")
	s := mustWS(t, url, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "erin", Auth: []client.Authenticator{c}})
	if d := s.Details(); d["authid"] != "erin" || d["authprovider"] != "function" || !c.serverSignatureOK(d) {
		t.Errorf("WELCOME details = %v", d)
	}
	_, err := joinWS(t, url, websocket.DialOptions{}, client.Config{Realm: "realm1", AuthID: "erin",
		Auth: []client.Authenticator{newScramClient(t, "erin", "wrong")}})
	if wampURIOf(err) != wamp.ErrAuthenticationDenied {
		t.Errorf("wrong password: %v", err)
	}
}
