package node

import (
	"crypto/ed25519"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNodeKeyGeneratedThenLoaded(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.DiscardHandler)
	priv, err := loadNodeKey(dir, log)
	if err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{nodeKeyPriv: 0o600, nodeKeyPub: 0o644} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want mode %v", name, st.Mode(), err, mode)
		}
	}
	pubHex := hex.EncodeToString(priv.Public().(ed25519.PublicKey))
	pub, _ := os.ReadFile(filepath.Join(dir, nodeKeyPub))
	if !strings.HasPrefix(string(pub), "Crossbar.io node public key\n\n") || !strings.Contains(string(pub), "public-key-ed25519: "+pubHex+"\n") || strings.Contains(string(pub), tagPrivate) {
		t.Errorf("key.pub:\n%s", pub)
	}
	again, err := loadNodeKey(dir, log)
	if err != nil || !again.Equal(priv) {
		t.Errorf("loaded again: %v", err)
	}
	// key.pub is re-created from key.priv, and the modes fixed.
	os.Remove(filepath.Join(dir, nodeKeyPub))
	os.Chmod(filepath.Join(dir, nodeKeyPriv), 0o644)
	if again, err = loadNodeKey(dir, log); err != nil || !again.Equal(priv) {
		t.Errorf("without key.pub: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, nodeKeyPub)); !strings.Contains(string(b), pubHex) {
		t.Errorf("re-created key.pub:\n%s", b)
	}
	if st, _ := os.Stat(filepath.Join(dir, nodeKeyPriv)); st.Mode().Perm() != 0o600 {
		t.Errorf("key.priv mode %v", st.Mode())
	}
}

// crossbarPriv is a key.priv as Crossbar 21.3.1 writes it.
const crossbarPriv = `Crossbar.io node private key - KEEP THIS SAFE!

creator: oberstet@intel-nuci7
created-at: 2020-04-28T10:47:24.781Z
machine-id: 4cf9a2a7ea5c4ed8a8f7b0b0e1b2c3d4
node-authid: intel-nuci7
public-key-ed25519: %s
private-key-ed25519: %s
`

func TestNodeKeyCrossbarFile(t *testing.T) {
	seed := strings.Repeat("ab", 32)
	want := ed25519.NewKeyFromSeed(mustHex(t, seed))
	pubHex := hex.EncodeToString(want.Public().(ed25519.PublicKey))
	tests := []struct {
		name, priv, pub, err string
	}{
		{"good", fmtKey(pubHex, seed), "", ""},
		{"good with key.pub", fmtKey(pubHex, seed), strings.Replace(fmtKey(pubHex, seed), "private-key-ed25519: "+seed+"\n", "", 1), ""},
		{"mismatch", fmtKey(strings.Repeat("00", 32), seed), "", "inconsistent node private key file"},
		{"bad seed", fmtKey(pubHex, "zz"), "", "is not 64 hex digits"},
		{"unknown tag", fmtKey(pubHex, seed) + "colour: blue\n", "", `invalid tag "colour"`},
		{"duplicate tag", fmtKey(pubHex, seed) + "creator: x\n", "", `duplicate tag "creator"`},
		{"no created-at", strings.Replace(fmtKey(pubHex, seed), "created-at: 2020-04-28T10:47:24.781Z\n", "", 1), "", "no created-at tag"},
		{"other key.pub", fmtKey(pubHex, seed), "x\n\ncreator: a\ncreated-at: b\nmachine-id: c\npublic-key-ed25519: " + strings.Repeat("00", 32) + "\n", "inconsistent node public key file"},
		{"private tag in key.pub", fmtKey(pubHex, seed), fmtKey(pubHex, seed), `invalid tag "private-key-ed25519"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, nodeKeyPriv), []byte(tt.priv), 0o600)
			if tt.pub != "" {
				os.WriteFile(filepath.Join(dir, nodeKeyPub), []byte(tt.pub), 0o644)
			}
			got, err := loadNodeKey(dir, slog.New(slog.DiscardHandler))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !got.Equal(want) {
				t.Fatalf("key %x, err %v", got, err)
			}
		})
	}
}

func fmtKey(pub, seed string) string {
	return strings.Replace(strings.Replace(crossbarPriv, "%s", pub, 1), "%s", seed, 1)
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
