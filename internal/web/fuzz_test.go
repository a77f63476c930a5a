package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzServe sends a GET for target two ways: parsed as net/http would
// (url.ParseRequestURI), and with target as the decoded URL.Path. It fails
// on a 5xx or on any sign of the file beside the served directories.
func fuzzServe(t *testing.T, h http.Handler, target string) {
	var urls []*url.URL
	if u, err := url.ParseRequestURI(target); err == nil {
		urls = append(urls, u)
	}
	urls = append(urls, &url.URL{Path: target})
	for _, u := range urls {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL, req.RequestURI = u, target
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.String()
		leaked := strings.Contains(body, "TOPSECRET") && !strings.Contains(target, "TOPSECRET")
		listed := rec.Code == http.StatusOK && strings.Contains(body, "secret.txt")
		if leaked || listed {
			t.Fatalf("%q (path %q raw %q): escaped: %d %q", target, u.Path, u.RawPath, rec.Code, body)
		}
		if rec.Code >= 500 {
			t.Fatalf("%q: status %d %q", target, rec.Code, body)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	for _, p := range escapeAttempts {
		f.Add(p)
		f.Add("/static" + p)
		f.Add("/nested/files" + p)
	}
	for _, s := range []string{"", "/", "*", "/static", "/static/", "/st%61tic/sub/", "/api", "/nested/info/x",
		"/%", "/%zz", "/a%2F..%2F..", "/static/sub/%2e%2e%2f%2e%2e%2fsecret.txt", "/\x00", "/static/\xff"} {
		f.Add(s)
	}
}

func FuzzTreeRoute(f *testing.F) {
	fuzzSeeds(f)
	base := staticFixture(f)
	site := filepath.Join(base, "site")
	tr := NewTree()
	mustMount(f, tr, "/", mustStatic(f, StaticOptions{Directory: site, EnableDirectoryListing: true}))
	mustMount(f, tr, "static", mustStatic(f, StaticOptions{Directory: site, EnableDirectoryListing: true, DefaultFile: "index.html"}))
	api, err := JSON(map[string]int{"a": 1}, JSONOptions{})
	if err != nil {
		f.Fatal(err)
	}
	mustMount(f, tr, "api", api)
	nested, err := tr.Sub("nested")
	if err != nil {
		f.Fatal(err)
	}
	mustMount(f, nested, "files", mustStatic(f, StaticOptions{Directory: filepath.Join(site, "sub"), EnableDirectoryListing: true}))
	mustMount(f, nested, "info", NodeInfoHandler(func() NodeInfo { return NodeInfo{Version: "v"} }))
	f.Fuzz(func(t *testing.T, target string) {
		fuzzServe(t, tr, target)
	})
}

func FuzzStaticPath(f *testing.F) {
	fuzzSeeds(f)
	base := staticFixture(f)
	h := mustStatic(f, StaticOptions{Directory: filepath.Join(base, "site"), EnableDirectoryListing: true, CacheTimeout: 60})
	f.Fuzz(func(t *testing.T, target string) {
		fuzzServe(t, h, target)
		name, _, ok := requestName(target)
		if ok && (strings.HasPrefix(name, "/") || name == ".." || strings.HasPrefix(name, "../") ||
			strings.Contains(name, "/../") || strings.HasSuffix(name, "/..") || strings.ContainsAny(name, "\\\x00")) {
			t.Fatalf("requestName(%q) = %q accepted", target, name)
		}
	})
}
