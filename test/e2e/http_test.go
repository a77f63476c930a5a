package e2e_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// curlUserAgent is what curl sends; the requests are written as curl
// writes them (curl -H 'Content-Type: application/json' -d BODY URL).
const curlUserAgent = "curl/8.5.0"

// httpClient makes the tests' requests. No keep-alive, as curl on the
// command line: each request its own connection.
var httpClient = &http.Client{
	Timeout:   30 * time.Second,
	Transport: &http.Transport{DisableKeepAlives: true},
}

// response is an HTTP answer, read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

// curlRequest builds a request as curl sends it: User-Agent curl,
// Accept */*, and header pairs (name, value) such as Content-Type.
func curlRequest(t *testing.T, method, url string, body []byte, header ...string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatalf("request %s %s: %v", method, url, err)
	}
	req.Header.Set("User-Agent", curlUserAgent)
	req.Header.Set("Accept", "*/*")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return req
}

// do sends req and reads the answer.
func do(t *testing.T, req *http.Request) response {
	t.Helper()
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// postJSON POSTs body with Content-Type application/json, as curl -H
// 'Content-Type: application/json' -d BODY URL does.
func postJSON(t *testing.T, url, body string) response {
	t.Helper()
	return do(t, curlRequest(t, http.MethodPost, url, []byte(body), "Content-Type", "application/json"))
}

// decodeJSON decodes b (numbers as float64, as the wanted values are).
func decodeJSON(t *testing.T, what string, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s is not JSON: %v: %q", what, err, b)
	}
	return v
}

// checkAnswer checks the status, the content type (unless r has no
// headers, as from the curl command) and that the body is the JSON want
// (same members and values, in any order).
func checkAnswer(t *testing.T, r response, status int, want string) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d; body %s", r.status, status, r.body)
		return
	}
	if ct := r.header.Get("Content-Type"); r.header != nil && !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	got, wantV := decodeJSON(t, "answer", r.body), decodeJSON(t, "wanted answer", []byte(want))
	if !reflect.DeepEqual(got, wantV) {
		t.Errorf("answer %s, want %s", r.body, want)
	}
}

// errorText returns the "error" member of a JSON error answer.
func errorText(t *testing.T, r response) string {
	t.Helper()
	m, _ := decodeJSON(t, "answer", r.body).(map[string]any)
	s, _ := m["error"].(string)
	return s
}
