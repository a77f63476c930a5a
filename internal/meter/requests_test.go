package meter

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

func TestRequests(t *testing.T) {
	var r Requests
	for _, o := range []struct {
		code int
		d    time.Duration
	}{{200, time.Millisecond}, {200, time.Second}, {404, 0}, {503, 0}, {0, 0}, {42, 0}, {700, 0}} {
		r.Observe(o.code, o.d)
	}
	st := r.Snapshot()
	var codes []int
	var counts []uint64
	for _, c := range st.Codes {
		codes = append(codes, c.Code)
		counts = append(counts, c.Duration.Count)
	}
	if !slices.Equal(codes, []int{0, 200, 404, 503}) || !slices.Equal(counts, []uint64{3, 2, 1, 1}) {
		t.Errorf("codes %v counts %v, want [0 200 404 503] [3 2 1 1]", codes, counts)
	}
	if st.Requests() != 7 || st.Errors() != 5 {
		t.Errorf("requests %d errors %d, want 7 and 5", st.Requests(), st.Errors())
	}
	if d := st.Duration(); d.Count != 7 || d.Sum != time.Second+time.Millisecond {
		t.Errorf("duration %+v", d)
	}
}

func TestHandlerStatus(t *testing.T) {
	tests := []struct {
		name   string
		h      http.HandlerFunc
		cancel bool
		want   int
	}{
		{"explicit", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }, false, http.StatusTeapot},
		{"write", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("x")) }, false, http.StatusOK},
		{"nothing", func(http.ResponseWriter, *http.Request) {}, false, http.StatusOK},
		{"client gone", func(http.ResponseWriter, *http.Request) {}, true, NoResponse},
		{"informational first", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusCreated)
		}, false, http.StatusCreated},
		{"flush", func(w http.ResponseWriter, _ *http.Request) { w.(http.Flusher).Flush() }, false, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Requests
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.cancel {
				ctx, cancel := context.WithCancel(req.Context())
				cancel()
				req = req.WithContext(ctx)
			}
			r.Handler(tt.h).ServeHTTP(httptest.NewRecorder(), req)
			st := r.Snapshot()
			if len(st.Codes) != 1 || st.Codes[0].Code != tt.want || st.Codes[0].Duration.Count != 1 {
				t.Errorf("counted %+v, want one request with code %d", st.Codes, tt.want)
			}
		})
	}
}

// TestHandlerHijack: a connection the handler hijacks counts 101, over a
// real server (httptest's recorder cannot hijack).
func TestHandlerHijack(t *testing.T) {
	var r Requests
	done := make(chan struct{})
	h := r.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n")
		_ = rw.Flush()
		_ = c.Close()
	}))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.ServeHTTP(w, req)
		close(done) // after Observe
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	<-done
	if st := r.Snapshot(); len(st.Codes) != 1 || st.Codes[0].Code != http.StatusSwitchingProtocols {
		t.Errorf("counted %+v, want one 101", st.Codes)
	}
}
