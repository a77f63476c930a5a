package bridge

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkCaller posts a call through the Caller handler to a Go callee
// over local pairs and a real router.
func BenchmarkCaller(b *testing.B) {
	e := newEnvTB(b)
	e.register("com.example.echo", echoArgs)
	h, err := NewCaller(e.bridge, CallerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	const body = `{"procedure":"com.example.echo","args":[1,"two",3.5],"kwargs":{"k":true}}`
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/call", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
