package cluster

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// The lock table: one record per lock, the holder's member, which the
// holder writes again every lease/4. The bucket's TTL is the lease, so a
// holder that stops writing (killed, cut off, its table unreachable)
// loses its record a lease after its last write, and another node may
// then take the lock.
const lockTable = "lock"

// Hold takes part in the cluster-wide lock name until ctx ends: one node
// of the cluster at a time holds it, and each time this node comes to
// hold it, Hold calls held with a context that ends when the lock is lost
// (or ctx ends), and waits for held to return before it tries again. A
// holder gives the lock up when it has not renewed its record for half
// the lease (its table unreachable, or the node fenced), so that it has
// stopped before its record expires and another node takes the lock. It
// releases the lock at once when ctx ends or held returns by itself (and
// then tries again a tick later). name is any string (escaped with
// Token). Hold returns nil when ctx ends, or an error if the table cannot
// be opened.
func (n *Node) Hold(ctx context.Context, name string, held func(context.Context)) error {
	kv, err := openTable(ctx, n, lockTable, WithTTL(n.cfg.Lease))
	if err != nil {
		return err
	}
	l := &lock{node: n, kv: kv, key: Token(name), tick: n.cfg.Lease / 4}
	for ctx.Err() == nil {
		rev, ok := l.take(ctx)
		if ok {
			l.hold(ctx, rev, held)
			l.pause(ctx)
		}
	}
	return nil
}

// lock is one node's part in one lock of the table.
type lock struct {
	node *Node
	kv   jetstream.KeyValue
	key  string
	tick time.Duration // between two takes or renewals
}

// take tries to create the lock's record every tick until it does (it
// returns its revision and true) or ctx ends.
func (l *lock) take(ctx context.Context) (uint64, bool) {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	for {
		if !l.node.Fenced() {
			rev, err := l.write(ctx, 0)
			if err == nil {
				return rev, true
			}
			if conflict(err) {
				if rev, ok := l.ours(ctx); ok {
					return rev, true
				}
			}
		}
		select {
		case <-ctx.Done():
			return 0, false
		case <-t.C:
		}
	}
}

// ours returns the revision of the record when it names this node's
// member: a write whose answer was lost (the record then took this node's
// for another's).
func (l *lock) ours(ctx context.Context) (uint64, bool) {
	ctx, cancel := context.WithTimeout(ctx, min(kvAttempt, l.tick))
	defer cancel()
	e, err := l.kv.Get(ctx, l.key)
	if err != nil || string(e.Value()) != l.node.Self().String() {
		return 0, false
	}
	return e.Revision(), true
}

// hold runs held while the record of revision rev is renewed, then
// releases the lock when ctx ended or held returned by itself.
func (l *lock) hold(ctx context.Context, rev uint64, held func(context.Context)) {
	hctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); held(hctx) }()
	l.node.log.Info("cluster: lock taken", "lock", l.key)
	rev = l.renew(hctx, rev, done)
	cancel()
	<-done
	if rev != 0 {
		l.release(rev)
	}
	l.node.log.Info("cluster: lock given up", "lock", l.key, "stopping", ctx.Err() != nil)
}

// pause waits a tick, or until ctx ends.
func (l *lock) pause(ctx context.Context) {
	t := time.NewTimer(l.tick)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// renew writes the record again every tick until ctx ends or done is
// closed (it returns the record's revision) or the lock is lost (it
// returns 0): another node wrote it, the node is fenced, or no write
// succeeded for half the lease.
func (l *lock) renew(ctx context.Context, rev uint64, done <-chan struct{}) uint64 {
	t := time.NewTicker(l.tick)
	defer t.Stop()
	renewed := time.Now()
	for {
		select {
		case <-ctx.Done():
			return rev
		case <-done:
			return rev
		case <-t.C:
		}
		if l.node.Fenced() {
			return 0
		}
		start := time.Now()
		next, err := l.write(ctx, rev)
		switch {
		case err == nil:
			rev, renewed = next, start
		case conflict(err):
			return 0 // the record is another's: it expired and was taken
		case time.Since(renewed) >= l.node.cfg.Lease/2:
			l.node.log.Warn("cluster: lock lost: not renewed for half the lease", "lock", l.key, "error", err)
			return 0
		}
	}
}

// write creates the record (rev 0) or updates revision rev, bounded by a
// tick.
func (l *lock) write(ctx context.Context, rev uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, min(kvAttempt, l.tick))
	defer cancel()
	value := []byte(l.node.Self().String())
	if rev == 0 {
		return l.kv.Create(ctx, l.key, value)
	}
	return l.kv.Update(ctx, l.key, value, rev)
}

// release deletes the record of revision rev, if it is still this
// node's, so that another node takes the lock at once.
func (l *lock) release(rev uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), min(kvAttempt, l.tick))
	defer cancel()
	if err := l.kv.Delete(ctx, l.key, jetstream.LastRevision(rev)); err != nil {
		l.node.log.Warn("cluster: lock not released; it expires", "lock", l.key, "error", err)
	}
}
