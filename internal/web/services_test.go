package web

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRedirect(t *testing.T) {
	tests := []struct {
		url          string
		status, want int
	}{
		{"https://example.com/x?y=1", 0, http.StatusFound},
		{"http://h:8080/", http.StatusMovedPermanently, http.StatusMovedPermanently},
		{"/elsewhere", http.StatusPermanentRedirect, http.StatusPermanentRedirect},
	}
	for _, tt := range tests {
		h, err := Redirect(tt.url, tt.status)
		if err != nil {
			t.Fatalf("Redirect(%q): %v", tt.url, err)
		}
		tr := NewTree()
		mustMount(t, tr, "old", h)
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
			rec := serve(tr, m, "/old/sub/path?q=1")
			if rec.Code != tt.want || rec.Header().Get("Location") != tt.url {
				t.Errorf("%s %s: %d %q, want %d %q", m, tt.url, rec.Code, rec.Header().Get("Location"), tt.want, tt.url)
			}
			if (m == http.MethodHead) != (rec.Body.Len() == 0) {
				t.Errorf("%s: body length %d", m, rec.Body.Len())
			}
		}
	}
}

func TestRedirectBodyEscapes(t *testing.T) {
	h, err := Redirect(`https://example.com/"><script>`, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := serve(h, http.MethodGet, "/").Body.String()
	if strings.Contains(body, "<script>") {
		t.Errorf("unescaped body %q", body)
	}
}

func TestRedirectErrors(t *testing.T) {
	for _, tt := range []struct {
		url    string
		status int
	}{
		{"", 0}, {"relative/path", 0}, {"//evil.example", 0}, {"javascript:alert(1)", 0},
		{"https://", 0}, {"https://h/\r\nX: y", 0}, {"https://h/", 200}, {"https://h/", 304},
	} {
		if _, err := Redirect(tt.url, tt.status); !errors.Is(err, ErrBadOption) {
			t.Errorf("Redirect(%q, %d) = %v, want ErrBadOption", tt.url, tt.status, err)
		}
	}
}

func TestJSON(t *testing.T) {
	h, err := JSON(map[string]any{"a": []int{1, 2}, "b": "<x>"}, JSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := serve(h, http.MethodGet, "/")
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 200 {
		t.Fatalf("%d %q: %v", rec.Code, rec.Body, err)
	}
	if got["b"] != "<x>" || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %v, type %q", got, rec.Header().Get("Content-Type"))
	}
	head := serve(h, http.MethodHead, "/")
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != rec.Header().Get("Content-Length") {
		t.Errorf("HEAD: %d len %d CL %q", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
	}
	post := serve(h, http.MethodPost, "/")
	if post.Code != 405 || post.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d Allow %q", post.Code, post.Header().Get("Allow"))
	}
	if _, err := JSON(math.Inf(1), JSONOptions{}); err == nil {
		t.Error("JSON(+Inf): no error")
	}
}

// TestJSONOptions: the zero options send neither a CORS nor a caching
// header; each option adds its own; Prettify indents by three spaces.
func TestJSONOptions(t *testing.T) {
	value := map[string]any{"b": []int{1}, "a": true}
	tests := []struct {
		name          string
		opts          JSONOptions
		body          string
		origin, cache string
	}{
		{"zero", JSONOptions{}, `{"a":true,"b":[1]}` + "\n", "", ""},
		{"prettify", JSONOptions{Prettify: true}, "{\n   \"a\": true,\n   \"b\": [\n      1\n   ]\n}\n", "", ""},
		{"cross origin", JSONOptions{AllowCrossOrigin: true}, `{"a":true,"b":[1]}` + "\n", "*", ""},
		{"no caching", JSONOptions{DiscourageCaching: true}, `{"a":true,"b":[1]}` + "\n", "", "no-store, no-cache, must-revalidate, max-age=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := JSON(value, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			rec := serve(h, http.MethodGet, "/", "Origin", "https://elsewhere.example")
			if rec.Code != http.StatusOK || rec.Body.String() != tt.body {
				t.Errorf("got %d %q, want 200 %q", rec.Code, rec.Body, tt.body)
			}
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != tt.origin {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tt.origin)
			}
			if got := rec.Header().Get("Cache-Control"); got != tt.cache {
				t.Errorf("Cache-Control %q, want %q", got, tt.cache)
			}
		})
	}
}

func testNodeInfo() *nodeInfoService {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := NodeInfoHandler(func() NodeInfo {
		return NodeInfo{
			Version:   "1.2.3",
			Started:   started,
			Realms:    []RealmInfo{{Name: "realm1", Sessions: 3}, {Name: `<script>alert("x")</script>`, Sessions: 1}},
			Listeners: []ListenerInfo{{Type: "web", Address: "127.0.0.1:8080"}},
		}
	}).(*nodeInfoService)
	h.now = func() time.Time { return started.Add(90 * time.Minute) }
	return h
}

func TestNodeInfoHTML(t *testing.T) {
	h := testNodeInfo()
	for _, accept := range []string{"", "*/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "application/json;q=0.5, text/html"} {
		rec := serve(h, http.MethodGet, "/", "Accept", accept)
		body := rec.Body.String()
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Fatalf("Accept %q: %d %q", accept, rec.Code, rec.Header().Get("Content-Type"))
		}
		for _, want := range []string{"1.2.3", "realm1</td><td>3", "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;", "1h30m0s", "2026-01-02 03:04:05 UTC", "web on 127.0.0.1:8080"} {
			if !strings.Contains(body, want) {
				t.Errorf("Accept %q: body lacks %q:\n%s", accept, want, body)
			}
		}
		if strings.Contains(body, "<script>") {
			t.Errorf("unescaped realm name in %s", body)
		}
	}
}

func TestNodeInfoJSON(t *testing.T) {
	h := testNodeInfo()
	for _, accept := range []string{"application/json", "text/html;q=0.5, application/json", "application/json, */*;q=0.1"} {
		rec := serve(h, http.MethodGet, "/", "Accept", accept)
		var got nodeInfoJSON
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("Accept %q: %v in %q", accept, err, rec.Body)
		}
		if got.Version != "1.2.3" || len(got.Realms) != 2 || got.Realms[1].Name != `<script>alert("x")</script>` ||
			got.Realms[0].Sessions != 3 || got.UptimeSeconds != 5400 || got.Listeners[0].Address != "127.0.0.1:8080" {
			t.Errorf("Accept %q: got %+v", accept, got)
		}
	}
	if rec := serve(h, http.MethodPut, "/"); rec.Code != 405 {
		t.Errorf("PUT: %d", rec.Code)
	}
	if rec := serve(h, http.MethodHead, "/"); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD: %d %d", rec.Code, rec.Body.Len())
	}
}

// TestNodeInfoOwnPathOnly: the page answers its mount point alone; any
// other path under it (the browser's /favicon.ico, a probe's /healthz)
// is 404, also through a tree with the page at its root.
func TestNodeInfoOwnPathOnly(t *testing.T) {
	tree := NewTree()
	if err := tree.Mount(RootKey, testNodeInfo()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want int
	}{
		{"/", 200},
		{"/favicon.ico", 404},
		{"/healthz", 404},
		{"/a/b", 404},
	}
	for _, tt := range tests {
		if rec := serve(tree, http.MethodGet, tt.path); rec.Code != tt.want {
			t.Errorf("GET %s: %d, want %d", tt.path, rec.Code, tt.want)
		}
	}
	wrapped := OnlyMountPath(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for path, want := range map[string]int{"/": 204, "/x": 404, "/x/": 404} {
		if rec := serve(wrapped, http.MethodGet, path); rec.Code != want {
			t.Errorf("OnlyMountPath, %q: %d, want %d", path, rec.Code, want)
		}
	}
}
