package longpoll

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Attacher runs a WAMP session on a peer. Attach blocks until the session
// ends; it is called on a goroutine of its own for each transport opened.
type Attacher interface{ Attach(p wamp.Peer) }

// Defaults for a zero Options (Crossbar's).
const (
	DefaultRequestTimeout     = 10 * time.Second
	DefaultSessionTimeout     = 30 * time.Second
	DefaultQueueLimitBytes    = 128 << 10
	DefaultQueueLimitMessages = 100
	DefaultMaxBodySize        = 1 << 20
	DefaultCloseTimeout       = 10 * time.Second
)

// Options configures a Handler. Only Attacher is required. A zero
// duration or limit means its default; a negative one means none.
type Options struct {
	Attacher Attacher
	// Serializers are the codec names offered ("json", "msgpack", "cbor",
	// "ubjson"), each plain and ".batched"; empty offers all four.
	Serializers []string
	// RequestTimeout is how long a receive with nothing to deliver is
	// held before it is answered empty.
	RequestTimeout time.Duration
	// SessionTimeout closes a transport that got no request for this long
	// and holds no receive.
	SessionTimeout time.Duration
	// QueueLimitBytes and QueueLimitMessages bound the messages waiting
	// for a receive; past either the session is closed as a slow consumer.
	QueueLimitBytes    int
	QueueLimitMessages int
	// MaxBodySize bounds a request body (413 beyond).
	MaxBodySize int64
	// CloseTimeout is how long a closed transport keeps its queued
	// messages (a GOODBYE, an ABORT) for the client's next receive.
	CloseTimeout time.Duration
	// DebugTransportID, when set, is the ID of every transport opened
	// (opening again replaces the transport of that ID): for debugging.
	DebugTransportID string
	Logger           *slog.Logger
}

// orDefault is v, def when v is 0, and 0 (none) when v is negative.
func orDefault[T time.Duration | int | int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func (o Options) withDefaults() Options {
	o.RequestTimeout = orDefault(o.RequestTimeout, DefaultRequestTimeout)
	o.SessionTimeout = orDefault(o.SessionTimeout, DefaultSessionTimeout)
	o.QueueLimitBytes = orDefault(o.QueueLimitBytes, DefaultQueueLimitBytes)
	o.QueueLimitMessages = orDefault(o.QueueLimitMessages, DefaultQueueLimitMessages)
	o.MaxBodySize = orDefault(o.MaxBodySize, DefaultMaxBodySize)
	o.CloseTimeout = orDefault(o.CloseTimeout, DefaultCloseTimeout)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Handler serves WAMP over long-poll; see the package documentation.
type Handler struct {
	opts   Options
	protos []string // subprotocols offered

	mu         sync.Mutex            // guards the fields below
	transports map[string]*transport // open, or closed with messages left
	stopping   bool                  // Shutdown began: receives are not held
}

var _ http.Handler = (*Handler)(nil)

// NewHandler returns a Handler; it fails without an Attacher or with an
// unknown serializer.
func NewHandler(opts Options) (*Handler, error) {
	if opts.Attacher == nil {
		return nil, errors.New("longpoll: Options.Attacher is nil")
	}
	h := &Handler{opts: opts.withDefaults(), transports: map[string]*transport{}}
	for _, s := range opts.Serializers {
		c, _, ok := codec.Lookup("wamp.2." + s)
		if !ok {
			return nil, errors.New("longpoll: unknown serializer " + s)
		}
		h.protos = append(h.protos, c.Subprotocol(), c.Subprotocol()+".batched")
	}
	if len(h.protos) == 0 {
		h.protos = codec.Subprotocols()
	}
	return h, nil
}

// ServeHTTP routes a request by its path below the mount point.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setStandardHeaders(w, r)
	if r.Method == http.MethodOptions {
		w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(segs) == 1 && segs[0] == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		writeNotice(w)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		writeError(w, http.StatusMethodNotAllowed, "method not allowed: long-poll requests are POST")
		return
	}
	h.route(w, r, segs)
}

func (h *Handler) route(w http.ResponseWriter, r *http.Request, segs []string) {
	if len(segs) == 1 && segs[0] == "open" {
		h.open(w, r)
		return
	}
	if len(segs) != 2 || !slices.Contains([]string{"send", "receive", "close"}, segs[1]) {
		writeError(w, http.StatusNotFound, "no such long-poll operation")
		return
	}
	t := h.lookup(segs[0])
	if t == nil {
		writeError(w, http.StatusNotFound, "no such transport")
		return
	}
	switch segs[1] {
	case "send":
		t.serveSend(w, r)
	case "receive":
		t.serveReceive(w, r)
	default:
		t.serveClose(w)
	}
}

// openRequest is the body of /open.
type openRequest struct {
	Protocols *[]string `json:"protocols"`
}

// open creates a transport with the first of the client's protocols that
// the handler offers, and attaches its session.
func (h *Handler) open(w http.ResponseWriter, r *http.Request) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	var req openRequest
	if err := json.Unmarshal(body, &req); err != nil || req.Protocols == nil {
		writeError(w, http.StatusBadRequest, `open: the body must be a JSON object with "protocols", a list of WAMP subprotocols`)
		return
	}
	proto := h.pick(*req.Protocols)
	if proto == "" {
		writeError(w, http.StatusBadRequest, "open: no common protocol (offered: "+strings.Join(h.protos, ", ")+")")
		return
	}
	t := h.add(proto, r)
	go h.opts.Attacher.Attach(t)
	b, _ := json.Marshal(map[string]string{"transport": t.id, "protocol": proto})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_, _ = w.Write(b)
}

func (h *Handler) pick(protocols []string) string {
	for _, p := range protocols {
		if slices.Contains(h.protos, p) {
			return p
		}
	}
	return ""
}

// add makes a transport speaking proto and registers it; with a
// DebugTransportID it replaces (and closes) the one of that ID.
func (h *Handler) add(proto string, r *http.Request) *transport {
	c, batched, _ := codec.Lookup(proto)
	id := h.opts.DebugTransportID
	if id == "" {
		id = rand.Text()
	}
	info := wamp.PeerInfo{Transport: "longpoll", Serializer: c.Name(), RemoteAddr: r.RemoteAddr, TLS: r.TLS != nil}
	t := newTransport(h, id, c, batched, info)
	h.mu.Lock()
	old := h.transports[id]
	h.transports[id] = t
	h.mu.Unlock()
	if old != nil {
		old.closeWith(wamp.ErrClosed)
	}
	h.opts.Logger.Debug("longpoll: transport opened", "transport", id, "protocol", proto, "remote", r.RemoteAddr)
	return t
}

func (h *Handler) lookup(id string) *transport {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.transports[id]
}

// remove forgets t, unless its ID now names another transport.
func (h *Handler) remove(t *transport) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.transports[t.id] == t {
		delete(h.transports, t.id)
	}
}

// Len returns the number of transports the handler holds.
func (h *Handler) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.transports)
}

// Shutdown answers every held receive at once, and every later one
// without waiting, so that the web server's shutdown need not wait for
// them; the sessions go on until the router closes them. It returns
// at once.
func (h *Handler) Shutdown() {
	h.mu.Lock()
	h.stopping = true
	ts := make([]*transport, 0, len(h.transports))
	for _, t := range h.transports {
		ts = append(ts, t)
	}
	h.mu.Unlock()
	for _, t := range ts {
		t.wake()
	}
}

// Stopping reports whether Shutdown was called: receives are no longer
// held.
func (h *Handler) Stopping() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stopping
}

// readBody reads a request body of at most MaxBodySize bytes, or answers
// 413 (or 400 for a body that breaks off) and returns false.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodySize))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "request body too large")
		return nil, false
	case err != nil:
		writeError(w, http.StatusBadRequest, "could not read the request body")
		return nil, false
	}
	return b, true
}
