package web

import (
	"sync"
	"time"
)

// rateStale is how old a sample may be and still make a rate: a dashboard
// nobody looked at for longer shows no rate until its next sample, rather
// than an average over the hours nobody looked.
const rateStale = time.Minute

// rateTracker turns the bridge services' request counts into rates: it
// keeps one sample per service, replaced at most once per window, and
// gives each snapshot the rate between the last two samples. One tracker
// serves every request and stream of a dashboard. Services are told apart
// by their Path.
type rateTracker struct {
	window time.Duration

	mu     sync.Mutex // guards byPath
	byPath map[string]*rateSample
}

type rateSample struct {
	at               time.Time
	requests, errors uint64
	// The rates between the sample before and this one; valid when ok.
	reqRate, errRate float64
	ok               bool
}

// fill sets the rates of the services in ss, sampling their counts at now
// when the last sample is at least a window old.
func (t *rateTracker) fill(now time.Time, ss []DashboardBridgeService) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byPath == nil {
		t.byPath = make(map[string]*rateSample)
	}
	for i := range ss {
		s := &ss[i]
		last := t.byPath[s.Path]
		if last == nil || now.Sub(last.at) >= t.window {
			last = next(last, now, s.Requests, s.Errors)
			t.byPath[s.Path] = last
		}
		if last.ok {
			s.RequestsPerSecond, s.ErrorsPerSecond = new(last.reqRate), new(last.errRate)
		}
	}
}

// next is the sample after last (nil: none) at now with the counts given.
// Counts that went down (a service rebuilt by a reload) restart the rates.
func next(last *rateSample, now time.Time, requests, errors uint64) *rateSample {
	s := &rateSample{at: now, requests: requests, errors: errors}
	if last == nil || now.Sub(last.at) > rateStale || requests < last.requests || errors < last.errors {
		return s
	}
	secs := now.Sub(last.at).Seconds()
	s.reqRate = float64(requests-last.requests) / secs
	s.errRate = float64(errors-last.errors) / secs
	s.ok = true
	return s
}
