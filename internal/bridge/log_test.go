package bridge

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// logBuffer collects log lines; safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newLog() (*slog.Logger, *logBuffer) {
	b := new(logBuffer)
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

func TestDebugLogsDecisions(t *testing.T) {
	fake := newFake(t)
	for _, debug := range []bool{false, true} {
		log, buf := newLog()
		h := newCaller(t, fake, CallerOptions{Common: Common{Debug: debug, Logger: log}})
		do(h, httpReq{method: "GET"})
		do(h, httpReq{body: okBody})
		out := buf.String()
		refused := strings.Contains(out, `msg="bridge: request refused"`) && strings.Contains(out, "status=405") &&
			strings.Contains(out, "service=caller") && strings.Contains(out, "peer=192.0.2.1:1234")
		accepted := strings.Contains(out, `msg="bridge: request accepted"`) && strings.Contains(out, "procedure=com.example.p")
		if refused != debug || accepted != debug {
			t.Errorf("debug %v: logged %q", debug, out)
		}
	}
}

func TestWebhookLogs(t *testing.T) {
	fake := newFake(t)
	log, buf := newLog()
	h := newWebhook(t, fake, WebhookOptions{Topic: "com.example.hook", ProviderSecret: "s", Common: Common{Logger: log}})
	do(h, httpReq{body: "x", header: signers["github"]("s", "x")})
	do(h, httpReq{body: "x", header: signers["github"]("wrong", "x")})
	out := buf.String()
	for _, want := range []string{
		`level=INFO msg="bridge: webhook published" service=webhook peer=192.0.2.1:1234 topic=com.example.hook publication=42`,
		`level=WARN msg="bridge: webhook refused" service=webhook peer=192.0.2.1:1234 topic=com.example.hook`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
