package bridge

import (
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/transport/connlimit"
)

// DefaultMaxStreams applies when a service's MaxStreams is 0: the most
// streams (an event stream's, a Caller's streamed calls) open at once.
// Each holds a goroutine, a queue or a call, and subscriptions; the web
// transport's connection cap (at most 65536 by default) is shared with
// every other path.
const DefaultMaxStreams = 10000

// Texts of the refusals of a stream over the caps.
const (
	textStreamsFull   = "Too many event streams open on this service, retry later."
	textStreamsFullIP = "Too many event streams open from this address, retry later."
)

// StreamLimits cap the streams a service has open at once.
type StreamLimits struct {
	// MaxStreams caps the streams open at once; past it a request gets
	// 503 with Retry-After. 0 means DefaultMaxStreams.
	MaxStreams int
	// MaxStreamsPerIP caps the streams open at once from one client IP
	// address (the direct peer's, never X-Forwarded-For); 0 means no
	// cap. A client without an IP address (a Unix socket) is not capped
	// by it.
	MaxStreamsPerIP int
}

func (o *StreamLimits) validate() error {
	if o.MaxStreams < 0 || o.MaxStreamsPerIP < 0 {
		return errors.New("bridge: max_streams, max_streams_per_ip: must be >= 0")
	}
	return nil
}

// streamLimit counts the streams open on a service, in all and by client
// IP address (the transports' connection counter), and refuses those over
// the caps (NATS's max_connections: refused at once, counted, logged
// rate-limited). Safe for concurrent use.
type streamLimit struct {
	max, maxPerIP int
	count         *connlimit.Counter
	log           *slog.Logger
	logLimit      lograte.Limit
	refused       atomic.Uint64 // streams refused over a cap
}

func newStreamLimit(o StreamLimits, log *slog.Logger) *streamLimit {
	l := &streamLimit{max: o.MaxStreams, maxPerIP: o.MaxStreamsPerIP, log: log, logLimit: lograte.Limit{Interval: slowLogInterval}}
	if l.max == 0 {
		l.max = DefaultMaxStreams
	}
	l.count = connlimit.NewCounter(l.max, l.maxPerIP)
	return l
}

// take counts a stream of r, or refuses it (503) when a cap is reached.
// release, called once when the stream ends, uncounts it.
func (l *streamLimit) take(r *http.Request) (release func(), err error) {
	ip := peerAddr(r.RemoteAddr).Unmap()
	perIP := l.count.PerIP() && ip.IsValid()
	switch l.count.Take(ip, perIP) {
	case connlimit.AtMax:
		l.refuse(r, textStreamsFull, l.max)
		return nil, refuse(http.StatusServiceUnavailable, "%s", textStreamsFull)
	case connlimit.AtMaxPerIP:
		l.refuse(r, textStreamsFullIP, l.maxPerIP)
		return nil, refuse(http.StatusServiceUnavailable, "%s", textStreamsFullIP)
	}
	return func() { l.count.Release(ip, perIP) }, nil
}

// refuse counts and logs a refusal, at most one line per slowLogInterval.
func (l *streamLimit) refuse(r *http.Request, text string, limit int) {
	l.refused.Add(1)
	if ok, held := l.logLimit.Allow(); ok {
		key := "max_streams"
		if text == textStreamsFullIP {
			key = "max_streams_per_ip"
		}
		l.log.Warn("bridge: stream refused: "+key+" reached", "peer", r.RemoteAddr, "path", r.URL.Path,
			key, limit, "refused_since_last_log", held)
	}
}
