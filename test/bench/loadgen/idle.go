package main

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/junction-wamp/junction/client"
)

type idleOptions struct {
	sessions int
	parallel int
	pid      int
	settle   settleOptions
}

func (o *idleOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.sessions, "sessions", 10000, "idle sessions to open")
	fs.IntVar(&o.parallel, "parallel", 64, "sessions joining at once")
	fs.IntVar(&o.pid, "pid", 0, "the router's process ID, whose RSS is read from /proc (required)")
	fs.DurationVar(&o.settle.every, "sample", 200*time.Millisecond, "how often the RSS is read while it settles")
	fs.DurationVar(&o.settle.span, "settled-for", 2*time.Second, "the RSS has settled when it stayed within -tolerance for this long")
	fs.Float64Var(&o.settle.tolerance, "tolerance", 0.005, "the largest spread of a settled RSS, as a fraction of it")
	fs.DurationVar(&o.settle.bound, "settle-max", 30*time.Second, "stop waiting for the RSS to settle after this long")
}

// idleResult is one idle run: the router's RSS before the sessions
// connected, right after the last joined, and once it settled with all of
// them idle; BytesPerSession is (RSSIdle - RSSBefore) / Sessions. Lost
// counts the sessions the router had closed by the end (a clean run has
// none).
type idleResult struct {
	Mode            string  `json:"mode"`
	Transport       string  `json:"transport"`
	Serializer      string  `json:"serializer"`
	Sessions        int     `json:"sessions"`
	Lost            int     `json:"lost"`
	RSSBefore       int64   `json:"rss_before"`
	RSSJoined       int64   `json:"rss_joined"`
	RSSIdle         int64   `json:"rss_idle"`
	BytesPerSession float64 `json:"bytes_per_session"`
	JoinSeconds     float64 `json:"join_seconds"`
	SettleSeconds   float64 `json:"settle_seconds"`
	Settled         bool    `json:"settled"`
}

func (r *idleResult) clean() error {
	if r.Lost > 0 {
		return fmt.Errorf("idle: the router closed %d of %d sessions", r.Lost, r.Sessions)
	}
	return nil
}

// runIdle measures the router's RSS with o.sessions idle sessions joined.
func runIdle(t target, o idleOptions) (outcome, error) {
	if o.pid <= 0 || o.sessions < 1 {
		return outcome{}, errors.New("idle: -pid and -sessions are required")
	}
	before, _, err := settledRSS(o.pid, o.settle)
	if err != nil {
		return outcome{}, err
	}
	start := time.Now()
	sessions, err := t.joinMany(o.sessions, o.parallel)
	if err != nil {
		return outcome{}, err
	}
	release := func() { closeAll(sessions) }
	joinTime := time.Since(start)
	joined, err := rss(o.pid)
	if err != nil {
		release()
		return outcome{}, err
	}
	start = time.Now()
	idle, settled, err := settledRSS(o.pid, o.settle)
	if err != nil {
		release()
		return outcome{}, err
	}
	r := &idleResult{
		Mode: "idle", Transport: t.transport, Serializer: t.serializer, Sessions: o.sessions,
		Lost: ended(sessions), RSSBefore: before, RSSJoined: joined, RSSIdle: idle,
		BytesPerSession: float64(idle-before) / float64(o.sessions),
		JoinSeconds:     joinTime.Seconds(), SettleSeconds: time.Since(start).Seconds(), Settled: settled,
	}
	return outcome{result: r, release: release}, nil
}

// ended counts the sessions that have ended.
func ended(sessions []*client.Session) int {
	n := 0
	for _, s := range sessions {
		select {
		case <-s.Done():
			n++
		default:
		}
	}
	return n
}
