package docs

import (
	"net/http"
	"testing"
)

// TestPythonWebExample runs configuration.md's wsgi and resource example
// (examples/pyweb: its node directory .crossbar, myapp.py and hello.py
// beside it) under Debian's /usr/bin/python3, and asks what the page
// shows.
func TestPythonWebExample(t *testing.T) {
	n := startPythonProject(t, "pyweb")
	base := "http://" + n.Listeners()[0].Address
	tests := []struct {
		path   string
		status int
		body   string
	}{
		{"/?name=Ada", http.StatusOK, "Hi Ada, from WSGI at ''\n"},
		{"/other", http.StatusNotFound, "not found\n"},
		{"/hello/a/b", http.StatusOK, "Hello from Twisted, below /hello: 'a/b'\n"},
	}
	for _, tt := range tests {
		if status, body := getPage(t, base+tt.path); status != tt.status || body != tt.body {
			t.Errorf("GET %s: %d %q, want %d %q", tt.path, status, body, tt.status, tt.body)
		}
	}
}
