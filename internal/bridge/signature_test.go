package bridge

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSignVectors checks known signatures, computed with Python's hmac and
// hashlib as Crossbar's signing clients compute them.
func TestSignVectors(t *testing.T) {
	tests := []struct{ ts, seq, nonce, body, want string }{
		{"2011-10-14T16:59:51.123Z", "1", "42", `{"topic":"a"}`, "OLrA-qc63EavzktSdEPeLQ9_dHGIlxoYvEz9_6VhbPg="},
		{"2024-01-01T00:00:00.000Z", "1", "123456789", `{"topic": "com.test.messages", "args": [1]}`, "GwgidCV1plUz3nN3fk0Zdn0zI0Y_C7xKpBEYf7JVpsQ="},
		{"2024-01-01T00:00:00.000Z", "12", "3", `{}`, "ni79KnITQzWLd5-1vFEGXkcjGxuPW0mK7dqXKoev41k="},
		{"2024-01-01T00:00:00.000Z", "1", "23", `{}`, "ni79KnITQzWLd5-1vFEGXkcjGxuPW0mK7dqXKoev41k="},
	}
	for _, tt := range tests {
		got := base64.URLEncoding.EncodeToString(Sign(testSecret, testKey, tt.ts, tt.seq, tt.nonce, []byte(tt.body)))
		if got != tt.want {
			t.Errorf("Sign(%q, %q, %q, %s) = %s, want %s", tt.ts, tt.seq, tt.nonce, tt.body, got, tt.want)
		}
	}
}

// TestSignedVectorAccepted sends the reference vector's request to a
// Publisher with no timestamp limit: accepted once, refused when replayed.
func TestSignedVectorAccepted(t *testing.T) {
	fake := newFake(t)
	h, err := NewPublisher(fake, PublisherOptions{Signing: Signing{Key: testKey, Secret: testSecret}})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"topic": "com.test.messages", "args": [1]}`
	q := url.Values{"key": {testKey}, "timestamp": {"2024-01-01T00:00:00.000Z"}, "seq": {"1"},
		"nonce": {"123456789"}, "signature": {"GwgidCV1plUz3nN3fk0Zdn0zI0Y_C7xKpBEYf7JVpsQ="}}
	w := do(h, httpReq{query: q.Encode(), body: body})
	if w.Code != 200 || w.Body.String() != `{"id":42}` {
		t.Fatalf("signed publish: %d %s", w.Code, w.Body)
	}
	w = do(h, httpReq{query: q.Encode(), body: body})
	if w.Code != 401 || w.Body.String() != deny(textReplay) {
		t.Fatalf("replay: %d %s", w.Code, w.Body)
	}
	if n := len(fake.recorded()); n != 1 {
		t.Fatalf("%d publishes, want 1", n)
	}
}

// TestReplayShiftedNonce is F2 (docs/SECURITY.md): the signed string has no
// separators, so a captured request signed as seq=1&nonce=4242 verifies
// again as seq=14&nonce=242, 142/42 and 1424/2. Each is a replay.
func TestReplayShiftedNonce(t *testing.T) {
	fake := newFake(t)
	signing := Signing{Key: testKey, Secret: testSecret, TimestampDeltaLimit: 300 * time.Second}
	c, _ := NewCaller(fake, CallerOptions{Signing: signing})
	p, _ := NewPublisher(fake, PublisherOptions{Signing: signing})
	for _, h := range []http.Handler{c, p} {
		t.Run(fmt.Sprintf("%T", h), func(t *testing.T) {
			body := `{"procedure":"com.example.x","topic":"com.example.x"}`
			ts := nowStamp()
			sig := base64.URLEncoding.EncodeToString(Sign(testSecret, testKey, ts, "1", "4242", []byte(body)))
			send := func(seq, nonce string) *httptest.ResponseRecorder {
				q := url.Values{"key": {testKey}, "timestamp": {ts}, "seq": {seq}, "nonce": {nonce}, "signature": {sig}}
				return do(h, httpReq{query: q.Encode(), body: body})
			}
			before := len(fake.recorded())
			if w := send("1", "4242"); w.Code != 200 {
				t.Fatalf("first: %d %s", w.Code, w.Body)
			}
			for _, v := range [][2]string{{"1", "4242"}, {"14", "242"}, {"142", "42"}, {"1424", "2"}} {
				if w := send(v[0], v[1]); w.Code != 401 || w.Body.String() != deny(textReplay) {
					t.Errorf("seq=%s&nonce=%s: %d %s, want 401 replay", v[0], v[1], w.Code, w.Body)
				}
			}
			if n := len(fake.recorded()) - before; n != 1 {
				t.Errorf("%d requests executed, want 1", n)
			}
		})
	}
}

// TestReplayCacheFull is F2, its flood part (docs/SECURITY.md): with a
// timestamp window, a cache full of requests inside their window refuses
// the next signed request with 503 and Retry-After instead of forgetting
// its oldest, so that a captured request cannot be replayed by pushing it
// out with enough fresh ones (without it, the replay of the first was
// accepted). Without a window the oldest is forgotten, as documented: its
// replay then passes.
func TestReplayCacheFull(t *testing.T) {
	const max = 4
	tests := []struct {
		delta      time.Duration
		nextStatus int // the request past max
		replay     int // the first request again
	}{
		{300 * time.Second, 503, 401},
		{0, 200, 200},
	}
	for _, tt := range tests {
		t.Run(tt.delta.String(), func(t *testing.T) {
			log, logs := newLog()
			c, _ := NewCaller(newFake(t), CallerOptions{Common: Common{Logger: log},
				Signing: Signing{Key: testKey, Secret: testSecret, TimestampDeltaLimit: tt.delta, Nonces: NewNonceCache(max)}})
			ts := nowStamp()
			req := func(nonce int) httpReq {
				return httpReq{query: signedQuery(testKey, ts, "1", strconv.Itoa(nonce), okBody, base64.URLEncoding), body: okBody}
			}
			for n := range max {
				if w := do(c, req(n)); w.Code != 200 {
					t.Fatalf("request %d of %d: %d %s", n, max, w.Code, w.Body)
				}
			}
			w := do(c, req(max))
			if w.Code != tt.nextStatus {
				t.Errorf("request past the cache: %d %s, want %d", w.Code, w.Body, tt.nextStatus)
			}
			if w.Code == 503 && (w.Body.String() != deny(textReplayFull) || w.Header().Get("Retry-After") != "1" ||
				!strings.Contains(logs.String(), "replay cache full")) {
				t.Errorf("503 %s, Retry-After %q; log:\n%s", w.Body, w.Header().Get("Retry-After"), logs)
			}
			if w := do(c, req(0)); w.Code != tt.replay {
				t.Errorf("replay of the first request: %d %s, want %d", w.Code, w.Body, tt.replay)
			}
		})
	}
}

// TestNonceNeverUsedTwice: a nonce stays single-use with its key, even
// for another request body (another MAC), as the documentation promises.
func TestNonceNeverUsedTwice(t *testing.T) {
	h, _ := NewCaller(newFake(t), CallerOptions{Signing: Signing{Key: testKey, Secret: testSecret}})
	ts := nowStamp()
	for i, want := range []int{200, 401} {
		body := fmt.Sprintf(`{"procedure":"com.example.p","args":[%d]}`, i)
		if w := do(h, httpReq{query: signedQuery(testKey, ts, "1", "5", body, base64.URLEncoding), body: body}); w.Code != want {
			t.Errorf("request %d: %d %s, want %d", i, w.Code, w.Body, want)
		}
	}
}

func TestReplayAcrossServicesWithSharedCache(t *testing.T) {
	fake := newFake(t)
	signing := Signing{Key: testKey, Secret: testSecret, Nonces: NewNonceCache(0)}
	c, _ := NewCaller(fake, CallerOptions{Signing: signing})
	p, _ := NewPublisher(fake, PublisherOptions{Signing: signing})
	body := `{"procedure":"com.example.p","topic":"com.example.t"}`
	q := signedQuery(testKey, nowStamp(), "1", "77", body, base64.URLEncoding)
	if w := do(c, httpReq{query: q, body: body}); w.Code != 200 {
		t.Fatalf("call: %d %s", w.Code, w.Body)
	}
	if w := do(p, httpReq{query: q, body: body}); w.Code != 401 {
		t.Fatalf("replay on the publisher: %d %s", w.Code, w.Body)
	}
}

func TestSigningOptionErrors(t *testing.T) {
	tests := []struct {
		s    Signing
		want string
	}{
		{Signing{Key: "k"}, "bridge: secret: required when key is set"},
		{Signing{Secret: "s"}, "bridge: key: required when secret is set"},
		{Signing{TimestampDeltaLimit: -1}, "bridge: timestamp_delta_limit: must be >= 0"},
	}
	for _, tt := range tests {
		if _, err := NewCaller(newFake(t), CallerOptions{Signing: tt.s}); err == nil || err.Error() != tt.want {
			t.Errorf("NewCaller(%+v) = %v, want %s", tt.s, err, tt.want)
		}
		if _, err := NewPublisher(newFake(t), PublisherOptions{Signing: tt.s}); err == nil || err.Error() != tt.want {
			t.Errorf("NewPublisher(%+v) = %v, want %s", tt.s, err, tt.want)
		}
	}
	if _, err := NewCaller(nil, CallerOptions{}); err == nil {
		t.Error("NewCaller(nil) succeeded")
	}
}

func TestDecodeSignature(t *testing.T) {
	raw := Sign(testSecret, testKey, "", "", "", []byte("x"))
	for _, enc := range []*base64.Encoding{base64.URLEncoding, base64.StdEncoding, base64.RawURLEncoding, base64.RawStdEncoding} {
		got, ok := decodeSignature(enc.EncodeToString(raw))
		if !ok || string(got) != string(raw) {
			t.Errorf("%v: not decoded", enc)
		}
	}
	// A '+' sent unescaped arrives as a space.
	std := base64.StdEncoding.EncodeToString([]byte{0xfb, 0xef, 0xbe})
	if std != "++++" {
		t.Fatalf("test vector: %s", std)
	}
	if got, ok := decodeSignature(unquote(std)); !ok || string(got) != "\xfb\xef\xbe" {
		t.Errorf("plus as space: %x %v", got, ok)
	}
	for _, bad := range []string{"!!", "a", "ab$d"} {
		if _, ok := decodeSignature(bad); ok {
			t.Errorf("decodeSignature(%q) ok", bad)
		}
	}
}

func TestNonceTTL(t *testing.T) {
	if got := newSigner(Signing{Key: "k", Secret: "s"}, nil, nil).nonceTTL(); got != DefaultNonceHorizon {
		t.Errorf("no limit: %v", got)
	}
	if got := newSigner(Signing{Key: "k", Secret: "s", TimestampDeltaLimit: time.Minute}, nil, nil).nonceTTL(); got != 2*time.Minute {
		t.Errorf("limit 1m: %v", got)
	}
}

func TestIntegers(t *testing.T) {
	for s, want := range map[string]bool{"1": true, "+1": true, "-12": true, "007": true, "": false, "+": false,
		"1.0": false, " 1": false, "1_0": false, "0x1": false} {
		if isInteger(s) != want {
			t.Errorf("isInteger(%q) = %v", s, !want)
		}
	}
	for s, want := range map[string]bool{"0": true, "9007199254740992": true, "9007199254740993": false,
		"-1": false, "+5": true, "99999999999999999999": false, "": false, "1e3": false} {
		if _, ok := parseNonce(s); ok != want {
			t.Errorf("parseNonce(%q) ok = %v", s, ok)
		}
	}
}

// sharedTable is a cluster's replay table in memory: what the other
// nodes claimed, or down.
type sharedTable struct {
	mu     sync.Mutex
	claims map[string]time.Duration
	down   bool
}

func (s *sharedTable) Claim(_ context.Context, key string, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return false, errors.New("cluster: replay table: no quorum")
	}
	if _, ok := s.claims[key]; ok {
		return false, nil
	}
	s.claims[key] = ttl
	return true, nil
}

// TestReplaySharedTable: two services with caches of their own (two
// nodes) and one shared table: a request accepted by one is a replay on
// the other, its nonce spelt differently too; while the table cannot
// tell, signed requests get 503 (fail closed), and a request signed again
// with a new nonce passes once it is back.
func TestReplaySharedTable(t *testing.T) {
	table := &sharedTable{claims: map[string]time.Duration{}}
	log, logs := newLog()
	node := func() http.Handler {
		h, _ := NewCaller(newFake(t), CallerOptions{Common: Common{Logger: log},
			Signing: Signing{Key: testKey, Secret: testSecret, TimestampDeltaLimit: time.Minute, Shared: table}})
		return h
	}
	n1, n2 := node(), node()
	ts := nowStamp()
	req := func(seq, nonce string) httpReq {
		return httpReq{query: signedQuery(testKey, ts, seq, nonce, okBody, base64.URLEncoding), body: okBody}
	}
	if w := do(n1, req("1", "4242")); w.Code != 200 {
		t.Fatalf("first: %d %s", w.Code, w.Body)
	}
	for _, v := range [][2]string{{"1", "4242"}, {"14", "242"}} {
		if w := do(n2, req(v[0], v[1])); w.Code != 401 || w.Body.String() != deny(textReplay) {
			t.Errorf("replay of seq=%s&nonce=%s on the other node: %d %s, want 401", v[0], v[1], w.Code, w.Body)
		}
	}
	for key, ttl := range table.claims {
		if ttl != 2*time.Minute {
			t.Errorf("%s claimed for %v, want twice the window", key, ttl)
		}
	}
	table.down = true
	if w := do(n2, req("1", "7")); w.Code != 503 || w.Body.String() != deny(textReplayTable) ||
		!strings.Contains(logs.String(), "cluster replay table unavailable") {
		t.Errorf("table down: %d %s, want 503; log:\n%s", w.Code, w.Body, logs)
	}
	table.down = false
	if w := do(n2, req("1", "8")); w.Code != 200 {
		t.Errorf("a new nonce once the table is back: %d %s", w.Code, w.Body)
	}
}
