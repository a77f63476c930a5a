package cluster

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/nats-io/nats.go/jetstream"
)

// writeTimeout bounds one write of the table.
const writeTimeout = 5 * time.Second

// writer writes this node's records into a table (sub, ret, sess), off
// the callers' goroutines (the broker reports interest with its lock
// held). Only the last wish for a key counts; a failed write is retried,
// with a backoff, until it succeeds or another wish replaces it.
type writer struct {
	kv      jetstream.KeyValue // set by start, before run
	log     *slog.Logger
	warnMsg string // the log's message when a write fails: it names the table
	warn    lograte.Limit
	wake    chan struct{}

	mu      sync.Mutex        // guards the fields below
	pending map[string][]byte // key -> value; nil: delete
	busy    bool              // a batch is being written
	idle    chan struct{}     // closed when nothing is pending and no batch is being written
	stale   string            // a key prefix forgotten: its failed writes are not tried again
}

// newWriter makes a writer of table; what it is asked waits for start.
func newWriter(log *slog.Logger, table string) *writer {
	idle := make(chan struct{})
	close(idle)
	return &writer{log: log, warnMsg: "cluster: " + table + " table write failed, retrying", warn: lograte.Limit{Interval: 10 * time.Second},
		wake: make(chan struct{}, 1), pending: map[string][]byte{}, idle: idle}
}

func (w *writer) put(key string, value []byte) { w.set(key, value) }
func (w *writer) delete(key string)            { w.set(key, nil) }

func (w *writer) set(key string, value []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 && !w.busy {
		w.idle = make(chan struct{})
	}
	w.pending[key] = value
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// forget drops the wishes for the keys that start with prefix (those of
// an earlier life of this node), and does not try again the writes of
// such keys under way that fail.
func (w *writer) forget(prefix string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := len(w.pending) > 0
	for k := range w.pending {
		if strings.HasPrefix(k, prefix) {
			delete(w.pending, k)
		}
	}
	w.stale = prefix
	if had && len(w.pending) == 0 && !w.busy {
		close(w.idle)
	}
}

// flushed returns a channel closed once everything asked so far is
// written (or replaced by a later wish).
func (w *writer) flushed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.idle
}

// start writes into kv, from now until ctx ends, on a goroutine counted
// in wg.
func (w *writer) start(ctx context.Context, wg *sync.WaitGroup, kv jetstream.KeyValue) {
	w.kv = kv
	wg.Go(func() { w.run(ctx) })
}

// run writes until ctx ends.
func (w *writer) run(ctx context.Context) {
	backoff := 10 * time.Millisecond
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		}
		for w.writeBatch(ctx) {
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			backoff = min(2*backoff, time.Second)
		}
		backoff = 10 * time.Millisecond
	}
}

// writeBatch writes what is pending and reports whether a write failed
// (its wish is pending again, unless replaced meanwhile).
func (w *writer) writeBatch(ctx context.Context) (failed bool) {
	w.mu.Lock()
	batch := w.pending
	if len(batch) == 0 { // a wake for wishes an earlier batch took
		w.mu.Unlock()
		return false
	}
	w.pending, w.busy = map[string][]byte{}, true
	w.mu.Unlock()
	var retry map[string][]byte
	for k, v := range batch {
		if err := w.write(ctx, k, v); err != nil && ctx.Err() == nil {
			if retry == nil {
				retry = map[string][]byte{}
			}
			retry[k] = v
			if ok, suppressed := w.warn.Allow(); ok {
				w.log.Warn(w.warnMsg, "key", k, "err", err, "suppressed", suppressed)
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, v := range retry {
		if _, replaced := w.pending[k]; !replaced && (w.stale == "" || !strings.HasPrefix(k, w.stale)) {
			w.pending[k] = v
		}
	}
	w.busy = false
	if len(w.pending) == 0 {
		close(w.idle)
	}
	return len(retry) > 0
}

func (w *writer) write(ctx context.Context, key string, value []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if value == nil {
		return w.kv.Delete(ctx, key)
	}
	_, err := w.kv.Put(ctx, key, value)
	return err
}
