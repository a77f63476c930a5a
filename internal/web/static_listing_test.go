package web

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestStaticListingHides is F15 (docs/SECURITY.md): a listing shows what a
// request can fetch, by the name and size a request gets, and leaves out
// dotfiles, symlinks leaving the directory or leading nowhere, FIFOs and
// names no request can name. Dotfiles are still served when asked for.
func TestStaticListingHides(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "site", "list")
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("visible.txt", "12345")
	write("sub/inner.txt", "x")
	write(".env", "SECRET=1")
	write(".git/config", "[core]")
	write("back\\slash.txt", "x")
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("TOPSECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("./", 40) + "visible.txt" // a link longer than its target
	links := map[string]string{
		"inlink":  long,
		"indir":   "sub",
		"outfile": "../../secret.txt",
		"outabs":  filepath.Join(base, "secret.txt"),
		"outdir":  "../..",
		"broken":  "nowhere.txt",
		".hidden": "visible.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := mustStatic(t, StaticOptions{Directory: filepath.Join(base, "site"), EnableDirectoryListing: true})

	rec := serve(h, http.MethodGet, "/list/")
	if rec.Code != http.StatusOK {
		t.Fatalf("listing: %d %q", rec.Code, rec.Body)
	}
	got := listedEntries(rec.Body.String())
	want := []string{"indir/", "inlink (5 bytes)", "sub/", "visible.txt (5 bytes)"}
	if !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q", got, want)
	}
	if rec := serve(h, http.MethodGet, "/list/.env"); rec.Code != http.StatusOK || rec.Body.String() != "SECRET=1" {
		t.Errorf("dotfile fetched by name: %d %q, want 200 (served, only not listed)", rec.Code, rec.Body)
	}
}

var listedEntry = regexp.MustCompile(`<li><a href="[^"]*">([^<]*)</a>([^<]*)</li>`)

// listedEntries returns the entries of a listing page as "name" or
// "name (n bytes)", without "../".
func listedEntries(page string) []string {
	var out []string
	for _, m := range listedEntry.FindAllStringSubmatch(page, -1) {
		if m[1] != "../" {
			out = append(out, m[1]+m[2])
		}
	}
	return out
}
