package bridge

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// TestRefusedBeforeBody is F6, its order part (docs/SECURITY.md): a peer outside
// require_ip, or over plain HTTP with require_tls, is answered 403 from
// the request's headers alone, with the connection closed, without a
// byte of its body read; small and large declared bodies alike (net/http
// would otherwise read up to 256 KiB of the body before answering).
func TestRefusedBeforeBody(t *testing.T) {
	fake := newFake(t)
	ipOnly := Common{RequireIP: MustParseIPRules("10.0.0.0/8")}
	tlsOnly := Common{RequireTLS: true}
	caller, _ := NewCaller(fake, CallerOptions{Common: ipOnly, Signing: Signing{Key: testKey, Secret: testSecret}})
	publisher, _ := NewPublisher(fake, PublisherOptions{Common: tlsOnly})
	webhook, _ := NewWebhook(fake, WebhookOptions{Common: ipOnly, Topic: "com.example.hook"})
	tests := []struct {
		name string
		h    http.Handler
		want string
	}{
		{"caller ip", caller, deny(textDeniedIP)},
		{"publisher tls", publisher, deny(textDeniedTLS)},
		{"webhook ip", webhook, "NOT OK"},
	}
	for _, tt := range tests {
		for _, length := range []int{100, DefaultWebhookPostBodyLimit - 1} {
			t.Run(fmt.Sprintf("%s %d", tt.name, length), func(t *testing.T) {
				srv := httptest.NewServer(tt.h)
				defer srv.Close()
				c, err := net.Dial("tcp", srv.Listener.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second)) // fails the test rather than hang it
				fmt.Fprintf(c, "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", length)
				br := bufio.NewReader(c)
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("no answer to the headers alone: %v", err)
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusForbidden || string(body) != tt.want || !resp.Close {
					t.Errorf("answer %d %q, Connection: close %v; want 403 %q, close", resp.StatusCode, body, resp.Close, tt.want)
				}
			})
		}
	}
	if n := len(fake.recorded()); n != 0 {
		t.Errorf("%d WAMP actions", n)
	}
}

// blockedBody is a request body that sends prefix, then waits for more
// on a pipe.
type blockedBody struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func newBlockedBody(t *testing.T) *blockedBody {
	r, w := io.Pipe()
	t.Cleanup(func() { w.CloseWithError(errors.New("test over")) }) // ends a request the test left waiting
	return &blockedBody{r, w}
}

// start sends one request with body b (length -1: chunked) to h on a
// goroutine; its answer arrives on the returned channel.
func (b *blockedBody) start(h http.Handler, length int64) <-chan *httptest.ResponseRecorder {
	done := make(chan *httptest.ResponseRecorder, 1)
	r := httptest.NewRequest(http.MethodPost, "/hook", b.r)
	r.ContentLength = length
	r.RemoteAddr = "192.0.2.1:1234"
	go func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		done <- w
	}()
	return done
}

// TestBodyBufferBound is F6, its memory part (docs/SECURITY.md): concurrent large bodies
// reserve their declared length from one shared BodyBuffer; those that do
// not fit are answered 503 with Retry-After at once, before their body is
// read, and the bytes held never pass the bound.
func TestBodyBufferBound(t *testing.T) {
	const bound, size, n = 1 << 20, 400 << 10, 8 // room for two
	buf := NewBodyBuffer(bound)
	fake := newFake(t)
	h, err := NewWebhook(fake, WebhookOptions{Common: Common{Buffer: buf}, Topic: "com.example.hook"})
	if err != nil {
		t.Fatal(err)
	}
	bodies := make([]*blockedBody, n)
	answers := make(chan int, n)
	for i := range bodies {
		bodies[i] = newBlockedBody(t)
		done := bodies[i].start(h, size)
		go func() {
			w := <-done
			if w.Code == http.StatusServiceUnavailable && (w.Body.String() != "NOT OK" || w.Result().Header.Get("Retry-After") == "") {
				t.Errorf("503 %q, Retry-After %q", w.Body, w.Result().Header.Get("Retry-After"))
			}
			answers <- i<<16 | w.Code
		}()
	}
	busy := map[int]bool{}
	for range n - 2 {
		a := waitFor(t, answers, "503 while two bodies are in flight")
		if a&0xffff != http.StatusServiceUnavailable {
			t.Fatalf("request %d answered %d before its body was sent, want 503", a>>16, a&0xffff)
		}
		busy[a>>16] = true
	}
	if got := buf.InUse(); got != 2*size {
		t.Errorf("in use %d with two bodies in flight, want %d", got, 2*size)
	}
	for i, b := range bodies {
		if !busy[i] {
			go func() {
				b.w.Write([]byte(strings.Repeat("x", size)))
				b.w.Close()
			}()
			if a := waitFor(t, answers, "answer"); a&0xffff != http.StatusAccepted {
				t.Errorf("request %d answered %d, want 202", a>>16, a&0xffff)
			}
		}
	}
	if got := buf.InUse(); got != 0 {
		t.Errorf("in use %d after the answers, want 0", got)
	}
	if n := len(fake.recorded()); n != 2 {
		t.Errorf("%d events, want 2", n)
	}
}

// TestBodyBufferChunked: a body of unknown length reserves its buffer as
// it grows; a body that does not fit beside it is refused with 503 while
// it is read, and fits again once the first is answered.
func TestBodyBufferChunked(t *testing.T) {
	buf := NewBodyBuffer(4096)
	h, err := NewWebhook(newFake(t), WebhookOptions{Common: Common{Buffer: buf}, Topic: "com.example.hook"})
	if err != nil {
		t.Fatal(err)
	}
	first := newBlockedBody(t)
	firstDone := first.start(h, -1)
	first.w.Write([]byte(strings.Repeat("a", 3000))) // the buffer grows to 4096
	if w := do(h, httpReq{body: strings.Repeat("b", 1000), chunked: true}); w.Code != http.StatusServiceUnavailable || w.Body.String() != "NOT OK" {
		t.Errorf("beside a full buffer: %d %q, want 503", w.Code, w.Body)
	}
	first.w.Close()
	if w := waitFor(t, firstDone, "answer"); w.Code != http.StatusAccepted {
		t.Errorf("first: %d %q", w.Code, w.Body)
	}
	if w := do(h, httpReq{body: strings.Repeat("b", 1000), chunked: true}); w.Code != http.StatusAccepted {
		t.Errorf("alone: %d %q, want 202", w.Code, w.Body)
	}
	if got := buf.InUse(); got != 0 {
		t.Errorf("in use %d, want 0", got)
	}
}

// TestBodyBufferNeverFits: a body larger than the whole buffer is 413,
// declared or not, even with an unlimited post_body_limit.
func TestBodyBufferNeverFits(t *testing.T) {
	h, err := NewCaller(newFake(t), CallerOptions{Common: Common{PostBodyLimit: -1, Buffer: NewBodyBuffer(1000)}})
	if err != nil {
		t.Fatal(err)
	}
	body := okBody + strings.Repeat(" ", 1000)
	want := map[bool]string{
		false: deny(fmt.Sprintf(textTooLong, len(body), 1000)),
		true:  deny(fmt.Sprintf(textTooLongUnknown, 1000)),
	}
	for _, chunked := range []bool{false, true} {
		if w := do(h, httpReq{body: body, chunked: chunked}); w.Code != http.StatusRequestEntityTooLarge || w.Body.String() != want[chunked] {
			t.Errorf("chunked %v: %d %s, want 413 %s", chunked, w.Code, w.Body, want[chunked])
		}
	}
	if w := do(h, httpReq{body: okBody, chunked: true}); w.Code != http.StatusOK {
		t.Errorf("small: %d %s", w.Code, w.Body)
	}
}

// timeoutBody fails as a body read does when the web server's body
// timeout expires.
type timeoutBody struct{ sent bool }

func (b *timeoutBody) Read(p []byte) (int, error) {
	if !b.sent {
		b.sent = true
		return copy(p, "{"), nil
	}
	return 0, fmt.Errorf("web: request body timed out: %w", os.ErrDeadlineExceeded)
}

// TestBodyTimeoutAnswer: a body that timed out is answered 408 in each
// service's format, its connection closed.
func TestBodyTimeoutAnswer(t *testing.T) {
	for _, h := range handlers(t, newFake(t)) {
		r := httptest.NewRequest(http.MethodPost, "/x", &timeoutBody{})
		r.ContentLength = 100
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		want := deny(textBodyTimeout)
		if _, ok := h.(*Webhook); ok {
			want = "NOT OK"
		}
		if w.Code != http.StatusRequestTimeout || w.Body.String() != want || w.Result().Header.Get("Connection") != "close" {
			t.Errorf("%T: %d %q, Connection %q; want 408 %q, close", h, w.Code, w.Body, w.Result().Header.Get("Connection"), want)
		}
	}
}

// denseBody is a Caller body of n empty objects: 3 bytes each on the
// wire, about 64 bytes each once decoded.
func denseBody(n int) string {
	return `{"procedure":"com.example.slow","args":[` + strings.Repeat("{},", n-1) + `{}]}`
}

// decodedCost is what a request with this body holds from the body
// buffer: its decoded value's estimate.
func decodedCost(t *testing.T, body string) int64 {
	t.Helper()
	obj, err := decodeObject([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return int64(wamp.ObjectSize(obj))
}

// TestBodyBufferDecoded is F6, its decoded part (docs/SECURITY.md):
// bodies dense in small values cost many times their length once decoded,
// and the decoded value is held until the call ends; calls to a slow
// procedure hold the body buffer for their decoded bodies too, so the ones
// that do not fit are answered 503 with Retry-After (without it, all four
// were in flight on a buffer with room for two), and all of it is given
// back once they are answered. A body whose decoded value could never fit
// is 413.
func TestBodyBufferDecoded(t *testing.T) {
	body := denseBody(10000)
	cost := decodedCost(t, body)
	if cost < 12*int64(len(body)) { // an empty Object costs 40 bytes for its 3 ("{},")
		t.Fatalf("decoded cost %d for %d bytes: not dense", cost, len(body))
	}
	buf := NewBodyBuffer(2*cost + cost/2) // room for two
	fake := newFake(t)
	entered, release := make(chan struct{}), make(chan struct{})
	fake.call = func(wamp.URI, wamp.List, wamp.Object) (*client.Result, error) {
		entered <- struct{}{}
		<-release
		return &client.Result{}, nil
	}
	h := newCaller(t, fake, CallerOptions{Common: Common{Buffer: buf}})
	const n = 4
	answers := make(chan *httptest.ResponseRecorder, n)
	for range n {
		go func() { answers <- do(h, httpReq{body: body, header: ct("application/json")}) }()
	}
	inFlight := 0
	for range n {
		select {
		case <-entered:
			inFlight++
		case w := <-answers:
			if w.Code != http.StatusServiceUnavailable || w.Body.String() != deny(textBusy) || w.Header().Get("Retry-After") == "" {
				t.Errorf("answer beside two calls in flight: %d %q, Retry-After %q; want 503", w.Code, w.Body, w.Header().Get("Retry-After"))
			}
		case <-time.After(10 * time.Second):
			t.Fatal("neither a call in flight nor an answer")
		}
	}
	if inFlight != 2 || buf.InUse() != 2*cost {
		t.Errorf("%d calls in flight holding %d bytes, want 2 holding %d", inFlight, buf.InUse(), 2*cost)
	}
	close(release)
	for range inFlight {
		if w := waitFor(t, answers, "answer"); w.Code != http.StatusOK {
			t.Errorf("call in flight: %d %q", w.Code, w.Body)
		}
	}
	if got := buf.InUse(); got != 0 {
		t.Errorf("in use %d after the answers, want 0", got)
	}
	small := newCaller(t, newFake(t), CallerOptions{Common: Common{Buffer: NewBodyBuffer(cost - 1)}})
	if w := do(small, httpReq{body: body, header: ct("application/json")}); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("decoded body larger than the whole buffer: %d, want 413", w.Code)
	}
}
