package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const secret = "TOPSECRET-beside-the-site"

// staticFixture makes base/{secret.txt, site/..., spa/...} and returns base.
// site holds symlinks that leave it, a FIFO, and a name needing escaping.
func staticFixture(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	files := map[string]string{
		"secret.txt":                secret,
		"site/index.html":           "<h1>site index</h1>",
		"site/hello.txt":            "hello world",
		"site/app.wasm":             "wasm",
		"site/data.custom":          "custom",
		"site/sub/file.txt":         "sub file",
		"site/sub/<b>&\"x.txt":      "x",
		"site/withindex/index.html": "inner index",
		"spa/index.html":            "spa shell",
		"spa/assets/app.js":         "js",
		"spa/empty/.keep":           "",
	}
	for name, body := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"site/link":    "../secret.txt",
		"site/abslink": filepath.Join(base, "secret.txt"),
		"site/dirlink": "..",
		"site/absdir":  base,
		"site/inlink":  "hello.txt",
		"site/loop":    "loop",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(base, "site", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return base
}

func mustStatic(t testing.TB, opts StaticOptions) http.Handler {
	t.Helper()
	h, err := Static(opts)
	if err != nil {
		t.Fatalf("Static: %v", err)
	}
	return h
}

// staticTree mounts site at "static" and at "/", and spa (default file) at "spa".
func staticTree(t testing.TB, base string, listing bool) *Tree {
	t.Helper()
	site := filepath.Join(base, "site")
	tr := NewTree()
	mustMount(t, tr, "/", mustStatic(t, StaticOptions{Directory: site, EnableDirectoryListing: listing}))
	mustMount(t, tr, "static", mustStatic(t, StaticOptions{Directory: site, EnableDirectoryListing: listing}))
	mustMount(t, tr, "spa", mustStatic(t, StaticOptions{Directory: filepath.Join(base, "spa"), DefaultFile: "index.html"}))
	return tr
}

func serve(h http.Handler, method, target string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var escapeAttempts = []string{
	"/../secret.txt",
	"/..%2fsecret.txt",
	"/..%2Fsecret.txt",
	"/%2e%2e/secret.txt",
	"/%2E%2E%2Fsecret.txt",
	"/%252e%252e%252fsecret.txt",
	"/%252e%252e/secret.txt",
	"/..%5csecret.txt",
	`/..\secret.txt`,
	"/.%2e/secret.txt",
	"/./../secret.txt",
	"/sub/../../secret.txt",
	"/sub/%2e%2e/%2e%2e/secret.txt",
	"//etc/passwd",
	"/%2fetc%2fpasswd",
	"/" + strings.Repeat("../", 20) + "etc/passwd",
	"/link",
	"/abslink",
	"/dirlink/secret.txt",
	"/dirlink/",
	"/dirlink",
	"/absdir/secret.txt",
	"/absdir/",
	"/hello.txt%00",
	"/%00/../secret.txt",
	"/loop",
	"/fifo",
}

func TestStaticEscapes(t *testing.T) {
	base := staticFixture(t)
	for _, listing := range []bool{false, true} {
		tr := staticTree(t, base, listing)
		for _, prefix := range []string{"/static", "", "/spa"} {
			for _, p := range escapeAttempts {
				target := prefix + p
				rec := serve(tr, http.MethodGet, target)
				if strings.Contains(rec.Body.String(), "TOPSECRET") || strings.Contains(rec.Body.String(), "root:") {
					t.Fatalf("listing=%v %s: leaked: %d %q", listing, target, rec.Code, rec.Body)
				}
				if strings.Contains(rec.Body.String(), "secret.txt") {
					t.Errorf("listing=%v %s: listing outside the directory: %q", listing, target, rec.Body)
				}
				ok := rec.Code == http.StatusNotFound || rec.Code == http.StatusForbidden
				if prefix == "/spa" { // the SPA fallback may answer a merely missing name
					ok = ok || rec.Code == http.StatusOK && rec.Body.String() == "spa shell"
				}
				if !ok {
					t.Errorf("listing=%v %s: status %d body %q, want 403/404", listing, target, rec.Code, rec.Body)
				}
			}
		}
	}
}

func TestStaticServe(t *testing.T) {
	base := staticFixture(t)
	tr := staticTree(t, base, false)
	listed := staticTree(t, base, true)
	tests := []struct {
		name       string
		h          http.Handler
		method     string
		target     string
		status     int
		body       string // exact, unless contains is set
		contains   string
		location   string
		headerKey  string
		headerWant string
	}{
		{name: "file", h: tr, target: "/static/hello.txt", status: 200, body: "hello world", headerKey: "Content-Type", headerWant: "text/plain; charset=utf-8"},
		{name: "root mount file", h: tr, target: "/hello.txt", status: 200, body: "hello world"},
		{name: "encoded name", h: tr, target: "/static/h%65llo.txt", status: 200, body: "hello world"},
		{name: "symlink inside", h: tr, target: "/static/inlink", status: 200, body: "hello world"},
		{name: "index", h: tr, target: "/static/", status: 200, body: "<h1>site index</h1>"},
		{name: "root index", h: tr, target: "/", status: 200, body: "<h1>site index</h1>"},
		{name: "nested index", h: tr, target: "/static/withindex/", status: 200, body: "inner index"},
		{name: "mount point redirect", h: tr, target: "/static", status: 302, location: "/static/"},
		{name: "mount point redirect query", h: tr, target: "/static?a=1", status: 302, location: "/static/?a=1"},
		{name: "dir redirect", h: tr, target: "/static/sub", status: 302, location: "/static/sub/"},
		{name: "encoded dir redirect", h: tr, target: "/st%61tic/s%75b", status: 302, location: "/st%61tic/s%75b/"},
		{name: "file with slash", h: tr, target: "/static/hello.txt/", status: 404},
		{name: "missing", h: tr, target: "/static/nope.txt", status: 404, headerKey: "Content-Type", headerWant: "application/json"},
		{name: "listing off", h: tr, target: "/static/sub/", status: 404},
		{name: "listing on", h: listed, target: "/static/sub/", status: 200, contains: `<a href="./file.txt">file.txt</a>`},
		{name: "listing escapes", h: listed, target: "/static/sub/", status: 200, contains: ">&lt;b&gt;&amp;&#34;x.txt</a>"},
		{name: "listing index wins", h: listed, target: "/static/", status: 200, body: "<h1>site index</h1>"},
		{name: "spa fallback", h: tr, target: "/spa/some/client/route", status: 200, body: "spa shell"},
		{name: "spa real file", h: tr, target: "/spa/assets/app.js", status: 200, body: "js"},
		{name: "spa dir without index", h: tr, target: "/spa/empty/", status: 200, body: "spa shell"},
		{name: "head", h: tr, method: http.MethodHead, target: "/static/hello.txt", status: 200, body: "", headerKey: "Content-Length", headerWant: "11"},
		{name: "post", h: tr, method: http.MethodPost, target: "/static/hello.txt", status: 405, headerKey: "Allow", headerWant: "GET, HEAD"},
		{name: "delete", h: tr, method: http.MethodDelete, target: "/static/", status: 405, headerKey: "Allow", headerWant: "GET, HEAD"},
		{name: "cache default zero", h: tr, target: "/static/hello.txt", status: 200, body: "hello world", headerKey: "Cache-Control", headerWant: "no-cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			rec := serve(tt.h, method, tt.target)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d (body %q)", rec.Code, tt.status, rec.Body)
			}
			switch {
			case tt.contains != "" && !strings.Contains(rec.Body.String(), tt.contains):
				t.Errorf("body %q does not contain %q", rec.Body, tt.contains)
			case tt.contains == "" && tt.status == 200 && rec.Body.String() != tt.body:
				t.Errorf("body %q, want %q", rec.Body, tt.body)
			}
			if tt.location != "" && rec.Header().Get("Location") != tt.location {
				t.Errorf("Location %q, want %q", rec.Header().Get("Location"), tt.location)
			}
			if tt.headerKey != "" && rec.Header().Get(tt.headerKey) != tt.headerWant {
				t.Errorf("%s %q, want %q", tt.headerKey, rec.Header().Get(tt.headerKey), tt.headerWant)
			}
		})
	}
}

func TestStaticCacheAndMIME(t *testing.T) {
	base := staticFixture(t)
	h := mustStatic(t, StaticOptions{
		Directory:    filepath.Join(base, "site"),
		CacheTimeout: 3600,
		MIMETypes:    map[string]string{"wasm": "application/wasm", ".CUSTOM": "text/x-custom; charset=utf-8", ".txt": "text/x-mine"},
	})
	tests := []struct{ target, ctype string }{
		{"/app.wasm", "application/wasm"},
		{"/data.custom", "text/x-custom; charset=utf-8"},
		{"/hello.txt", "text/x-mine"},
		{"/index.html", "text/html; charset=utf-8"},
	}
	for _, tt := range tests {
		rec := serve(h, http.MethodGet, tt.target)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != tt.ctype {
			t.Errorf("%s: %d %q, want 200 %q", tt.target, rec.Code, rec.Header().Get("Content-Type"), tt.ctype)
		}
		if got := rec.Header().Get("Cache-Control"); got != "public, max-age=3600" {
			t.Errorf("%s: Cache-Control %q", tt.target, got)
		}
		if rec.Header().Get("Expires") == "" {
			t.Errorf("%s: no Expires", tt.target)
		}
	}
}

func TestStaticRangeAndConditional(t *testing.T) {
	base := staticFixture(t)
	h := mustStatic(t, StaticOptions{Directory: filepath.Join(base, "site")})
	rec := serve(h, http.MethodGet, "/hello.txt", "Range", "bytes=0-4")
	if rec.Code != http.StatusPartialContent || rec.Body.String() != "hello" {
		t.Errorf("range: %d %q", rec.Code, rec.Body)
	}
	lm := serve(h, http.MethodGet, "/hello.txt").Header().Get("Last-Modified")
	rec = serve(h, http.MethodGet, "/hello.txt", "If-Modified-Since", lm)
	if rec.Code != http.StatusNotModified {
		t.Errorf("If-Modified-Since: %d, want 304", rec.Code)
	}
}

// A standalone Static (not under a Tree) redirects "" to "/".
func TestStaticStandaloneEmptyPath(t *testing.T) {
	base := staticFixture(t)
	h := mustStatic(t, StaticOptions{Directory: filepath.Join(base, "site")})
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.URL.Path = ""
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "/" {
		t.Errorf("got %d %q", rec.Code, rec.Header().Get("Location"))
	}
}

func TestStaticOptionErrors(t *testing.T) {
	base := staticFixture(t)
	site := filepath.Join(base, "site")
	tests := []struct {
		name string
		opts StaticOptions
		want error // nil: any error
	}{
		{"relative dir", StaticOptions{Directory: "site"}, ErrBadOption},
		{"empty dir", StaticOptions{}, ErrBadOption},
		{"missing dir", StaticOptions{Directory: filepath.Join(base, "nope")}, os.ErrNotExist},
		{"file as dir", StaticOptions{Directory: filepath.Join(base, "secret.txt")}, ErrBadOption},
		{"default escapes", StaticOptions{Directory: site, DefaultFile: "../secret.txt"}, ErrBadOption},
		{"default absolute", StaticOptions{Directory: site, DefaultFile: "/etc/passwd"}, ErrBadOption},
		{"default dotdot inside", StaticOptions{Directory: site, DefaultFile: "sub/../../secret.txt"}, ErrBadOption},
		{"default backslash", StaticOptions{Directory: site, DefaultFile: `..\secret.txt`}, ErrBadOption},
		{"negative cache", StaticOptions{Directory: site, CacheTimeout: -1}, ErrBadOption},
		{"bad mime type", StaticOptions{Directory: site, MIMETypes: map[string]string{".x": "not a type"}}, ErrBadOption},
		{"bad mime ext", StaticOptions{Directory: site, MIMETypes: map[string]string{"a/b": "text/plain"}}, ErrBadOption},
		{"empty mime ext", StaticOptions{Directory: site, MIMETypes: map[string]string{".": "text/plain"}}, ErrBadOption},
	}
	for _, tt := range tests {
		if _, err := Static(tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.want)
		}
	}
}

// A default file that leaves the directory through a symlink is refused at
// request time too.
func TestStaticDefaultFileSymlinkEscape(t *testing.T) {
	base := staticFixture(t)
	h := mustStatic(t, StaticOptions{Directory: filepath.Join(base, "site"), DefaultFile: "link"})
	rec := serve(h, http.MethodGet, "/missing")
	if rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "TOPSECRET") {
		t.Errorf("got %d %q", rec.Code, rec.Body)
	}
}

// TestStaticAllowMissing: with AllowMissing, a directory that does not
// exist is accepted and every request gets 404, the mount point included
// (no redirect), until the directory appears; a file is still refused.
func TestStaticAllowMissing(t *testing.T) {
	base := staticFixture(t)
	dir := filepath.Join(base, "later")
	tr := NewTree()
	mustMount(t, tr, "web", mustStatic(t, StaticOptions{Directory: dir, AllowMissing: true}))
	for _, target := range []string{"/web", "/web/", "/web/index.html", "/web/a/b.txt"} {
		if rec := serve(tr, http.MethodGet, target); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s with no directory: %d, want 404", target, rec.Code)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("now here"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rec := serve(tr, http.MethodGet, "/web/index.html"); rec.Code != http.StatusOK || rec.Body.String() != "now here" {
		t.Errorf("GET /web/index.html once the directory exists: %d %q", rec.Code, rec.Body)
	}
	if rec := serve(tr, http.MethodGet, "/web"); rec.Code != http.StatusFound {
		t.Errorf("GET /web once the directory exists: %d, want 302", rec.Code)
	}
	_, err := Static(StaticOptions{Directory: filepath.Join(base, "secret.txt"), AllowMissing: true})
	if !errors.Is(err, ErrBadOption) {
		t.Errorf("a file as directory with AllowMissing: err %v, want ErrBadOption", err)
	}
}
