package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testSource is a Source with one realm whose session count the test
// sets, and one bridge service.
type testSource struct {
	sessions atomic.Int64
	requests atomic.Uint64
}

func (s *testSource) get(q DashboardQuery) Dashboard {
	n := int(s.sessions.Load())
	d := Dashboard{
		Version: "1.2.3", Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Realms:           []DashboardRealm{{Name: "realm1", Sessions: n}},
		BridgeServices:   []DashboardBridgeService{{Type: "caller", Where: "/call", Path: "p.call", Realm: "realm1", Requests: s.requests.Load()}},
		SubscriberQueues: []DashboardQueue{},
	}
	if q.Realm == "" || q.Realm == "realm1" {
		d.Realm = &DashboardRealmDetail{Name: "realm1", SessionsTotal: n, Page: q.Page, Pages: 1, PageSize: q.PageSize,
			Sessions: []DashboardSession{{ID: 7, AuthID: "<b>joe</b>", AuthRole: "user", Peer: "127.0.0.1:5000"}}}
	}
	return d
}

func newTestDashboard(t *testing.T, src *testSource, opts DashboardOptions) *DashboardHandler {
	t.Helper()
	opts.Source = src.get
	h, err := NewDashboard(opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDashboardRoutes: what each path below the mount point answers, to
// whom.
func TestDashboardRoutes(t *testing.T) {
	h := newTestDashboard(t, &testSource{}, DashboardOptions{})
	tests := []struct {
		name, method, path, accept, remote string
		status                             int
		contentType, body                  string
	}{
		{"page", "GET", "/", "text/html,*/*;q=0.8", "", 200, "text/html; charset=utf-8", `<script src="dashboard.js" defer></script>`},
		{"page for curl", "GET", "/", "*/*", "", 200, "text/html; charset=utf-8", "<title>Junction dashboard</title>"},
		{"json", "GET", "/", "application/json", "", 200, "application/json", `"version":"1.2.3"`},
		{"json realm", "GET", "/?realm=realm1&page=1&page_size=10", "application/json", "", 200, "application/json", `"page_size":10`},
		{"json escapes nothing it need not", "GET", "/", "application/json", "", 200, "application/json", `"authid":"\u003cb\u003ejoe\u003c/b\u003e"`},
		{"bad page", "GET", "/?page=0", "application/json", "", 400, "application/json", `page \"0\": must be a number from 1`},
		{"bad page size", "GET", "/?page_size=100000", "application/json", "", 400, "application/json", "must be a number in 1..500"},
		{"script", "GET", "/dashboard.js", "", "", 200, "text/javascript; charset=utf-8", "EventSource"},
		{"style", "GET", "/dashboard.css", "", "", 200, "text/css; charset=utf-8", "prefers-color-scheme"},
		{"icon", "GET", "/favicon.svg", "", "", 200, "image/svg+xml", "<svg"},
		{"head", "HEAD", "/", "", "", 200, "text/html; charset=utf-8", ""},
		{"index not by name", "GET", "/index.html", "", "", 404, "application/json", "not found"},
		{"other path", "GET", "/favicon.ico", "", "", 404, "application/json", "not found"},
		{"deeper", "GET", "/events/x", "", "", 404, "application/json", "not found"},
		{"mount point", "GET", "", "", "", 302, "text/html; charset=utf-8", "/dash/"},
		{"post", "POST", "/", "", "", 405, "application/json", "method not allowed"},
		{"remote refused", "GET", "/", "", "192.0.2.1:4000", 403, "application/json", "may not see the dashboard"},
		{"remote refused before 405", "POST", "/", "", "192.0.2.1:4000", 403, "application/json", "forbidden"},
		{"remote refused asset", "GET", "/dashboard.js", "", "10.0.0.1:4000", 403, "application/json", "forbidden"},
		{"v6 loopback", "GET", "/favicon.svg", "", "[::1]:4000", 200, "image/svg+xml", "<svg"},
		{"mapped loopback", "GET", "/favicon.svg", "", "[::ffff:127.0.0.1]:4000", 200, "image/svg+xml", "<svg"},
		{"no address", "GET", "/", "", "@", 403, "application/json", "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "http://x/dash"+tt.path, nil)
			rest, _, _ := strings.Cut(tt.path, "?")
			r = withMount(r, "/dash", rest)
			r.RemoteAddr = "127.0.0.1:4000"
			if tt.remote != "" {
				r.RemoteAddr = tt.remote
			}
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.status || w.Header().Get("Content-Type") != tt.contentType || !strings.Contains(w.Body.String(), tt.body) {
				t.Fatalf("%s %s: %d %q\n%s\nwant %d %q with %q", tt.method, tt.path, w.Code, w.Header().Get("Content-Type"), w.Body, tt.status, tt.contentType, tt.body)
			}
			if tt.status == 302 && w.Header().Get("Location") != "/dash/" {
				t.Errorf("Location %q, want /dash/", w.Header().Get("Location"))
			}
			if tt.status == 200 && (w.Header().Get("Cache-Control") != "no-store" || !strings.Contains(w.Header().Get("Content-Security-Policy"), "script-src 'self'")) {
				t.Errorf("headers %v", w.Header())
			}
		})
	}
}

// TestDashboardJSON: the JSON answer is the source's document with the
// clock: now and the uptime.
func TestDashboardJSON(t *testing.T) {
	src := &testSource{}
	src.sessions.Store(3)
	h := newTestDashboard(t, src, DashboardOptions{})
	h.now = func() time.Time { return time.Date(2026, 1, 2, 4, 4, 5, 0, time.UTC) }
	r := httptest.NewRequest("GET", "/?realm=realm1", nil)
	r.RemoteAddr = "127.0.0.1:4000"
	r.Header.Set("Accept", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var d Dashboard
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
		t.Fatalf("%v: %s", err, w.Body)
	}
	if d.UptimeSeconds != 3600 || d.Realms[0].Sessions != 3 || d.Realm == nil || d.Realm.Page != 1 || d.Realm.PageSize != DefaultDashboardPageSize ||
		d.BridgeServices[0].RequestsPerSecond != nil {
		t.Errorf("got %s", w.Body)
	}
}

// TestDashboardAllow: an Allow function replaces the loopback rule; a
// Unix socket's clients are always let in.
func TestDashboardAllow(t *testing.T) {
	ten := netip.MustParsePrefix("10.0.0.0/8")
	h := newTestDashboard(t, &testSource{}, DashboardOptions{Allow: ten.Contains})
	for remote, want := range map[string]int{"10.1.2.3:80": 200, "127.0.0.1:80": 403, "[::ffff:10.0.0.1]:80": 200} {
		r := httptest.NewRequest("GET", "/favicon.svg", nil)
		r.RemoteAddr = remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%s: %d, want %d", remote, w.Code, want)
		}
	}
	r := httptest.NewRequest("GET", "/favicon.svg", nil)
	r.RemoteAddr = "@"
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.UnixAddr{Name: "/tmp/s", Net: "unix"}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Errorf("unix socket client: %d, want 200", w.Code)
	}
}

// readEvent reads one Server-Sent Event's data.
func readEvent(t *testing.T, br *bufio.Reader) Dashboard {
	t.Helper()
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var d Dashboard
			if err := json.Unmarshal([]byte(data), &d); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			return d
		}
	}
}

// TestDashboardEvents: the stream sends a snapshot at once and then each
// interval, with what changed in between and the rates; Shutdown ends it
// and refuses new streams.
func TestDashboardEvents(t *testing.T) { onEngines(t, testDashboardEvents) }

func testDashboardEvents(t *testing.T) {
	src := &testSource{}
	h := newTestDashboard(t, src, DashboardOptions{Interval: 20 * time.Millisecond})
	srv := newFront(t, h)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/events?realm=realm1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %v", res.StatusCode, res.Header)
	}
	br := bufio.NewReader(res.Body)
	if d := readEvent(t, br); d.Realms[0].Sessions != 0 || d.Realm.Name != "realm1" {
		t.Fatalf("first event %+v", d)
	}
	src.sessions.Store(2)
	src.requests.Store(10)
	for d := readEvent(t, br); d.Realms[0].Sessions != 2 || d.BridgeServices[0].RequestsPerSecond == nil; d = readEvent(t, br) {
	}
	h.Shutdown()
	if _, err := io.ReadAll(br); err != nil {
		t.Fatalf("stream end: %v", err)
	}
	res2, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	res2.Body.Close()
	if res2.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Shutdown: %d, want 503", res2.StatusCode)
	}
}

// TestDashboardMaxStreams: a stream past MaxStreams gets 503, and its
// place is free again once a stream ends.
func TestDashboardMaxStreams(t *testing.T) { onEngines(t, testDashboardMaxStreams) }

func testDashboardMaxStreams(t *testing.T) {
	h := newTestDashboard(t, &testSource{}, DashboardOptions{MaxStreams: 1})
	srv := newFront(t, h)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readEvent(t, bufio.NewReader(res.Body))
	res2, err := http.Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	res2.Body.Close()
	if res2.StatusCode != http.StatusServiceUnavailable || res2.Header.Get("Retry-After") == "" {
		t.Errorf("second stream: %d %v, want 503 with Retry-After", res2.StatusCode, res2.Header)
	}
	cancel()
	res.Body.Close()
	h.Shutdown() // ends the first stream's handler if it has not seen the cancel yet
}

// TestDashboardOptions: bad options are refused.
func TestDashboardOptions(t *testing.T) {
	src := &testSource{}
	for name, o := range map[string]DashboardOptions{
		"no source":         {},
		"negative interval": {Source: src.get, Interval: -1},
		"negative page":     {Source: src.get, PageSize: -1},
	} {
		if _, err := NewDashboard(o); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestRateTracker: rates come from two samples a window apart; a sample
// too old or counts that went down give no rate.
func TestRateTracker(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr := rateTracker{window: time.Second}
	svc := func(req, errs uint64) []DashboardBridgeService {
		return []DashboardBridgeService{{Type: "caller", Where: "/call", Path: "p.call", Requests: req, Errors: errs},
			{Type: "caller", Where: "/call", Path: "q.call", Requests: 5}} // same URL, another transport
	}
	steps := []struct {
		at         time.Duration
		req, errs  uint64
		reqR, errR float64 // -1: no rate
	}{
		{0, 10, 0, -1, -1},
		{500 * time.Millisecond, 15, 0, -1, -1}, // within the window: no new sample
		{2 * time.Second, 30, 4, 10, 2},
		{2500 * time.Millisecond, 99, 9, 10, 2}, // the last rate still
		{4 * time.Second, 20, 1, -1, -1},        // went down: restart
		{5 * time.Second, 30, 3, 10, 2},
		{5*time.Second + 2*time.Minute, 70, 6, -1, -1}, // stale
	}
	for _, st := range steps {
		ss := svc(st.req, st.errs)
		tr.fill(t0.Add(st.at), ss)
		got := ss[0]
		if st.reqR < 0 {
			if got.RequestsPerSecond != nil || got.ErrorsPerSecond != nil {
				t.Errorf("at %v: rates %v %v, want none", st.at, *got.RequestsPerSecond, *got.ErrorsPerSecond)
			}
			continue
		}
		if got.RequestsPerSecond == nil || *got.RequestsPerSecond != st.reqR || *got.ErrorsPerSecond != st.errR {
			t.Errorf("at %v: rates %v %v, want %v %v", st.at, got.RequestsPerSecond, got.ErrorsPerSecond, st.reqR, st.errR)
		}
		if st.at >= 2*time.Second && st.at < 4*time.Second && (ss[1].RequestsPerSecond == nil || *ss[1].RequestsPerSecond != 0) {
			t.Errorf("at %v: the other service's rate %v, want 0 (its count stayed)", st.at, ss[1].RequestsPerSecond)
		}
	}
}

// FuzzDashboardQuery: any query string gives a query within bounds or an
// error, never a panic.
func FuzzDashboardQuery(f *testing.F) {
	for _, s := range []string{"", "realm=realm1", "page=2&page_size=10", "page=-1", "page=99999999999999999999", "page_size=0", "realm=%zz", "page=1&page=2"} {
		f.Add(s)
	}
	h, err := NewDashboard(DashboardOptions{Source: (&testSource{}).get})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.RawQuery = raw
		q, err := h.query(r)
		if err == nil && (q.Page < 1 || q.PageSize < 1 || q.PageSize > MaxDashboardPageSize) {
			t.Errorf("%q: %+v", raw, q)
		}
	})
}
