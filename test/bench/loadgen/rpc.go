package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// echoProcedure is the prefix of what the callee registers and the caller
// calls; each run adds a suffix of its own (see unique).
const echoProcedure = "com.bench.loadgen.echo"

// phaseBound is added to a run's planned length as the deadline of its
// calls: a call that takes that long means the router is stuck.
const phaseBound = time.Minute

type rpcOptions struct {
	inflight int
	duration time.Duration
	count    int64
	warmup   time.Duration
	wait     bool
}

func (o *rpcOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.inflight, "inflight", 1, "calls in flight at once")
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "how long to measure (unless -count)")
	fs.Int64Var(&o.count, "count", 0, "measure this many calls instead of a duration")
	fs.DurationVar(&o.warmup, "warmup", 500*time.Millisecond, "calls before measuring, not counted")
	fs.BoolVar(&o.wait, "wait", false, `print "ready" once warmed up, measure after a line on stdin, and hold the sessions until stdin ends`)
}

// rpcResult is one rpc run. Served counts the invocations the callee
// answered while the caller measured: a clean run has Served == Calls.
type rpcResult struct {
	Mode       string  `json:"mode"`
	Transport  string  `json:"transport"`
	Serializer string  `json:"serializer"`
	Inflight   int     `json:"inflight"`
	Calls      int64   `json:"calls"`
	Served     int64   `json:"served"`
	Errors     int64   `json:"errors"`
	FirstError string  `json:"first_error,omitempty"`
	Seconds    float64 `json:"seconds"`
	CallsPerS  float64 `json:"calls_per_s"`
	P50us      float64 `json:"p50_us"`
	P99us      float64 `json:"p99_us"`
}

func (r *rpcResult) clean() error {
	if r.Errors > 0 {
		return fmt.Errorf("rpc: %d calls failed, the first: %s", r.Errors, r.FirstError)
	}
	if r.Calls != r.Served {
		return fmt.Errorf("rpc: %d calls answered, %d served by the callee", r.Calls, r.Served)
	}
	return nil
}

// runRPC joins a callee and a caller session and measures calls of an
// echo procedure, o.inflight at a time.
func runRPC(t target, o rpcOptions, stdin io.Reader, out io.Writer) (outcome, error) {
	if o.inflight < 1 {
		return outcome{}, errors.New("rpc: -inflight must be at least 1")
	}
	sessions, err := t.joinMany(2, 2)
	if err != nil {
		return outcome{}, err
	}
	release := func() { closeAll(sessions) }
	callee, caller := sessions[0], sessions[1]
	var served atomic.Int64
	echo := func(_ context.Context, inv *client.Invocation) (*client.Result, error) {
		served.Add(1)
		return &client.Result{Args: inv.Args}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), joinTimeout)
	defer cancel()
	procedure := unique(echoProcedure)
	if _, err := callee.Register(ctx, procedure, echo, nil); err != nil {
		release()
		return outcome{}, err
	}
	warm := calls(caller, procedure, o.inflight, time.Now().Add(o.warmup), 0)
	if warm.errors > 0 {
		release()
		return outcome{}, fmt.Errorf("rpc: warming up: %w", warm.first)
	}
	if o.wait {
		fmt.Fprintln(out, "ready")
		if err := readLine(stdin); err != nil {
			release()
			return outcome{}, fmt.Errorf("rpc: waiting for the go-ahead on stdin: %w", err)
		}
	}
	before := served.Load()
	start := time.Now()
	p := calls(caller, procedure, o.inflight, start.Add(o.duration), o.count)
	elapsed := time.Since(start)
	r := &rpcResult{
		Mode: "rpc", Transport: t.transport, Serializer: t.serializer, Inflight: o.inflight,
		Calls: int64(len(p.latencies)), Served: served.Load() - before, Errors: p.errors,
		Seconds: elapsed.Seconds(), CallsPerS: float64(len(p.latencies)) / elapsed.Seconds(),
		P50us: micros(percentile(p.latencies, 0.50)), P99us: micros(percentile(p.latencies, 0.99)),
	}
	if p.first != nil {
		r.FirstError = p.first.Error()
	}
	return outcome{result: r, release: release}, nil
}

// phase is what calls measured: the latency of each call answered, and
// the failures.
type phase struct {
	latencies []time.Duration
	errors    int64
	first     error
}

// calls runs inflight callers of the procedure, each calling in a
// loop, until count calls were made (count > 0) or else until deadline,
// and returns when every call has come back. A caller whose call fails
// stops.
func calls(s *client.Session, procedure wamp.URI, inflight int, deadline time.Time, count int64) phase {
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(phaseBound))
	defer cancel()
	var tickets atomic.Int64
	tickets.Store(count)
	more := func() bool {
		if count > 0 {
			return tickets.Add(-1) >= 0
		}
		return time.Now().Before(deadline)
	}
	args := wamp.List{int64(42), "hello", 3.5}
	var mu sync.Mutex // guards p
	var p phase
	var wg sync.WaitGroup
	for range inflight {
		wg.Go(func() {
			var own []time.Duration
			var err error
			for err == nil && more() {
				t0 := time.Now()
				if _, err = s.Call(ctx, procedure, args, nil); err == nil {
					own = append(own, time.Since(t0))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			p.latencies = append(p.latencies, own...)
			if err != nil {
				p.errors++
				if p.first == nil {
					p.first = err
				}
			}
		})
	}
	wg.Wait()
	return p
}

// readLine reads r up to and including its next newline, one byte at a
// time, so that nothing after the line is consumed.
func readLine(r io.Reader) error {
	var b [1]byte
	for {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return err
		}
		if b[0] == '\n' {
			return nil
		}
	}
}
