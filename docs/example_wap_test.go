package docs

import (
	"net/http"
	"strings"
	"testing"
)

// TestWAPExample runs configuration.md's wap example (examples/wap: its
// node directory .crossbar, reports.py and templates beside it) under
// Debian's /usr/bin/python3 with python3-jinja2 and python3-werkzeug, and
// asks for the pages the page shows.
func TestWAPExample(t *testing.T) {
	n := startPythonProject(t, "wap")
	base := "http://" + n.Listeners()[0].Address
	tests := []struct {
		path   string
		status int
		body   string
	}{
		{"/reports/greeting/Ada", http.StatusOK, "<p>Hello, Ada!</p>"},
		{"/reports/greeting/%3Cb%3E", http.StatusOK, "<p>Hello, &lt;b&gt;!</p>"},
		{"/reports/product/42/sales", http.StatusOK, "<h1>Product 42: sales</h1>\n<ul><li>widgets: 3</li><li>gadgets: 5</li></ul>"},
		{"/reports/about", http.StatusOK, "<p>Reports, rendered from WAMP calls.</p>"},
	}
	for _, tt := range tests {
		status, body := getPage(t, base+tt.path)
		if body = strings.TrimSuffix(body, "\n"); status != tt.status || body != tt.body {
			t.Errorf("GET %s: %d %q, want %d %q", tt.path, status, body, tt.status, tt.body)
		}
	}
	for _, tt := range []struct {
		path   string
		status int
		pre    string
	}{
		{"/reports/product/7/sales", http.StatusInternalServerError, "<pre>com.example.error.no_such_product</pre>"},
		{"/reports/product/x/sales", http.StatusNotFound, "<pre>Path &quot;/reports/product/x/sales&quot; not found [werkzeug.routing.MapAdapter.match]</pre>"},
	} {
		status, body := getPage(t, base+tt.path)
		if status != tt.status || !strings.Contains(body, tt.pre) {
			t.Errorf("GET %s: %d %q, want %d with %q", tt.path, status, body, tt.status, tt.pre)
		}
	}
}
