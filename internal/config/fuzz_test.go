package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input, JSON or YAML, makes Parse panic, and that
// it always returns either a Config or an Errors.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, FormatOf(name) == YAML)
	}
	f.Add(DefaultJSON, false)
	for _, tt := range ruleTests[:40] {
		f.Add([]byte(tt.doc), false)
	}
	for _, tt := range proxyRuleTests {
		f.Add([]byte(tt.doc), false)
	}
	for _, tt := range pythonWebRuleTests {
		f.Add([]byte(tt.doc), false)
	}
	for _, tt := range wapRuleTests {
		f.Add([]byte(tt.doc), false)
	}
	f.Add([]byte("a: &a [*a, *a]\nb: *a"), true)
	f.Add([]byte("version: 2\nworkers: [{type: router, realms: [{name: !!binary aGk=}]}]"), true)
	f.Add([]byte(`{"version": 2e400}`), false)
	f.Fuzz(func(t *testing.T, data []byte, isYAML bool) {
		format := JSON
		if isYAML {
			format = YAML
		}
		c, _, err := Loader{LookupEnv: lookupTestEnv}.Parse(data, format)
		var errs Errors
		switch {
		case err == nil && c == nil:
			t.Fatal("no Config and no error")
		case err != nil && (c != nil || !errors.As(err, &errs) || len(errs) == 0):
			t.Fatalf("error %v with Config %v", err, c)
		}
		if len(errs) > 0 && errs[0].Line > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("syntax error at line %d of %d: %v", errs[0].Line, bytes.Count(data, []byte("\n"))+1, errs[0])
		}
	})
}
