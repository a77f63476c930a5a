package junction_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/junction-wamp/junction"
)

// FuzzParseConfig: ParseConfig picks JSON or YAML by the first character
// and never panics; it returns a Config, or a *ConfigError whose every
// problem has a message and a path or a line.
func FuzzParseConfig(f *testing.F) {
	files, _ := filepath.Glob("internal/config/testdata/*")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{realmJSON, socketsJSON, "", " ", "{", "\n\t{}", "[]", "null", "version: 2\nworkers: []\n",
		"- a\n- b", `{"version": 2, "workers": [{"type": "router", "realms": [{"name": "a b"}]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := junction.ParseConfig(data)
		if err == nil {
			if cfg == nil {
				t.Fatal("no Config and no error")
			}
			return
		}
		var ce *junction.ConfigError
		if !errors.As(err, &ce) || len(ce.Problems) == 0 {
			t.Fatalf("error %v (%T), want a *ConfigError with problems", err, err)
		}
		for _, p := range ce.Problems {
			if p.Message == "" || p.File != "" {
				t.Fatalf("problem %+v: no message, or a file", p)
			}
		}
	})
}
