package web

import (
	"embed"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// Defaults of DashboardOptions.
const (
	DefaultDashboardInterval   = time.Second
	DefaultDashboardPageSize   = 50
	DefaultDashboardMaxStreams = 32
	// MaxDashboardPageSize bounds a request's page_size.
	MaxDashboardPageSize = 500
)

// DashboardOptions configures Dashboard.
type DashboardOptions struct {
	// Source returns what to show for a query. Required; called from the
	// requests' goroutines, so it must be safe for concurrent use.
	Source func(DashboardQuery) Dashboard
	// Allow says whether a client address may see the dashboard; nil
	// allows loopback addresses only. Clients of a Unix socket listener
	// are always allowed. X-Forwarded-For is never consulted.
	Allow func(netip.Addr) bool
	// Interval is the time between two updates of a live stream (and the
	// shortest window of a rate); 0 means DefaultDashboardInterval.
	Interval time.Duration
	// PageSize is the number of sessions a page; 0 means
	// DefaultDashboardPageSize. A request may ask for another with
	// page_size, up to MaxDashboardPageSize.
	PageSize int
	// MaxStreams bounds the live streams open at once (each costs a
	// snapshot every Interval); 0 means DefaultDashboardMaxStreams. A
	// stream past it gets 503.
	MaxStreams int
}

//go:embed dashboard
var dashboardFiles embed.FS

// dashboardAssets are the files of the page, by the path the handler
// serves them at, with their content type.
var dashboardAssets = map[string]string{
	"/dashboard.js":  "text/javascript; charset=utf-8",
	"/dashboard.css": "text/css; charset=utf-8",
	"/favicon.svg":   "image/svg+xml",
}

// dashboardCSP allows the page its own scripts, styles and stream, and
// nothing else (no inline code, no other origin, no framing).
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// DashboardHandler serves a "dashboard" path service; Shutdown ends its
// live streams.
type DashboardHandler struct {
	opts  DashboardOptions
	now   func() time.Time
	rates rateTracker
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex // guards streams
	streams int
}

var _ http.Handler = (*DashboardHandler)(nil)

// NewDashboard returns the handler of a "dashboard" path service. Below its
// mount point it serves:
//
//   - "/": the page (HTML; its script shows the data and keeps it live), or
//     the Dashboard as JSON when the request's Accept header prefers
//     application/json. Query: realm (default the first), page (from 1),
//     page_size.
//   - "/events": the same JSON document as Server-Sent Events, one
//     "message" event every Interval, for the same query.
//   - the page's script, style sheet and icon, embedded in the binary.
//
// Anything else is 404; the mount point itself redirects to "/". Every
// request from an address Allow refuses gets 403, and every method but GET
// and HEAD 405. Responses are never cached.
func NewDashboard(opts DashboardOptions) (*DashboardHandler, error) {
	if opts.Source == nil {
		return nil, fmt.Errorf("%w: dashboard: nil Source", ErrBadOption)
	}
	if opts.Interval < 0 || opts.PageSize < 0 || opts.MaxStreams < 0 {
		return nil, fmt.Errorf("%w: dashboard: negative interval, page size or stream limit", ErrBadOption)
	}
	opts.Interval = orDefault(opts.Interval, DefaultDashboardInterval)
	opts.PageSize = min(orDefault(opts.PageSize, DefaultDashboardPageSize), MaxDashboardPageSize)
	opts.MaxStreams = orDefault(opts.MaxStreams, DefaultDashboardMaxStreams)
	if opts.Allow == nil {
		opts.Allow = netip.Addr.IsLoopback
	}
	h := &DashboardHandler{opts: opts, now: time.Now, done: make(chan struct{})}
	h.rates.window = opts.Interval
	return h, nil
}

// Shutdown ends the live streams (they would hold a graceful shutdown of
// the server up) and refuses new ones. Safe to call more than once.
func (h *DashboardHandler) Shutdown() { h.once.Do(func() { close(h.done) }) }

func (h *DashboardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.allowed(r) {
		writeSmallJSON(w, r, http.StatusForbidden, `{"error":"forbidden","message":"this address may not see the dashboard"}`)
		return
	}
	if !readOnly(w, r) {
		return
	}
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", dashboardCSP)
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	switch p := r.URL.Path; {
	case p == "":
		redirectSlash(w, r, "")
	case p == "/":
		h.servePage(w, r)
	case p == "/events":
		h.serveEvents(w, r)
	case dashboardAssets[p] != "":
		h.serveAsset(w, r, p)
	default:
		NotFound(w, r)
	}
}

// allowed checks the direct peer's address (a Unix socket's clients are
// local and always allowed).
func (h *DashboardHandler) allowed(r *http.Request) bool {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a.Network() == "unix" {
		return true
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	return h.opts.Allow(ap.Addr().Unmap())
}

// servePage answers the page, or the data as JSON.
func (h *DashboardHandler) servePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "Accept")
	if !prefersJSON(r.Header.Values("Accept")) {
		h.serveAsset(w, r, "/index.html")
		return
	}
	q, err := h.query(r)
	if err != nil {
		writeSmallJSON(w, r, http.StatusBadRequest, `{"error":"bad request","message":`+strconv.Quote(err.Error())+`}`)
		return
	}
	body, err := json.Marshal(h.snapshot(q))
	if err != nil {
		http.Error(w, "web: dashboard: encoding failed", http.StatusInternalServerError)
		return
	}
	writeBody(w, r, http.StatusOK, "application/json", append(body, '\n'))
}

func (h *DashboardHandler) serveAsset(w http.ResponseWriter, r *http.Request, p string) {
	body, err := dashboardFiles.ReadFile("dashboard" + p)
	if err != nil {
		NotFound(w, r)
		return
	}
	typ := dashboardAssets[p]
	if typ == "" {
		typ = "text/html; charset=utf-8"
	}
	writeBody(w, r, http.StatusOK, typ, body)
}

// query reads the realm, page and page_size parameters.
func (h *DashboardHandler) query(r *http.Request) (DashboardQuery, error) {
	v := r.URL.Query()
	q := DashboardQuery{Realm: v.Get("realm"), Page: 1, PageSize: h.opts.PageSize}
	var err error
	if s := v.Get("page"); s != "" {
		if q.Page, err = strconv.Atoi(s); err != nil || q.Page < 1 {
			return q, fmt.Errorf("page %q: must be a number from 1", s)
		}
	}
	if s := v.Get("page_size"); s != "" {
		if q.PageSize, err = strconv.Atoi(s); err != nil || q.PageSize < 1 || q.PageSize > MaxDashboardPageSize {
			return q, fmt.Errorf("page_size %q: must be a number in 1..%d", s, MaxDashboardPageSize)
		}
	}
	return q, nil
}

// snapshot asks the source and adds the clock and the rates.
func (h *DashboardHandler) snapshot(q DashboardQuery) Dashboard {
	d := h.opts.Source(q)
	d.Now = h.now()
	if !d.Started.IsZero() {
		d.UptimeSeconds = int64(d.Now.Sub(d.Started) / time.Second)
	}
	h.rates.fill(d.Now, d.BridgeServices)
	return d
}
