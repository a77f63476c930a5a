package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// dashboardWriteTimeout bounds the write of one event: a client that stops
// reading loses its stream instead of holding a goroutine forever.
const dashboardWriteTimeout = 10 * time.Second

// serveEvents streams the query's snapshot as Server-Sent Events: one
// "message" event at once, then one every Interval, until the client goes,
// a write fails or Shutdown. At most MaxStreams at once; more get 503.
func (h *DashboardHandler) serveEvents(w http.ResponseWriter, r *http.Request) {
	q, err := h.query(r)
	if err != nil {
		writeSmallJSON(w, r, http.StatusBadRequest, `{"error":"bad request","message":`+strconv.Quote(err.Error())+`}`)
		return
	}
	if refused := h.openStream(); refused != "" {
		w.Header().Set("Retry-After", "5")
		writeSmallJSON(w, r, http.StatusServiceUnavailable, `{"error":`+strconv.Quote(refused)+`}`)
		return
	}
	defer h.closeStream()
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	rc := http.NewResponseController(w)
	t := time.NewTicker(h.opts.Interval)
	defer t.Stop()
	// retry: how long a browser waits before it reconnects.
	var buf bytes.Buffer
	buf.WriteString("retry: 2000\n")
	for {
		if !h.writeEvent(rc, w, &buf, q) {
			return
		}
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		}
	}
}

// writeEvent writes one snapshot as a "message" event after what buf
// holds, and flushes it.
func (h *DashboardHandler) writeEvent(rc *http.ResponseController, w http.ResponseWriter, buf *bytes.Buffer, q DashboardQuery) bool {
	body, err := json.Marshal(h.snapshot(q))
	if err != nil {
		return false
	}
	buf.WriteString("data: ") // JSON has no raw newline: one data line
	buf.Write(body)
	buf.WriteString("\n\n")
	_ = rc.SetWriteDeadline(time.Now().Add(dashboardWriteTimeout))
	_, err = w.Write(buf.Bytes())
	buf.Reset()
	return err == nil && rc.Flush() == nil
}

// openStream counts a new stream, or says why not: MaxStreams are open, or
// the handler is shut down.
func (h *DashboardHandler) openStream() (refused string) {
	select {
	case <-h.done:
		return "shutting down"
	default:
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.streams >= h.opts.MaxStreams {
		return "too many dashboard streams"
	}
	h.streams++
	return ""
}

func (h *DashboardHandler) closeStream() {
	h.mu.Lock()
	h.streams--
	h.mu.Unlock()
}
