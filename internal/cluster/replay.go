package cluster

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// replayTable holds the signed HTTP bridge requests accepted on any node:
// one key per request's (signing key, nonce) and one per its MAC, each
// with the TTL its service remembers it for.
const replayTable = "replay"

// ReplayTableBytes bounds the replay table on each server: about 220,000
// requests remembered (about 300 bytes each, measured: its two keys).
// Past it, Claim fails until keys expire.
const ReplayTableBytes = 64 << 20

// Replays is the cluster's replay table, for the HTTP bridge's signed
// requests (bridge.SharedNonces): a nonce used on one node is refused on
// every other. Start opens it in the background; until then each Claim
// tries to open it. Safe for concurrent use.
type Replays struct {
	node   *Node
	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	done   chan struct{} // closed when the background open returns
	start  atomic.Bool   // Start was called

	mu sync.Mutex // guards kv
	kv jetstream.KeyValue
}

// NewReplays returns node n's view of the replay table.
func NewReplays(n *Node) *Replays {
	r := &Replays{node: n, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r
}

// Start opens the table in the background, retrying while JetStream is
// not ready (the cluster forming), until it is open or Close: the node's
// start does not wait for it.
func (r *Replays) Start() {
	r.start.Store(true)
	go func() {
		defer close(r.done)
		kv, err := openTable(r.ctx, r.node, replayTable, replayOptions()...)
		if err != nil {
			return // closed first
		}
		r.mu.Lock()
		if r.kv == nil {
			r.kv = kv
		}
		r.mu.Unlock()
	}()
}

// Close stops a background open still retrying.
func (r *Replays) Close() {
	r.cancel()
	if r.start.Load() {
		<-r.done
	}
}

// Claim records key as used for ttl (rounded up to whole seconds, at
// least one). fresh is false when key is recorded and unexpired; err
// says the table could not tell (not joined yet, no JetStream quorum,
// full: see ReplayTableBytes), each attempt bounded by 2 s and by ctx. key is any string (escaped
// with Token).
func (r *Replays) Claim(ctx context.Context, key string, ttl time.Duration) (fresh bool, err error) {
	kv, err := r.table(ctx)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, kvAttempt)
	defer cancel()
	_, err = kv.Create(ctx, Token(key), nil, jetstream.KeyTTL(wholeSeconds(ttl)))
	switch {
	case err == nil:
		return true, nil
	case conflict(err):
		return false, nil
	}
	return false, fmt.Errorf("cluster: replay table: %w", err)
}

// table returns the table, opened first if the background open has not
// (bounded by ctx and 2 s).
func (r *Replays) table(ctx context.Context) (jetstream.KeyValue, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kv != nil {
		return r.kv, nil
	}
	ctx, cancel := context.WithTimeout(ctx, openAttempt)
	defer cancel()
	kv, err := openTable(ctx, r.node, replayTable, replayOptions()...)
	if err != nil {
		return nil, fmt.Errorf("cluster: replay table: %w", err)
	}
	r.kv = kv
	return kv, nil
}

func replayOptions() []KVOption {
	return []KVOption{WithKeyTTLs(), WithMaxBytes(ReplayTableBytes)}
}

// wholeSeconds rounds d up to whole seconds, at least one: the shortest
// TTL of a key.
func wholeSeconds(d time.Duration) time.Duration {
	return max(time.Second, (d + time.Second - 1).Truncate(time.Second))
}
