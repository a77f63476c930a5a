package nodeproc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// WriteConfig writes cfg as indented JSON into config.json of a new
// directory of t.TempDir and returns the file's path; [Start] runs the
// node in that directory.
func WriteConfig(t testing.TB, cfg any) string {
	t.Helper()
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatalf("config: %v", err)
	}
	return path
}
