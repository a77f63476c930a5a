package web

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bigEntry is a deflated entry large enough for ranges to matter.
var bigEntry = strings.Repeat("0123456789abcdef", 8192)

// archiveEntries are the files of the test archive; "dist/data.bin" is
// stored, the others deflated.
var archiveEntries = map[string]string{
	"dist/index.html":      "<p>index</p>",
	"dist/app.min.js":      "console.log(1)",
	"dist/style.css":       "p{}",
	"dist/big.txt":         bigEntry,
	"dist/data.bin":        "stored bytes",
	"dist/sub/page.html":   "<p>page</p>",
	"dist/sub/index.html":  "<p>sub index</p>",
	"top.txt":              "outside the prefix",
	"dist/..hidden/x.html": "dot dot name",
}

// writeZip writes archiveEntries to a ZIP file in a temporary directory
// and returns its name and bytes.
func writeZip(t *testing.T) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if _, err := zw.Create("dist/"); err != nil { // a directory entry
		t.Fatal(err)
	}
	for name, body := range archiveEntries {
		method := zip.Deflate
		if name == "dist/data.bin" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: time.Date(2024, 1, 2, 3, 4, 6, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "site.zip")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name, buf.Bytes()
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// openArchive opens the test archive with opts, closed at the end.
func openArchive(t *testing.T, opts ArchiveOptions) (*Archive, string) {
	t.Helper()
	name, _ := writeZip(t)
	a, err := NewArchive(opts)
	if err != nil {
		t.Fatalf("NewArchive: %v", err)
	}
	if err := a.Open(name, nil); err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { a.Close() })
	return a, name
}

// get serves one request to h mounted at /app and returns the response.
func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *http.Response {
	t.Helper()
	tree := NewTree()
	if err := tree.Mount("app", h); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	tree.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestArchiveServes(t *testing.T) {
	a, _ := openArchive(t, ArchiveOptions{
		ObjectPrefix:  "dist",
		DefaultObject: "index.html",
		MIMETypes:     map[string]string{".min.js": "text/x-min", ".CSS": "text/x-style"},
	})
	tests := []struct {
		target     string
		status     int
		body, ctyp string
	}{
		{"/app/", 200, "<p>index</p>", "text/html; charset=utf-8"},
		{"/app/index.html", 200, "<p>index</p>", "text/html; charset=utf-8"},
		{"/app/sub/", 200, "<p>sub index</p>", "text/html; charset=utf-8"},
		{"/app/sub/page.html", 200, "<p>page</p>", "text/html; charset=utf-8"},
		{"/app/app.min.js", 200, "console.log(1)", "text/x-min"},
		{"/app/style.css", 200, "p{}", "text/x-style"},
		{"/app/data.bin", 200, "stored bytes", "application/octet-stream"},
		{"/app/sub", 404, "", ""},     // entries are named exactly: no directory redirect
		{"/app/top.txt", 404, "", ""}, // outside the object prefix
		{"/app/missing", 404, "", ""},
		{"/app/../top.txt", 404, "", ""}, // cleaned by the tree to /top.txt, not under /app
		{"/app/%2e%2e/top.txt", 404, "", ""},
		{"/app/..%2ftop.txt", 404, "", ""},
		{"/app/sub%2fpage.html", 404, "", ""},
		{"/app/sub/%2e/page.html", 404, "", ""},
		{"/app/sub//page.html", 404, "", ""},
		{"/app/..hidden/x.html", 200, "dot dot name", "text/html; charset=utf-8"},
		{"/app/%00index.html", 404, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			resp := get(t, a, http.MethodGet, tt.target, nil)
			got := body(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, got, tt.status)
			}
			if tt.status != 200 {
				return
			}
			if got != tt.body || resp.Header.Get("Content-Type") != tt.ctyp {
				t.Errorf("got %q %q, want %q %q", got, resp.Header.Get("Content-Type"), tt.body, tt.ctyp)
			}
			if resp.Header.Get("Cache-Control") != "" {
				t.Errorf("Cache-Control %q: Crossbar sends none", resp.Header.Get("Cache-Control"))
			}
		})
	}
}

func TestArchiveMountPointAndMethods(t *testing.T) {
	a, _ := openArchive(t, ArchiveOptions{ObjectPrefix: "dist/"})
	if resp := get(t, a, http.MethodGet, "/app", nil); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/app/" {
		t.Errorf("/app: %d %q, want 302 to /app/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp := get(t, a, http.MethodGet, "/app/", nil); resp.StatusCode != 404 {
		t.Errorf("/app/ without default_object: %d, want 404", resp.StatusCode)
	}
	if resp := get(t, a, http.MethodPost, "/app/index.html", nil); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %q, want 405", resp.StatusCode, resp.Header.Get("Allow"))
	}
	resp := get(t, a, http.MethodHead, "/app/index.html", nil)
	if resp.StatusCode != 200 || body(t, resp) != "" || resp.ContentLength != int64(len("<p>index</p>")) {
		t.Errorf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
}

// TestArchiveRanges: Range and conditional requests, on a deflated entry
// read per request (seeks backwards open it again) and from the cache.
func TestArchiveRanges(t *testing.T) {
	for _, cache := range []bool{false, true} {
		a, _ := openArchive(t, ArchiveOptions{Cache: cache})
		resp := get(t, a, http.MethodGet, "/app/dist/big.txt", map[string]string{"Range": "bytes=70000-70009"})
		if got := body(t, resp); resp.StatusCode != 206 || got != bigEntry[70000:70010] {
			t.Errorf("cache %v: range: %d %q", cache, resp.StatusCode, got)
		}
		resp = get(t, a, http.MethodGet, "/app/dist/big.txt", map[string]string{"Range": "bytes=100000-100003,5-8"})
		got := body(t, resp)
		if resp.StatusCode != 206 || !strings.Contains(got, bigEntry[100000:100004]) || !strings.Contains(got, bigEntry[5:9]) ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "multipart/byteranges") {
			t.Errorf("cache %v: two ranges: %d %q", cache, resp.StatusCode, got)
		}
		resp = get(t, a, http.MethodGet, "/app/dist/big.txt", map[string]string{"If-Modified-Since": "Tue, 02 Jan 2024 03:04:06 GMT"})
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("cache %v: If-Modified-Since: %d, want 304", cache, resp.StatusCode)
		}
		resp = get(t, a, http.MethodGet, "/app/dist/big.txt", nil)
		if got := body(t, resp); got != bigEntry {
			t.Errorf("cache %v: whole entry: %d bytes", cache, len(got))
		}
	}
}

// TestArchiveCache: with Cache, an entry read once is served from memory
// even when the file no longer holds it; without, it is read again.
func TestArchiveCache(t *testing.T) {
	for _, cache := range []bool{false, true} {
		a, name := openArchive(t, ArchiveOptions{Cache: cache})
		if resp := get(t, a, http.MethodGet, "/app/dist/index.html", nil); resp.StatusCode != 200 {
			t.Fatalf("first read: %d", resp.StatusCode)
		}
		if err := os.Truncate(name, 0); err != nil { // the open file loses every entry
			t.Fatal(err)
		}
		resp := get(t, a, http.MethodGet, "/app/dist/index.html", nil)
		got := body(t, resp)
		if served := resp.StatusCode == 200 && got == "<p>index</p>"; served != cache {
			t.Errorf("cache %v: after truncation %d %q", cache, resp.StatusCode, got)
		}
	}
}

func TestArchiveDefaultFile(t *testing.T) {
	a, _ := openArchive(t, ArchiveOptions{ObjectPrefix: "dist", DefaultFile: "index.html"})
	for _, target := range []string{"/app/nowhere", "/app/deep/route/", "/app/"} {
		if resp := get(t, a, http.MethodGet, target, nil); resp.StatusCode != 200 || body(t, resp) != "<p>index</p>" {
			t.Errorf("%s: %d, want the default file", target, resp.StatusCode)
		}
	}
	if resp := get(t, a, http.MethodGet, "/app/%2e%2e/top.txt", nil); resp.StatusCode != 404 {
		t.Errorf("refused path: %d, want 404 (no fallback)", resp.StatusCode)
	}
}

func TestArchiveOpenAndClose(t *testing.T) {
	name, raw := writeZip(t)
	a, err := NewArchive(ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if resp := get(t, a, http.MethodGet, "/app/top.txt", nil); resp.StatusCode != 404 {
		t.Errorf("before Open: %d, want 404", resp.StatusCode)
	}
	if err := a.Open(name, []string{strings.Repeat("0", 64)}); !errors.Is(err, ErrArchiveHash) {
		t.Errorf("Open with a wrong hash: %v, want ErrArchiveHash", err)
	}
	if err := a.Open(name, []string{strings.Repeat("0", 64), strings.ToUpper(sha256Hex(raw))}); err != nil {
		t.Fatalf("Open with the right hash (upper case): %v", err)
	}
	if resp := get(t, a, http.MethodGet, "/app/top.txt", nil); resp.StatusCode != 200 {
		t.Errorf("after Open: %d, want 200", resp.StatusCode)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if resp := get(t, a, http.MethodGet, "/app/top.txt", nil); resp.StatusCode != 404 {
		t.Errorf("after Close: %d, want 404", resp.StatusCode)
	}
}

func TestArchiveErrors(t *testing.T) {
	name, _ := writeZip(t)
	notZip := filepath.Join(t.TempDir(), "not.zip")
	os.WriteFile(notZip, []byte("not a zip"), 0o644)
	tests := []struct {
		name string
		opts ArchiveOptions
		file string
		want error
	}{
		{"prefix escapes", ArchiveOptions{ObjectPrefix: "../x"}, name, ErrBadOption},
		{"absolute default object", ArchiveOptions{DefaultObject: "/index.html"}, name, ErrBadOption},
		{"bad mime type", ArchiveOptions{MIMETypes: map[string]string{".x": "not a type"}}, name, ErrBadOption},
		{"default file not in the archive", ArchiveOptions{DefaultFile: "nope.html"}, name, ErrBadOption},
		{"not a zip", ArchiveOptions{}, notZip, zip.ErrFormat},
		{"missing file", ArchiveOptions{}, filepath.Join(t.TempDir(), "none.zip"), os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewArchive(tt.opts)
			if err == nil {
				err = a.Open(tt.file, nil)
				a.Close()
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// TestMIMEOverride: the longest extension key that ends the name wins
// (static and archive services alike).
func TestMIMEOverride(t *testing.T) {
	m, err := normaliseMIMETypes(map[string]string{".min.js": "text/x-min", "JS": "text/x-js", ".tar.gz": "application/x-tgz"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, want string }{
		{"dir/a.min.js", "text/x-min"},
		{"A.MIN.JS", "text/x-min"},
		{"a.js", "text/x-js"},
		{"a.b.min.js", "text/x-min"},
		{"min.js", "text/x-js"},
		{"a.gz", ""},
		{"x.tar.gz", "application/x-tgz"},
		{"noext", ""},
	}
	for _, tt := range tests {
		if got := mimeOverride(m, tt.name); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, bad := range []string{".", "..js", ".js.", "a/b", `a\b`} {
		if _, err := normaliseMIMETypes(map[string]string{bad: "text/plain"}); !errors.Is(err, ErrBadOption) {
			t.Errorf("key %q: %v, want ErrBadOption", bad, err)
		}
	}
}
