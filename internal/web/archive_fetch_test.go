package web

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// origin serves raw at /site.zip, a 404 elsewhere, and at /stall a body
// that never comes (until the client gives up).
func origin(t *testing.T, raw []byte) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/site.zip", func(w http.ResponseWriter, r *http.Request) { w.Write(raw) })
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush() // no Content-Length: the size is only known while reading
		w.Write(raw)
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchArchive(t *testing.T) {
	_, raw := writeZip(t)
	srv := origin(t, raw)
	good := sha256Hex(raw)
	tests := []struct {
		name string
		opts FetchOptions
		want error // nil: the file is written
	}{
		{"good hash", FetchOptions{URL: srv.URL + "/site.zip", Hashes: []string{good}}, nil},
		{"no hash", FetchOptions{URL: srv.URL + "/site.zip"}, nil},
		{"bad hash", FetchOptions{URL: srv.URL + "/site.zip", Hashes: []string{strings.Repeat("ab", 32)}}, ErrArchiveHash},
		{"too large by Content-Length", FetchOptions{URL: srv.URL + "/site.zip", MaxBytes: 100}, ErrFetchTooLarge},
		{"too large while reading", FetchOptions{URL: srv.URL + "/chunked", MaxBytes: 100}, ErrFetchTooLarge},
		{"not found", FetchOptions{URL: srv.URL + "/none.zip"}, errAny},
		{"stalled", FetchOptions{URL: srv.URL + "/stall", Timeout: 100 * time.Millisecond}, errAny},
		{"ftp origin", FetchOptions{URL: "ftp://example.com/site.zip"}, ErrBadOption},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.opts.Dest = filepath.Join(dir, "site.zip")
			err := FetchArchive(t.Context(), tt.opts)
			files, _ := os.ReadDir(dir)
			if tt.want == nil {
				got, rerr := os.ReadFile(tt.opts.Dest)
				if err != nil || rerr != nil || !bytes.Equal(got, raw) || len(files) != 1 {
					t.Fatalf("FetchArchive: %v; file: %v, %d bytes, %d files", err, rerr, len(got), len(files))
				}
				return
			}
			if err == nil || (tt.want != errAny && !errors.Is(err, tt.want)) {
				t.Errorf("FetchArchive: %v, want %v", err, tt.want)
			}
			if len(files) != 0 { // neither the file nor a temporary one is kept
				t.Errorf("left behind: %v", files)
			}
		})
	}
}

// errAny: any error will do.
var errAny = errors.New("any error")
