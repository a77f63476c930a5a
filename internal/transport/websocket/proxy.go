package websocket

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobwas/ws"

	"github.com/junction-wamp/junction/internal/lograte"
)

// ProxyOptions configures a Proxy. Only URL is required.
type ProxyOptions struct {
	// URL is the backend's ws:// or wss:// URL: the handshake asks for its
	// path and names its host in the Host header.
	URL string
	// NetDial, if set, makes the backend connection instead of a TCP dial
	// to the URL's host (a Unix socket, for example), as in DialOptions.
	NetDial   func(ctx context.Context, network, addr string) (net.Conn, error)
	TLSConfig *tls.Config // for a wss:// backend; nil uses the defaults
	// Subprotocols, if set, are the only ones of the client's subprotocols
	// offered to the backend (in the client's order); by default all are.
	Subprotocols []string
	// DialTimeout bounds the backend's connection and handshake; default
	// 10 s.
	DialTimeout time.Duration
	// AllowedOrigins is as Options.AllowedOrigins.
	AllowedOrigins []string
	// MaxFrameSize, if set, bounds a frame's payload in either direction: a
	// bigger frame fails the relay with status 1009. Payloads are streamed,
	// never held whole, so by default there is no limit.
	MaxFrameSize int
	Logger       *slog.Logger // nil discards
}

const (
	// defaultDialTimeout is ProxyOptions.DialTimeout's default.
	defaultDialTimeout = 10 * time.Second
	// closeTimeout is how long a relay waits for the answer to a close frame
	// it relayed, and how long writing a close frame of its own may take.
	closeTimeout = 5 * time.Second
	// stallTimeout is how long a write to a side may make no progress: a
	// peer that stops reading ends its relay after it, instead of holding
	// two connections and two goroutines forever.
	stallTimeout = 30 * time.Second
	// unreachableLogEvery is the shortest interval between two "backend
	// not reachable" warnings; the next one says how many were held back.
	unreachableLogEvery = 10 * time.Second
	// relayBufferSize is each side's read and write buffer; payloads are
	// copied through the write buffer in chunks of at most this size.
	relayBufferSize = 4096
)

// errSideClosed: a frame for a side that had its close frame, or a frame
// cut short.
var errSideClosed = errors.New("websocket: side closed for writing")

// Proxy is Crossbar's websocket-reverseproxy path service: it relays each
// WebSocket connection, frame by frame, to a connection of its own to a
// backend WebSocket server. A side that does not read stalls the other
// side's stream (TCP back-pressure); nothing is buffered beyond a chunk.
type Proxy struct {
	opts    ProxyOptions
	origins []string // lower-cased origin patterns
	log     *slog.Logger
	wg      sync.WaitGroup // the relays' goroutines, and Close's stops
	// unreachable limits the "backend not reachable" warnings: clients
	// retry, and each retry would log one.
	unreachable lograte.Limit

	mu     sync.Mutex
	relays map[*relay]struct{} // live relays; under mu
	closed bool                // Close was called; under mu
}

var _ http.Handler = (*Proxy)(nil)

// NewProxy checks opts and returns a Proxy.
func NewProxy(opts ProxyOptions) (*Proxy, error) {
	u, err := url.ParseRequestURI(opts.URL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("websocket: reverse proxy backend URL: %w", err)
	case u.Scheme != "ws" && u.Scheme != "wss" || u.Host == "":
		return nil, fmt.Errorf("websocket: reverse proxy backend URL %q is not ws://host/... or wss://host/...", opts.URL)
	case opts.MaxFrameSize < 0 || opts.DialTimeout < 0:
		return nil, errors.New("websocket: negative reverse proxy frame size or dial timeout")
	}
	if opts.DialTimeout == 0 {
		opts.DialTimeout = defaultDialTimeout
	}
	p := &Proxy{opts: opts, log: opts.Logger, relays: map[*relay]struct{}{}}
	p.unreachable.Interval = unreachableLogEvery
	p.origins = lowerAll(opts.AllowedOrigins)
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	return p, nil
}

// ServeHTTP connects to the backend, upgrades the request with the
// backend's subprotocol and relays on goroutines of its own (see Close).
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if status, msg := p.check(r); status != 0 {
		if status == http.StatusUpgradeRequired {
			w.Header().Set("Upgrade", "websocket")
		}
		http.Error(w, msg, status)
		return
	}
	backend, pending, proto, err := p.dial(r)
	if err != nil {
		if ok, held := p.unreachable.Allow(); ok {
			p.log.Warn("websocket: reverse proxy backend not reachable", "backend", p.opts.URL, "remote", r.RemoteAddr, "err", err,
				"refused_since_last_log", held)
		}
		http.Error(w, "websocket: reverse proxy backend not reachable", http.StatusServiceUnavailable)
		return
	}
	client, early, err := upgrade(w, r, proto)
	if err != nil {
		p.log.Debug("websocket: upgrade failed", "remote", r.RemoteAddr, "err", err)
		backend.Close()
		return
	}
	rl := &relay{
		proxy:   p,
		client:  newSide("client", client, early, true),
		backend: newSide("backend", backend, pending, false),
		log:     p.log.With("remote", r.RemoteAddr),
	}
	rl.log.Debug("websocket: reverse proxy relaying", "subprotocol", proto)
	if !p.start(rl) {
		rl.stop("reverse proxy closed")
	}
}

// check refuses, with an HTTP status and text, a request to upgrade before
// the backend is dialed.
func (p *Proxy) check(r *http.Request) (status int, msg string) {
	switch {
	case !isUpgrade(r):
		return http.StatusUpgradeRequired, "websocket: this is a WebSocket reverse proxy; upgrade required"
	case r.Method != http.MethodGet || r.Header.Get("Sec-WebSocket-Version") != "13" || r.Header.Get("Sec-WebSocket-Key") == "":
		// Checked again by the upgrade, but before the backend is dialled.
		return http.StatusBadRequest, "websocket: bad upgrade request (want GET with Sec-WebSocket-Key and Sec-WebSocket-Version 13)"
	case !originAllowed(p.origins, r.Header.Get("Origin")):
		return http.StatusForbidden, "websocket: origin not allowed"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return http.StatusServiceUnavailable, "websocket: reverse proxy closed"
	}
	return 0, ""
}

// dial connects to the backend, offering the client's subprotocols and no
// extension. It returns the connection, the bytes the backend sent right
// after its handshake response (read along with it) and the subprotocol the
// backend chose.
func (p *Proxy) dial(r *http.Request) (conn net.Conn, pending []byte, proto string, err error) {
	ctx, cancel := context.WithTimeout(r.Context(), p.opts.DialTimeout)
	defer cancel()
	d := ws.Dialer{
		Protocols: offer(r.Header.Values("Sec-WebSocket-Protocol"), p.opts.Subprotocols),
		NetDial:   p.opts.NetDial,
		TLSConfig: p.opts.TLSConfig,
	}
	conn, br, hs, err := d.Dial(ctx, p.opts.URL)
	if err != nil {
		return nil, nil, "", err
	}
	if br != nil {
		pending = bytes.Clone(buffered(br))
		ws.PutReader(br)
	}
	return conn, pending, hs.Protocol, nil
}

// upgrade answers the client's handshake with subprotocol proto (none if
// ""). It returns the connection and the bytes the client sent right after
// its handshake (read along with it).
func upgrade(w http.ResponseWriter, r *http.Request, proto string) (net.Conn, []byte, error) {
	up := ws.HTTPUpgrader{Protocol: func(s string) bool { return s == proto }}
	conn, rw, _, err := up.Upgrade(r, w)
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		return nil, nil, err
	}
	return conn, buffered(rw.Reader), nil // the hijacked reader is ours: no copy
}

// offer returns the client's subprotocols, in order over all header lines,
// keeping only those in allowed unless it is empty.
func offer(lines, allowed []string) []string {
	var protocols []string
	for p := range headerTokens(lines) {
		if len(allowed) == 0 || slices.Contains(allowed, p) {
			protocols = append(protocols, p)
		}
	}
	return protocols
}

// start registers a relay and runs it, unless the proxy is closed.
func (p *Proxy) start(r *relay) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.relays[r] = struct{}{}
	p.wg.Go(r.run)
	return true
}

func (p *Proxy) remove(r *relay) {
	p.mu.Lock()
	delete(p.relays, r)
	p.mu.Unlock()
}

// Close ends every relay with a close frame 1001 (going away) to both of
// its sides, then their connections, and waits for the relays' goroutines.
// Later upgrade requests get 503.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	for r := range p.relays {
		// One goroutine each: a side that does not read holds its close
		// frame for up to closeTimeout.
		p.wg.Go(func() { r.stop("reverse proxy closed") })
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// Shutdown is Close bounded by ctx: when ctx ends first, the relays still
// running lose their connections at once (no close frame) and Shutdown
// returns ctx's error once their goroutines are over.
func (p *Proxy) Shutdown(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		p.Close()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	relays := slices.Collect(maps.Keys(p.relays))
	p.mu.Unlock()
	for _, r := range relays {
		r.end("reverse proxy shut down")
	}
	<-done
	return ctx.Err()
}

// relay is one proxied connection. A pump goroutine per direction reads
// the frames of one side, the only reader of it, and writes them to the
// other. The relay's own close frames are written by the one goroutine that
// stops it (see fail), under the side's write lock.
type relay struct {
	proxy           *Proxy
	client, backend *side
	log             *slog.Logger

	stopping atomic.Bool // fail or end has begun: other stops return at once

	mu     sync.Mutex
	closes int         // close frames relayed; under mu
	timer  *time.Timer // ends a close handshake that takes too long; under mu
	ended  bool        // the connections were closed; under mu
}

// run relays until both pumps are over.
func (r *relay) run() {
	var wg sync.WaitGroup
	wg.Go(func() { r.pump(r.backend, r.client) })
	r.pump(r.client, r.backend)
	wg.Wait()
}

// pump relays src's frames to dst until src's close frame has passed or
// the relay fails or ends.
func (r *relay) pump(src, dst *side) {
	for {
		h, err := ws.ReadHeaderBuffer(src.rd, src.rhdr[:])
		if errors.Is(err, ws.ErrHeaderLengthMSB) {
			r.fail(src, ws.StatusProtocolError, "bad frame length")
			return
		}
		if err != nil {
			r.stop(src.name + ": " + err.Error())
			return
		}
		if code, reason := src.check(h, r.proxy.opts.MaxFrameSize); code != 0 {
			r.fail(src, code, reason)
			return
		}
		if err := dst.relayFrame(h, src.rd); err != nil {
			r.stop(src.name + " to " + dst.name + ": " + err.Error())
			return
		}
		if h.OpCode == ws.OpClose {
			r.closeRelayed()
			return
		}
	}
}

// closeRelayed ends the relay once close frames have passed both ways, or
// closeTimeout after the first one.
func (r *relay) closeRelayed() {
	r.mu.Lock()
	r.closes++
	both := r.closes == 2
	if !both && !r.ended {
		r.timer = time.AfterFunc(closeTimeout, func() { r.end("close handshake timed out") })
	}
	r.mu.Unlock()
	if both {
		r.end("close handshake done")
	}
}

// stop ends the relay after a close frame 1001 (going away) to each side
// that can still take one.
func (r *relay) stop(cause string) {
	r.fail(nil, 0, cause)
}

// fail ends the relay after side bad, if not nil, broke the protocol: bad
// gets a close frame with code and reason, each other side that can still
// take one 1001. Only the first call (or end) runs: the pumps' own errors
// while a stop is under way are its doing. The pumps' reads are interrupted
// first, so that a frame whose sender stalls is cut short and frees its
// side's write lock (that side then gets no close frame).
func (r *relay) fail(bad *side, code ws.StatusCode, reason string) {
	if !r.stopping.CompareAndSwap(false, true) {
		return
	}
	now := time.Now()
	r.client.conn.SetReadDeadline(now)
	r.backend.conn.SetReadDeadline(now)
	cause := reason
	if bad != nil {
		bad.sendClose(code, reason)
		cause = bad.name + ": " + reason
	}
	r.client.sendClose(ws.StatusGoingAway, "")
	r.backend.sendClose(ws.StatusGoingAway, "")
	r.end(cause)
}

// end closes both connections, which ends the pumps; later calls do
// nothing.
func (r *relay) end(cause string) {
	r.stopping.Store(true)
	r.mu.Lock()
	ended := r.ended
	r.ended = true
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
	if ended {
		return
	}
	r.client.conn.Close()
	r.backend.conn.Close()
	r.proxy.remove(r)
	r.log.Debug("websocket: reverse proxy relay ended", "cause", cause)
}

// side is one end of a relay: the client, whose frames come masked and
// go to it unmasked, or the backend, the other way round.
type side struct {
	name  string // "client" or "backend", for logs
	conn  net.Conn
	masks bool // the side masks its frames: the client

	// Reader state: the pump reading this side only.
	rd   *bufio.Reader
	rhdr [ws.MaxHeaderSize]byte

	// Writer state, under wmu, which is held while a frame is written.
	wmu    sync.Mutex
	w      *bufio.Writer
	whdr   [ws.MaxHeaderSize]byte
	closed bool // a close frame was written, or a frame cut short: nothing may follow
	// limit bounds each write to conn (a time.Duration): stallTimeout,
	// closeTimeout once the relay is closing.
	limit atomic.Int64
}

// newSide wraps conn; pending are bytes of conn's stream that the handshake
// read ahead.
func newSide(name string, conn net.Conn, pending []byte, masks bool) *side {
	rd := bufio.NewReaderSize(conn, relayBufferSize)
	if len(pending) > 0 {
		rd = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(pending), conn), relayBufferSize)
	}
	s := &side{name: name, conn: conn, masks: masks, rd: rd}
	s.limit.Store(int64(stallTimeout))
	s.w = bufio.NewWriterSize(sideWriter{s}, relayBufferSize)
	return s
}

// sideWriter writes to a side's connection, each write bounded by the
// side's current time limit.
type sideWriter struct{ s *side }

func (w sideWriter) Write(b []byte) (int, error) {
	w.s.conn.SetWriteDeadline(time.Now().Add(time.Duration(w.s.limit.Load())))
	return w.s.conn.Write(b)
}

// check returns the close status and reason for a frame header from s
// that breaks the protocol, 0 for a good one. No extension is negotiated,
// so the reserved bits must be 0.
func (s *side) check(h ws.Header, maxFrame int) (ws.StatusCode, string) {
	switch {
	case maxFrame > 0 && h.Length > int64(maxFrame):
		return ws.StatusMessageTooBig, "frame too big"
	case h.Masked != s.masks:
		return ws.StatusProtocolError, "frame masking is wrong for this side"
	case h.Rsv != 0:
		return ws.StatusProtocolError, "reserved bits set"
	case h.OpCode.IsReserved():
		return ws.StatusProtocolError, "reserved opcode"
	case h.OpCode.IsControl() && (!h.Fin || h.Length > maxControlPayload):
		return ws.StatusProtocolError, "fragmented or long control frame"
	}
	return 0, ""
}

// relayFrame writes a frame from the other side to s: see writeFrame.
func (s *side) relayFrame(h ws.Header, src io.Reader) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeFrame(h, src)
}

// sendClose writes a close frame to s, within closeTimeout, unless s had
// one or a frame to it was cut short. Errors are left to the relay's end.
func (s *side) sendClose(code ws.StatusCode, reason string) {
	s.limit.Store(int64(closeTimeout))
	s.conn.SetWriteDeadline(time.Now().Add(closeTimeout)) // also bounds a frame being written
	s.wmu.Lock()
	defer s.wmu.Unlock()
	body := ws.NewCloseFrameBody(code, reason)
	s.writeFrame(ws.Header{Fin: true, OpCode: ws.OpClose, Length: int64(len(body))}, bytes.NewReader(body))
}

// writeFrame writes a frame with h's opcode, FIN and length to s, its
// payload streamed from src (unmasked with h's mask if h.Masked) and masked
// afresh if s is the backend. s.wmu must be held.
func (s *side) writeFrame(h ws.Header, src io.Reader) error {
	if s.closed {
		return errSideClosed
	}
	s.closed = true // until the frame is whole
	out := h
	out.Masked, out.Mask = !s.masks, [4]byte{}
	if out.Masked {
		out.Mask = ws.NewMask()
	}
	if err := ws.WriteHeaderBuffer(s.w, out, s.whdr[:]); err != nil {
		return err
	}
	if err := s.copyPayload(src, h, out); err != nil {
		return err
	}
	if err := s.w.Flush(); err != nil {
		return err
	}
	s.closed = h.OpCode == ws.OpClose
	return nil
}

// copyPayload streams the payload of a frame with header in from src into
// s.w, a chunk of its free space at a time, unmasked with in's mask and
// masked with out's. s.wmu must be held.
func (s *side) copyPayload(src io.Reader, in, out ws.Header) error {
	for off := int64(0); off < in.Length; {
		if s.w.Available() == 0 {
			if err := s.w.Flush(); err != nil {
				return err
			}
		}
		chunk := s.w.AvailableBuffer()
		chunk = chunk[:min(int64(cap(chunk)), in.Length-off)]
		if _, err := io.ReadFull(src, chunk); err != nil {
			return err
		}
		if in.Masked {
			ws.Cipher(chunk, in.Mask, int(off%4))
		}
		if out.Masked {
			ws.Cipher(chunk, out.Mask, int(off%4))
		}
		s.w.Write(chunk) // into the buffer it came from
		off += int64(len(chunk))
	}
	return nil
}
