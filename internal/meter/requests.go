package meter

import (
	"sync/atomic"
	"time"
)

// NoResponse is the code of a request that got no HTTP response: an
// outgoing request that failed (connection refused, timeout), or an
// incoming one whose client went away before anything was written.
const NoResponse = 0

// maxCode bounds the status codes counted apart; any other code (outside
// 100-599) counts as NoResponse, so that the series stay bounded.
const maxCode = 599

// Requests counts HTTP requests by status code, each code with a
// histogram of the requests' durations. The zero value is ready; safe for
// concurrent use (atomics only; a code's histogram is allocated the first
// time the code is seen).
type Requests struct {
	byCode [maxCode + 1]atomic.Pointer[Histogram]
}

// Observe counts one request answered with code after d.
func (r *Requests) Observe(code int, d time.Duration) {
	if code < 100 || code > maxCode {
		code = NoResponse
	}
	h := r.byCode[code].Load()
	if h == nil {
		r.byCode[code].CompareAndSwap(nil, new(Histogram))
		h = r.byCode[code].Load()
	}
	h.Observe(d)
}

// CodeStats are the requests answered with one status code.
type CodeStats struct {
	Code     int               // the HTTP status, or NoResponse
	Duration HistogramSnapshot // Duration.Count is the number of requests
}

// RequestStats is what a Requests counted: the codes seen, in ascending
// order.
type RequestStats struct {
	Codes []CodeStats
}

// Snapshot returns the counts so far.
func (r *Requests) Snapshot() RequestStats {
	var st RequestStats
	for code := range r.byCode {
		if h := r.byCode[code].Load(); h != nil {
			st.Codes = append(st.Codes, CodeStats{Code: code, Duration: h.Snapshot()})
		}
	}
	return st
}

// Requests is the number of requests counted.
func (st RequestStats) Requests() uint64 {
	var n uint64
	for _, c := range st.Codes {
		n += c.Duration.Count
	}
	return n
}

// Errors is the number of requests that failed: no response, or a status
// of 400 or more.
func (st RequestStats) Errors() uint64 {
	var n uint64
	for _, c := range st.Codes {
		if c.Code == NoResponse || c.Code >= 400 {
			n += c.Duration.Count
		}
	}
	return n
}

// Duration is the histogram of every request's duration, whatever its code.
func (st RequestStats) Duration() HistogramSnapshot {
	var h HistogramSnapshot
	for _, c := range st.Codes {
		h.Merge(c.Duration)
	}
	return h
}
