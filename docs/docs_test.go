package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/config"
)

// exampleEnv is the environment the examples' ${NAME} strings read.
var exampleEnv = map[string]string{
	"ALICE_TICKET":          "alice-ticket",
	"WORKER1_SECRET":        "worker1-secret",
	"WORKER2_PASSWORD":      "worker2-password",
	"WORKER2_SALT":          "worker2-salt",
	"CALLER_KEY":            "bazapp",                     // caller.md's example values
	"CALLER_SECRET":         "foobar",                     //
	"GITHUB_WEBHOOK_SECRET": "It's a Secret to Everybody", // GitHub's documentation's example
	"AUTHENTICATOR_TICKET":  "authenticator-ticket",
	"AUTHORIZER_TICKET":     "authorizer-ticket",
	"WORKER_TICKET":         "worker-ticket",                    // identity.md
	"JWT_SECRET":            "example-jwt-secret-of-32-bytes!!", //
}

func lookupExampleEnv(name string) (string, bool) {
	v, ok := exampleEnv[name]
	return v, ok
}

// exampleWarnings are the warnings each example is expected to give, as
// config.Warning.String() returns them. An example not listed must give
// none.
var exampleWarnings = map[string][]string{}

// examples returns the example configurations (examples/*.json, *.yaml and
// *.yml), sorted.
func examples(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.json", "*.yaml", "*.yml"} {
		m, err := filepath.Glob(filepath.Join("examples", pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	if len(files) == 0 {
		t.Fatal("no examples in examples/")
	}
	return files
}

// load loads an example with exampleEnv, failing the test on any error.
func load(t *testing.T, file string) (*config.Config, []config.Warning) {
	t.Helper()
	cfg, warns, err := config.Loader{LookupEnv: lookupExampleEnv}.Load(file)
	if err != nil {
		t.Fatalf("%s:\n%v", file, err)
	}
	return cfg, warns
}

func TestExamplesLoad(t *testing.T) {
	for _, file := range examples(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, warns := load(t, file)
			got := make([]string, len(warns))
			for i, w := range warns {
				got[i] = w.String()
			}
			want := exampleWarnings[filepath.Base(file)]
			if !slices.Equal(got, want) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestExampleWarningsListed catches a stale entry in exampleWarnings.
func TestExampleWarningsListed(t *testing.T) {
	files := examples(t)
	for name := range exampleWarnings {
		if !slices.Contains(files, filepath.Join("examples", name)) {
			t.Errorf("exampleWarnings lists %s, which is not in examples/", name)
		}
	}
}

// TestMinimalIsDefault: examples/minimal.json is what Junction runs
// without a config file and what "junction init" writes.
func TestMinimalIsDefault(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("examples", "minimal.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, config.DefaultJSON) {
		t.Error("examples/minimal.json differs from the embedded default (internal/config/default.json)")
	}
}

// TestExamplesReferenced: every file in examples/ is named, as
// "examples/NAME", by at least one Markdown page of docs/.
func TestExamplesReferenced(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text.Write(b)
	}
	entries, err := os.ReadDir("examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.Contains(text.String(), "examples/"+e.Name()) {
			t.Errorf("examples/%s is not referenced from any docs/*.md page", e.Name())
		}
	}
}
