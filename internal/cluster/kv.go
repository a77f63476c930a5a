package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// KVOption sets an option of a bucket KV creates.
type KVOption func(*jetstream.KeyValueConfig)

// WithHistory keeps n values per key (1 by default, at most 64).
func WithHistory(n uint8) KVOption {
	return func(c *jetstream.KeyValueConfig) { c.History = n }
}

// WithTTL expires the values of the bucket d after their last write.
func WithTTL(d time.Duration) KVOption {
	return func(c *jetstream.KeyValueConfig) { c.TTL = d }
}

// WithMaxBytes bounds the bucket's size on each server: past it, writes
// fail.
func WithMaxBytes(n int64) KVOption {
	return func(c *jetstream.KeyValueConfig) { c.MaxBytes = n }
}

// WithKeyTTLs lets the bucket's writes carry a TTL of their own
// (jetstream.KeyTTL): an expired key leaves a marker for a second.
func WithKeyTTLs() KVOption {
	return func(c *jetstream.KeyValueConfig) { c.LimitMarkerTTL = time.Second }
}

// KV opens the bucket jx_<cluster>_<name>, creating it if needed: in
// memory, with min(3, nodes configured) replicas. name is [A-Za-z0-9_-].
// KV waits for the node to join. While JetStream is not ready yet (the
// cluster forming, a leader being elected), KV retries until ctx ends; it
// returns once the bucket's stream has a leader (it answers for its
// state), so that the first writes do not wait for its election.
func (n *Node) KV(ctx context.Context, name string, opts ...KVOption) (jetstream.KeyValue, error) {
	if !validName(name) {
		return nil, fmt.Errorf("cluster: bucket name %q: want [A-Za-z0-9_-]", name)
	}
	cfg := jetstream.KeyValueConfig{Bucket: "jx_" + n.cfg.Name + "_" + name,
		Storage: jetstream.MemoryStorage, Replicas: n.replicas, History: 1}
	for _, o := range opts {
		o(&cfg)
	}
	select {
	case <-n.joined:
	case <-n.done:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, fmt.Errorf("cluster: bucket %s: not joined: %w", cfg.Bucket, ctx.Err())
	}
	backoff := 10 * time.Millisecond
	for {
		kv, err := n.openKV(ctx, cfg)
		if err == nil {
			err = led(ctx, kv)
		}
		if err == nil || !retryable(err) {
			return kv, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: bucket %s: %w (%w)", cfg.Bucket, ctx.Err(), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// kvAttempt bounds one attempt of KV: JetStream leaves a request
// unanswered while its cluster has no leader yet.
const kvAttempt = 2 * time.Second

// openKV opens the bucket, or creates it.
func (n *Node) openKV(ctx context.Context, cfg jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	ctx, cancel := context.WithTimeout(ctx, kvAttempt)
	defer cancel()
	kv, err := n.js.KeyValue(ctx, cfg.Bucket)
	if !errors.Is(err, jetstream.ErrBucketNotFound) {
		return kv, err
	}
	kv, err = n.js.CreateKeyValue(ctx, cfg)
	if errors.Is(err, jetstream.ErrBucketExists) {
		return n.js.KeyValue(ctx, cfg.Bucket)
	}
	return kv, err
}

// led returns nil once kv's stream answers for its state: it has a
// leader (a stream just created elects one only then).
func led(ctx context.Context, kv jetstream.KeyValue) error {
	ctx, cancel := context.WithTimeout(ctx, kvAttempt)
	defer cancel()
	_, err := kv.Status(ctx)
	return err
}

// retryable reports whether err says JetStream is not ready yet. A
// stream (a bucket's) not found is one of those: it is asked of a bucket
// that exists, just created by this node or another, and a server that
// has not yet applied its creation (the meta leader's entry) answers
// that it knows no such stream.
func retryable(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		// 10008: JetStream temporarily unavailable; 10005: no suitable
		// peers (not all are up yet); 10059: stream not found (above);
		// 503: no leader yet.
		return api.ErrorCode == 10008 || api.ErrorCode == 10005 || api.ErrorCode == jetstream.JSErrCodeStreamNotFound || api.Code == 503
	}
	if errors.Is(err, jetstream.ErrStreamNotFound) || errors.Is(err, jetstream.ErrBucketNotFound) {
		return true
	}
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, context.DeadlineExceeded)
}

// stopWatcher stops w, waiting for it until ctx ends. A watcher's Stop
// deletes its consumer: a request of the client's legacy JetStream API,
// bounded by its own 5 s and no context, which lasts that long when the
// table has no leader (its quorum lost, as when the last nodes of a
// cluster stop one after the other). Once ctx has ended (the node
// stops), Stop is left to end on its own, at the latest when Close closes
// the connection (which ends the request) and waits for it.
func (n *Node) stopWatcher(ctx context.Context, w jetstream.KeyWatcher) {
	n.stopsMu.Lock()
	if n.stopsClosed {
		n.stopsMu.Unlock()
		w.Stop() // the connection is closed: at once
		return
	}
	done := make(chan struct{})
	n.stops.Go(func() {
		defer close(done)
		w.Stop()
	})
	n.stopsMu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// mirror follows table kv from w (a WatchAll of it), calling apply for
// each change in the table's order, and loaded (if not nil) once, when
// the first watch's initial values are in, until ctx ends. A signal on
// rewatch makes it watch anew: sent when a member is lost, whose server
// may have held the watcher's consumer, which would then stall for
// seconds. A new watch starts with the latest entry of every key (a
// deleted key's marker included), so apply must take again what it has.
func (n *Node) mirror(ctx context.Context, kv jetstream.KeyValue, w jetstream.KeyWatcher, rewatch <-chan struct{},
	apply func(jetstream.KeyValueEntry), loaded func()) {
	for {
		loaded = follow(ctx, w, rewatch, apply, loaded)
		n.stopWatcher(ctx, w)
		for w = nil; w == nil; {
			if ctx.Err() != nil {
				return
			}
			var err error
			if w, err = kv.WatchAll(ctx); err != nil {
				w = nil
				select {
				case <-ctx.Done():
				case <-time.After(retryPause):
				}
			}
		}
	}
}

// follow applies w's changes until ctx ends, a rewatch, or w's end; it
// returns loaded, or nil once it was called.
func follow(ctx context.Context, w jetstream.KeyWatcher, rewatch <-chan struct{},
	apply func(jetstream.KeyValueEntry), loaded func()) func() {
	for {
		select {
		case <-ctx.Done():
			return loaded
		case <-rewatch:
			return loaded
		case e, ok := <-w.Updates():
			if !ok {
				return loaded
			}
			if e != nil {
				apply(e)
			} else if loaded != nil {
				loaded()
				loaded = nil
			}
		}
	}
}
