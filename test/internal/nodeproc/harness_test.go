package nodeproc

import (
	"errors"
	"os"
	"testing"
)

// TestHarnessRequire checks that a test needing what the harness could not
// prepare fails with the reason, and only then.
func TestHarnessRequire(t *testing.T) {
	buildErr, depsErr := errors.New("no binary"), errors.New("no deps")
	broken := &Harness{BuildErr: buildErr, DepsErr: depsErr}
	cases := []struct {
		name string
		body func(t testing.TB)
		want string // the recorded failure
	}{
		{"binary", func(t testing.TB) { broken.RequireBinary(t) }, "no binary"},
		{"deps", func(t testing.TB) { broken.RequireDeps(t) }, "no deps"},
		{"start", func(t testing.TB) { broken.Start(t, "config.json", Options{}) }, "no binary"},
		{"binary ready", func(t testing.TB) { (&Harness{DepsErr: depsErr}).RequireBinary(t) }, ""},
		{"deps ready", func(t testing.TB) { (&Harness{BuildErr: buildErr}).RequireDeps(t) }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			r.run(tc.body)
			if got := r.errorText(); got != tc.want {
				t.Errorf("failure %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHarnessStart checks that Harness.Start runs its binary.
func TestHarnessStart(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, "ok")
	h := &Harness{Binary: bin}
	defer h.Close() // no cleanup: a no-op
	r := &recorder{TB: t}
	r.run(func(tb testing.TB) {
		n := h.Start(tb, WriteConfig(tb, map[string]any{}), Options{})
		if got := n.Addr(Transport(0, 0)); got != "127.0.0.1:1001" {
			t.Errorf("Addr = %q, want the fake's address", got)
		}
	})
	if got := r.errorText(); got != "" {
		t.Errorf("failed: %s", got)
	}
}
