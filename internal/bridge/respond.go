package bridge

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/junction-wamp/junction/internal/bridge/httpauth"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// answer is an error as the client sees it.
type answer struct {
	status int
	body   errorBody
	auth   *httpauth.Error // a refusal of the credentials: its headers
}

// errorBody is the JSON of every error answer; members in Crossbar's order.
type errorBody struct {
	Error  string      `json:"error"`
	Args   wamp.List   `json:"args"`
	Kwargs wamp.Object `json:"kwargs"`
}

// answerFor maps a handler's error to its answer: the one place errors meet
// the wire. ra says how a WAMP error from the router or a callee is
// answered. nil means nothing is to be written (the client went away).
func answerFor(err error, ra *remoteAnswer) *answer {
	if e, ok := errors.AsType[*Error](err); ok {
		return &answer{status: e.Status, body: errorBody{Error: e.Text}}
	}
	if e, ok := errors.AsType[*httpauth.Error](err); ok {
		return &answer{e.Status, errorBody{string(e.URI()), wamp.List{e.Text}, nil}, e}
	}
	if errors.Is(err, errClientGone) {
		return nil
	}
	if t, ok := errors.AsType[*timeoutError](err); ok {
		return uriAnswer(wamp.ErrTimeout, wamp.List{fmt.Sprintf(textTimeout, t.after)}, nil)
	}
	if errors.Is(err, ErrUnavailable) {
		return uriAnswer(ErrUnavailableURI, wamp.List{textUnavailable}, nil)
	}
	if re, ok := err.(*wamp.RequestError); ok {
		return &answer{status: ra.statusOf(re.URI), body: errorBody{string(re.URI), re.Args, re.Kwargs}}
	}
	return &answer{status: http.StatusInternalServerError, body: errorBody{Error: textInternal}}
}

// uriAnswer is the answer to an error the bridge raises on the WAMP side,
// with the table's status.
func uriAnswer(uri wamp.URI, args wamp.List, kwargs wamp.Object) *answer {
	return &answer{status: HTTPStatus(uri), body: errorBody{string(uri), args, kwargs}}
}

// respond writes err as a JSON error (Caller, Publisher) or as text
// (Webhook, when text is not nil), and logs the decision.
func (p *pipeline) respond(w http.ResponseWriter, r *http.Request, err error) {
	p.answer(w, r, answerFor(err, &p.remote), err)
}

// answer writes a, the answer to err (nothing when nil), and logs the
// decision.
func (p *pipeline) answer(w http.ResponseWriter, r *http.Request, a *answer, err error) {
	p.logDecision(r, a, err)
	if a == nil {
		return
	}
	if a.auth != nil {
		a.auth.SetHeaders(w.Header())
	}
	switch a.status {
	case http.StatusMethodNotAllowed:
		if w.Header().Get("Allow") == "" { // the API sets its route's
			w.Header().Set("Allow", p.allowed())
		}
	case http.StatusServiceUnavailable:
		w.Header().Set("Retry-After", "1")
		expose(w.Header(), exposeRetry) // for a page on another origin
	}
	if p.text != nil {
		writeText(w, a.status, *p.text)
		return
	}
	p.writeJSON(w, a.status, a.body.filled())
}

// filled is e with empty args and kwargs in place of none: an error
// answer always has both.
func (e *errorBody) filled() *errorBody {
	if e.Args == nil {
		e.Args = wamp.List{}
	}
	if e.Kwargs == nil {
		e.Kwargs = wamp.Object{}
	}
	return e
}

// jsonAnswer is a body the bridge answers with. appendJSON appends it as
// encoding/json (HTML escaping off) would write it, less the newline: the
// answers are pinned byte for byte.
type jsonAnswer interface {
	appendJSON(b []byte) ([]byte, error)
}

// answerBufs holds the buffers answers are built in, returned once written.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// maxUnsizedAnswer is the largest answer written without a Content-Length
// header: net/http holds an answer that size until the handler returns and
// sets its length itself (without allocating); a longer one would be sent
// chunked.
const maxUnsizedAnswer = 2048

// maxPooledAnswer is the largest buffer kept for reuse.
const maxPooledAnswer = 64 << 10

// writeJSON writes v as compact JSON; a value JSON cannot hold (a NaN from
// a callee) becomes a 500.
func (p *pipeline) writeJSON(w http.ResponseWriter, status int, v jsonAnswer) {
	bp := answerBufs.Get().(*[]byte)
	b, err := v.appendJSON((*bp)[:0])
	if err != nil {
		p.log.Error("bridge: answer is not JSON", "err", err)
		status = http.StatusInternalServerError
		b = fmt.Appendf(b[:0], `{"error":%q,"args":[],"kwargs":{}}`, textInternal)
	}
	h := w.Header()
	h["Content-Type"] = jsonType
	if len(b) > maxUnsizedAnswer {
		h["Content-Length"] = []string{strconv.Itoa(len(b))}
	}
	w.WriteHeader(status)
	w.Write(b)
	if cap(b) <= maxPooledAnswer {
		*bp = b[:0]
		answerBufs.Put(bp)
	}
}

// appendJSON writes an error answer: {"error", "args", "kwargs"}.
func (e *errorBody) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"error":`...)
	b, _ = codec.AppendPlainJSON(b, e.Error)
	return appendMembers(append(b, `,"args":`...), e.Args, `,"kwargs":`, e.Kwargs)
}

// appendMembers appends args, the key of kwargs and kwargs, then '}'.
func appendMembers(b []byte, args wamp.List, kwargsKey string, kwargs wamp.Object) ([]byte, error) {
	b, err := codec.AppendPlainJSON(b, args)
	if err != nil {
		return b, err
	}
	if b, err = codec.AppendPlainJSON(append(b, kwargsKey...), kwargs); err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// writeText writes a plain-text answer (the Webhook's responses).
func writeText(w http.ResponseWriter, status int, text string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(text)))
	w.WriteHeader(status)
	w.Write([]byte(text))
}

// logDecision logs a refused request: at debug level when Debug is set,
// and our own faults (500) always.
func (p *pipeline) logDecision(r *http.Request, a *answer, err error) {
	switch {
	case a != nil && a.status == http.StatusInternalServerError:
		p.log.Error("bridge: request failed", p.attrs(r, a.status, err)...)
	case p.debug:
		status := 0
		if a != nil {
			status = a.status
		}
		p.log.Debug("bridge: request refused", p.attrs(r, status, err)...)
	}
}

func (p *pipeline) attrs(r *http.Request, status int, err error) []any {
	return []any{slog.String("peer", r.RemoteAddr), slog.String("method", r.Method),
		slog.String("path", r.URL.Path), slog.Int("status", status), slog.Any("err", err)}
}
