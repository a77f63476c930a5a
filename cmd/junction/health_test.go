package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			_, _ = w.Write([]byte(`{"status":"ok"}`))
		case "/readyz":
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"ready":false}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	// A port nobody listens on: one the system gave and took back.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/healthz"
	ln.Close()
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"healthy", []string{srv.URL + "/healthz"}, 0, `200 OK` + "\n" + `{"status":"ok"}`, ""},
		{"not ready", []string{srv.URL + "/readyz"}, 1, "", `503 Service Unavailable` + "\n" + `{"ready":false}`},
		{"not found", []string{srv.URL + "/nope"}, 1, "", "404 Not Found"},
		{"refused", []string{"--timeout", "2s", closed}, 1, "", "junction health: "},
		{"no url", nil, 2, "", "want one URL, got 0"},
		{"two urls", []string{srv.URL, srv.URL}, 2, "", "want one URL, got 2"},
		{"not http", []string{"ftp://x/"}, 2, "", `"ftp://x/" is not an http:// or https:// URL`},
		{"relative", []string{"/healthz"}, 2, "", "is not an http://"},
		{"bad flag", []string{"--bogus", srv.URL}, 2, "", "usage: junction health"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(t.Context(), nil, append([]string{"health"}, tt.args...), &out, &errOut, noEnv)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, &out, &errOut)
			}
			if !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q and %q", &out, &errOut, tt.stdout, tt.stderr)
			}
		})
	}
}
