package cluster

import (
	"context"
	"fmt"
	"sync"
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
// every other. Open it at start (or it opens on first use). Safe for
// concurrent use.
type Replays struct {
	node *Node

	mu sync.Mutex // guards kv
	kv jetstream.KeyValue
}

// NewReplays returns node n's view of the replay table.
func NewReplays(n *Node) *Replays { return &Replays{node: n} }

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

// Open opens the table, retrying while JetStream is not ready until ctx
// ends: at the node's start, so that the first signed request finds it.
func (r *Replays) Open(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.openLocked(ctx)
}

// table returns the table, opened first if Open did not (bounded by ctx
// and 2 s).
func (r *Replays) table(ctx context.Context) (jetstream.KeyValue, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, openAttempt)
	defer cancel()
	if err := r.openLocked(ctx); err != nil {
		return nil, err
	}
	return r.kv, nil
}

// openLocked opens the table unless it is open. r.mu must be held.
func (r *Replays) openLocked(ctx context.Context) error {
	if r.kv != nil {
		return nil
	}
	kv, err := openTable(ctx, r.node, replayTable, WithKeyTTLs(), WithMaxBytes(ReplayTableBytes))
	if err != nil {
		return fmt.Errorf("cluster: replay table: %w", err)
	}
	r.kv = kv
	return nil
}

// wholeSeconds rounds d up to whole seconds, at least one: the shortest
// TTL of a key.
func wholeSeconds(d time.Duration) time.Duration {
	return max(time.Second, (d + time.Second - 1).Truncate(time.Second))
}
