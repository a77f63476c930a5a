package bridge

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkAPI serves a GET route with a path and a query parameter and
// a PUT route with a body member through the API handler to a Go callee
// over local pairs and a real router (compare BenchmarkCaller).
func BenchmarkAPI(b *testing.B) {
	e := newEnvTB(b)
	e.register("com.example.echo", echoArgs)
	a, err := NewAPI(e.bridge, APIOptions{Routes: apiRoutes})
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct{ name, method, target, body string }{
		{"get", "GET", "/users/42?fields=name", ""},
		{"put", "PUT", "/users/42", `{"name":"alice","age":7}`},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(bb.method, bb.target, strings.NewReader(bb.body))
				w := httptest.NewRecorder()
				a.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}
