package bridge

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/junction-wamp/junction/internal/bridge/httpauth"
	"github.com/junction-wamp/junction/wamp"
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

// BenchmarkEventStreamFanout streams each event to 1,000 SSE clients over
// loopback HTTP, and reports the events delivered per second (each
// client's copy counted). Events are published in batches, each waited
// for at every client, so that the bridge session's event queue stays
// within its bound.
func BenchmarkEventStreamFanout(b *testing.B) {
	const clients, batch = 1000, 50
	se := newStreamEnvTB(b, EventStreamOptions{})
	counts := make([]chan int, clients)
	for i := range clients {
		conn := openRaw(b, se.srv.Listener.Addr().String(), "topic=com.example.fan")
		counts[i] = make(chan int, 1)
		go countEvents(bufio.NewReader(httputil.NewChunkedReader(bufio.NewReader(conn))), counts[i])
	}
	args := wamp.List{"an event of some size", 42, true}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for sent := 0; sent < b.N; {
		n := min(batch, b.N-sent)
		for range n {
			se.publish("com.example.fan", args, nil, nil)
		}
		sent += n
		for _, c := range counts {
			for got := 0; got < n; {
				got += <-c
			}
		}
	}
	b.ReportMetric(float64(b.N)*clients/time.Since(start).Seconds(), "events/s")
}

// countEvents reads a stream and sends 1 on c for each event's data line,
// until the stream ends.
func countEvents(r *bufio.Reader, c chan<- int) {
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		if bytes.HasPrefix(line, []byte("data: ")) {
			c <- 1
		}
	}
}

// BenchmarkCallerIdentity is BenchmarkCaller without credentials and with
// an HS256 JWT on each request (verified once, then found in the
// resolver's cache), in the same run; the call then runs with the token's
// identity.
func BenchmarkCallerIdentity(b *testing.B) {
	e := newActsForEnv(b)
	e.register("com.user.echo", echoArgs)
	e.register("com.example.echo", echoArgs)
	secret := []byte("0123456789abcdef0123456789abcdef")
	res, err := httpauth.New(httpauth.Options{JWT: &httpauth.JWTOptions{Algorithms: []string{"HS256"}, Secret: secret, AuthRole: "user"}})
	if err != nil {
		b.Fatal(err)
	}
	token := benchToken(b, secret)
	for _, tt := range []struct {
		name, procedure, authz string
		access                 Access
	}{
		{"none", "com.example.echo", "", Access{}},
		{"jwt", "com.user.echo", "Bearer " + token, Access{Identity: res}},
	} {
		h, err := NewCaller(e.bridge, CallerOptions{Access: tt.access})
		if err != nil {
			b.Fatal(err)
		}
		body := `{"procedure":"` + tt.procedure + `","args":[1,"two",3.5],"kwargs":{"k":true}}`
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", "/call", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				if tt.authz != "" {
					r.Header.Set("Authorization", tt.authz)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// benchToken is an HS256 token for alice, valid for an hour.
func benchToken(b *testing.B, secret []byte) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, nil)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(jwt.Claims{Subject: "alice", Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	return tok
}

// BenchmarkEventStreamHandOff is the session's dispatch goroutine's share
// of one event for 1,000 streams: a push onto each stream's queue (their
// writers take the queued frames every 64 events).
func BenchmarkEventStreamHandOff(b *testing.B) {
	qs := make([]*streamQueue, 1000)
	for i := range qs {
		qs[i] = newStreamQueue(http.NewResponseController(httptest.NewRecorder()), 1<<30, 1<<40)
	}
	frame := make([]byte, 100)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for _, q := range qs {
			q.push(frame)
		}
		if i%64 == 63 {
			for _, q := range qs {
				q.take()
				<-q.ready
			}
		}
	}
}
