package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// echo answers "name path=<URL.Path> mount=<MountPath> orig=<OriginalPath>".
func echo(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s path=%s raw=%s mount=%s orig=%s", name, r.URL.Path, r.URL.EscapedPath(), MountPath(r), OriginalPath(r))
	})
}

func mustMount(t testing.TB, tr *Tree, key string, h http.Handler) {
	t.Helper()
	if err := tr.Mount(key, h); err != nil {
		t.Fatalf("Mount(%q): %v", key, err)
	}
}

func testTree(t testing.TB) *Tree {
	tr := NewTree()
	mustMount(t, tr, "/", echo("root"))
	mustMount(t, tr, "ws", echo("ws"))
	mustMount(t, tr, "static", echo("static"))
	mustMount(t, tr, "a b", echo("space"))
	nested, err := tr.Sub("nested")
	if err != nil {
		t.Fatal(err)
	}
	mustMount(t, nested, "/", echo("nested-root"))
	mustMount(t, nested, "info", echo("info"))
	bare, err := tr.Sub("bare") // a path service without a root
	if err != nil {
		t.Fatal(err)
	}
	mustMount(t, bare, "x", echo("bare-x"))
	return tr
}

func TestTreeRouting(t *testing.T) {
	tr := testTree(t)
	tests := []struct {
		target, want string
		status       int
	}{
		{"/", "root path=/ raw=/ mount= orig=/", 200},
		{"/index.html", "root path=/index.html raw=/index.html mount= orig=/index.html", 200},
		{"/ws", "ws path= raw= mount=/ws orig=/ws", 200},
		{"/ws/", "ws path=/ raw=/ mount=/ws orig=/ws/", 200},
		{"/ws?x=1", "ws path= raw= mount=/ws orig=/ws", 200},
		{"/wsx", "root path=/wsx raw=/wsx mount= orig=/wsx", 200},
		{"/static/css/a.css", "static path=/css/a.css raw=/css/a.css mount=/static orig=/static/css/a.css", 200},
		{"/st%61tic/x", "static path=/x raw=/x mount=/st%61tic orig=/st%61tic/x", 200},
		{"/static/a%2Fb", "static path=/a/b raw=/a%2Fb mount=/static orig=/static/a%2Fb", 200},
		{"/static%2Fx", "root path=/static/x raw=/static%2Fx mount= orig=/static%2Fx", 200},
		{"/a%20b/c", "space path=/c raw=/c mount=/a%20b orig=/a%20b/c", 200},
		{"//ws", "root path=//ws raw=//ws mount= orig=//ws", 200},
		{"/nested", "nested-root path= raw= mount=/nested orig=/nested", 200},
		{"/nested/", "nested-root path=/ raw=/ mount=/nested orig=/nested/", 200},
		{"/nested/info", "info path= raw= mount=/nested/info orig=/nested/info", 200},
		{"/nested/info/deep/er", "info path=/deep/er raw=/deep/er mount=/nested/info orig=/nested/info/deep/er", 200},
		{"/nested/other", "nested-root path=/other raw=/other mount=/nested orig=/nested/other", 200},
		{"/bare/x/y", "bare-x path=/y raw=/y mount=/bare/x orig=/bare/x/y", 200},
		{"/bare/y", "", 404},
		{"/bare", "", 404},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tr.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.target, nil))
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d; body %q", rec.Code, tt.status, rec.Body)
			}
			if tt.want != "" && rec.Body.String() != tt.want {
				t.Errorf("got  %q\nwant %q", rec.Body, tt.want)
			}
		})
	}
}

func TestTreeNotFound(t *testing.T) {
	tr := NewTree()
	mustMount(t, tr, "ws", echo("ws"))
	for _, target := range []string{"/", "/x", "/wsx/y", "/%77s2"} {
		rec := httptest.NewRecorder()
		tr.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: status %d type %q, want 404 JSON", target, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	// A request target that is not a path ("OPTIONS *") is not routed to "/".
	tr2 := NewTree()
	mustMount(t, tr2, "/", echo("root"))
	req := httptest.NewRequest(http.MethodOptions, "/", nil)
	req.URL.Path = "*"
	rec := httptest.NewRecorder()
	tr2.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotFound {
		t.Errorf("OPTIONS *: status %d, want 404", rec.Code)
	}
}

func TestTreeMountErrors(t *testing.T) {
	tr := NewTree()
	mustMount(t, tr, "/", echo("root"))
	mustMount(t, tr, "ws", echo("ws"))
	tests := []struct {
		key  string
		want error
	}{
		{"/", ErrDuplicateKey},
		{"ws", ErrDuplicateKey},
		{"", ErrBadKey},
		{".", ErrBadKey},
		{"..", ErrBadKey},
		{"a/b", ErrBadKey},
		{"/ws", ErrBadKey},
		{"ws/", ErrBadKey},
		{`a\b`, ErrBadKey},
		{"a\x00b", ErrBadKey},
		{"a\nb", ErrBadKey},
		{"\xff", ErrBadKey},
	}
	for _, tt := range tests {
		if err := tr.Mount(tt.key, echo("x")); !errors.Is(err, tt.want) {
			t.Errorf("Mount(%q) = %v, want %v", tt.key, err, tt.want)
		}
	}
	if _, err := tr.Sub("ws"); !errors.Is(err, ErrDuplicateKey) {
		t.Errorf("Sub(ws) = %v, want ErrDuplicateKey", err)
	}
	if err := tr.Mount("nil", nil); !errors.Is(err, ErrBadOption) {
		t.Errorf("Mount(nil handler) = %v, want ErrBadOption", err)
	}
}

// A Tree may gain services while it serves (run with -race).
func TestTreeConcurrentMount(t *testing.T) {
	tr := NewTree()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			_ = tr.Mount(fmt.Sprint("k", i), echo("k"))
		}
	}()
	for range 50 {
		tr.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/k1/x", nil))
	}
	<-done
	rec := httptest.NewRecorder()
	tr.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/k49", nil))
	if rec.Code != 200 {
		t.Fatalf("after mounting: status %d", rec.Code)
	}
}
