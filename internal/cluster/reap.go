package cluster

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// Reaping a member: when a member is lost, and the members agree on it
// (agree.go: no member this node hears still hears it), the live node
// that creates the key reap.<member> of the sess table first publishes,
// for each of the member's sessions (its roster keys, roster.go, and
// testaments, will.go), what the member would have published had the
// session left, then deletes their keys and the lock. When a member
// leaves cleanly, its sessions published their leaving as they ended: the
// reaper only deletes what they left in the table. When a reaper is lost,
// or leaves, before it finished, every live node tries to take each lock
// it held over, by compare-and-set: the one that succeeds goes on where
// the reaper was. A reaper that dies between publishing a session's
// leaving and deleting its keys has it published again by the one that
// takes over.
//
// A node reaps only while it hears a majority (the rule of the fence):
// an isolated node, fenced or serving, may be the one cut off, the
// members it lost alive; with an external NATS it may still reach the
// table. It postpones the reaping of the members it loses while isolated,
// and stops a reaping under way when it finds itself isolated; once it
// hears a majority again, it reaps those still lost once the members
// agree on it (a member lost for good, or an earlier life of a member
// that restarted).

// membership reaps a member that left (deletes what its sessions left in
// the table: they published their leaving as they ended), and takes over
// the reaping it had begun, while this node hears a majority; it resumes
// the reapings postponed when this node hears a majority again. A member
// lost is reaped once the members agree on it (agreed).
func (s *sessions) membership(ev MemberEvent) {
	self := s.node.Self()
	switch {
	case s.ctx.Err() != nil:
		return // this node stops: the members that stay reap
	case ev.Member.Name == self.Name && ev.Up:
		// Once the members up again with this node are shown (a fenced
		// node's rejoin reports them after itself): the reaping of a
		// lost member asks whether another node has what it held.
		s.node.afterEvents(func() {
			if s.ctx.Err() == nil {
				s.resume()
			}
		})
	case ev.Member.Name == self.Name:
	case ev.Up:
		s.mu.Lock()
		delete(s.postponed, ev.Member) // alive: nothing to reap
		s.mu.Unlock()
	case ev.Left:
		s.startReap(reapLock{reaper: self, member: ev.Member})
	default:
		s.lost(ev.Member)
	}
}

// lost notes the loss of member m, which is reaped once the members
// agree on it (agreed). This node agrees on nothing while it is
// isolated: it says so, as it says of a reaping it postpones.
func (s *sessions) lost(m Member) {
	if _, isolated := s.node.isolation(); isolated {
		s.warnPostponed(m)
		s.reaped.Add(1)
	}
}

// agreed reaps member m, lost, whose loss the members agree on (or whose
// life is over by its own word), and takes over the reaping it had
// begun, while this node hears a majority; it postpones it otherwise.
func (s *sessions) agreed(m Member) {
	if s.ctx.Err() == nil {
		s.startReap(reapLock{reaper: s.node.Self(), member: m, publish: true})
	}
}

// startReap reaps l.member, and takes over the reaping it had begun, on a
// goroutine, while this node hears a majority; it postpones it otherwise,
// or when this node is isolated before it is done.
func (s *sessions) startReap(l reapLock) {
	ctx, cancel, ok := s.node.majority(s.ctx)
	if !ok {
		cancel()
		s.postpone(l)
		s.reaped.Add(1)
		return
	}
	s.wg.Go(func() {
		defer s.reaped.Add(1)
		defer cancel()
		s.reap(ctx, l)
		s.takeOverReaps(ctx, l.member, !l.publish)
		s.postponeCut(ctx, l)
	})
}

// postpone keeps l for when this node hears a majority again.
func (s *sessions) postpone(l reapLock) {
	s.warnPostponed(l.member)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.postponed[l.member] = l
}

func (s *sessions) warnPostponed(m Member) {
	s.log.Warn("cluster: a member's reaping postponed: this node is isolated; it reaps the member if still lost once it hears a majority again",
		"member", m.String())
}

// resume starts the reapings postponed of the members still lost: this
// node hears a majority again (or starts).
func (s *sessions) resume() {
	live := map[Member]bool{}
	for _, m := range s.node.Members() {
		live[m] = true
	}
	self := s.node.Self()
	s.mu.Lock()
	todo := s.postponed
	s.postponed = map[Member]reapLock{}
	s.mu.Unlock()
	for m, l := range todo {
		if !live[m] {
			l.reaper = self // a fenced node rejoined under a new epoch
			s.startReap(l)
		}
	}
}

// table returns the sess table, nil before start.
func (s *sessions) table() jetstream.KeyValue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.will
}

// reap reaps l.member, when this node takes its lock, the key
// reap.<member>, first; it stops when ctx ends.
func (s *sessions) reap(ctx context.Context, l reapLock) {
	kv := s.table()
	lock := "reap." + memberKey(l.member)
	err := s.retry(ctx, func(ctx context.Context) error {
		_, err := kv.Create(ctx, lock, appendReapLock(nil, l))
		return err
	})
	switch {
	case conflict(err) && !s.mine(ctx, kv, lock):
		return // another node reaps l.member
	case err != nil && ctx.Err() != nil:
		return // this node stops, or is isolated: postponed (startReap)
	case err != nil && !conflict(err) && !l.publish:
		s.log.Info("cluster: the records a member that left kept in the sess table not deleted", "member", l.member.String(), "err", err)
		return
	case err != nil && !conflict(err):
		s.log.Error("cluster: a lost member's sessions not reaped: its lock cannot be taken", "member", l.member.String(), "err", err)
		return
	}
	s.finish(ctx, kv, lock, l)
}

// reapHook, when set (tests: OnReap), is called as a reaper starts; true
// stops the reaping there, as if the reaper died.
var reapHook atomic.Pointer[func(reaper, lost Member) bool]

// finish reaps l.member under this node's lock, then deletes the lock.
func (s *sessions) finish(ctx context.Context, kv jetstream.KeyValue, lock string, l reapLock) {
	if h := reapHook.Load(); h != nil && (*h)(l.reaper, l.member) {
		return
	}
	n, err := s.reapSessions(ctx, kv, l)
	if err != nil && ctx.Err() != nil && s.ctx.Err() == nil {
		s.log.Warn("cluster: a member's sessions not all reaped: this node is isolated", "member", l.member.String(), "reaped", n)
		return
	}
	if err != nil && s.ctx.Err() != nil {
		s.log.Info("cluster: a member's sessions not all reaped: this node stops; a member that stays takes the reaping over", "member", l.member.String(), "reaped", n)
		return
	}
	if err != nil && !l.publish {
		s.log.Info("cluster: the records a member that left kept in the sess table not deleted", "member", l.member.String(), "err", err)
		return
	}
	if err != nil {
		s.log.Error("cluster: a lost member's sessions not all reaped: the rest waits for this node's end", "member", l.member.String(), "reaped", n, "err", err)
		return
	}
	s.retry(ctx, func(ctx context.Context) error { return kv.Delete(ctx, lock) })
	if n > 0 && l.publish {
		s.log.Info("cluster: a lost member's sessions left: their meta events and testaments published", "member", l.member.String(), "sessions", n)
	}
}

// takeOverReaps reaps the members that member r, lost or left, had begun to
// reap and not finished: the node whose compare-and-set of the lock
// succeeds goes on. It stops when ctx ends.
func (s *sessions) takeOverReaps(ctx context.Context, r Member, left bool) {
	kv := s.table()
	held, err := s.heldBy(ctx, kv, r)
	switch {
	case err != nil && ctx.Err() != nil:
		return
	case err != nil && left: // as when the last nodes of a cluster stop
		s.log.Info("cluster: the reaping a member that left may have begun not taken over: the locks cannot be read", "reaper", r.String(), "err", err)
		return
	case err != nil:
		s.log.Error("cluster: the reaping a lost member had begun not taken over: the locks cannot be read", "reaper", r.String(), "err", err)
		return
	}
	self := s.node.Self()
	live := map[Member]bool{}
	for _, m := range s.node.Members() {
		live[m] = true
	}
	for _, e := range held {
		l, _ := decodeReapLock(e.Value())
		if l.member == self || live[l.member] {
			// Back (this life of this node, or a member heard again):
			// nothing to reap. Its lock goes, so that its next loss is
			// reaped.
			s.retry(ctx, func(ctx context.Context) error {
				return kv.Delete(ctx, e.Key(), jetstream.LastRevision(e.Revision()))
			})
			continue
		}
		l.reaper = self
		err := s.retry(ctx, func(ctx context.Context) error {
			_, err := kv.Update(ctx, e.Key(), appendReapLock(nil, l), e.Revision())
			return err
		})
		if err != nil && !(conflict(err) && s.mine(ctx, kv, e.Key())) {
			if !conflict(err) && ctx.Err() == nil {
				s.log.Error("cluster: the reaping a lost member had begun not taken over", "member", l.member.String(), "reaper", r.String(), "err", err)
			}
			s.postponeCut(ctx, l) // its compare-and-set may have been made
			continue              // else another member took it over
		}
		s.log.Warn("cluster: took over the reaping of a member from its reaper, gone before it finished", "member", l.member.String(), "reaper", r.String())
		s.finish(ctx, kv, e.Key(), l)
		s.postponeCut(ctx, l)
	}
}

// postponeCut postpones the reaping of l.member that this node took over
// when ctx ended with this node isolated: the lock names this node now,
// and no other member takes it over while this node lives; once it hears
// a majority again, it finds the lock its own (reap) and goes on.
func (s *sessions) postponeCut(ctx context.Context, l reapLock) {
	if ctx.Err() != nil && s.ctx.Err() == nil {
		s.postpone(l)
	}
}

// mine reports whether this node holds the reap lock: a write that lost
// its answer and was tried again finds the key written, by itself.
func (s *sessions) mine(ctx context.Context, kv jetstream.KeyValue, lock string) bool {
	var e jetstream.KeyValueEntry
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		e, err = kv.Get(ctx, lock)
		return err
	})
	if err != nil {
		return false
	}
	l, err := decodeReapLock(e.Value())
	return err == nil && l.reaper == s.node.Self()
}

// heldBy returns the reap locks member r holds.
func (s *sessions) heldBy(ctx context.Context, kv jetstream.KeyValue, r Member) ([]jetstream.KeyValueEntry, error) {
	all, err := s.readAll(ctx, kv, "reap.*")
	if err != nil {
		return nil, err
	}
	var held []jetstream.KeyValueEntry
	for _, e := range all {
		l, err := decodeReapLock(e.Value())
		if err != nil {
			s.log.Error("cluster: malformed reap lock in the sess table", "key", e.Key(), "err", err)
		} else if l.reaper == r {
			held = append(held, e)
		}
	}
	return held, nil
}

// readAll returns the entries of kv whose keys match filter, each
// attempt bounded (a watch whose consumer was on a lost member's server
// may stall), tried again while JetStream elects a leader.
func (s *sessions) readAll(ctx context.Context, kv jetstream.KeyValue, filter string) ([]jetstream.KeyValueEntry, error) {
	var entries []jetstream.KeyValueEntry
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		entries, err = s.node.readOnce(ctx, kv, filter)
		return err
	})
	return entries, err
}

func (n *Node) readOnce(ctx context.Context, kv jetstream.KeyValue, filter string) ([]jetstream.KeyValueEntry, error) {
	w, err := kv.Watch(ctx, filter, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer n.stopWatcher(ctx, w)
	var entries []jetstream.KeyValueEntry
	for {
		select {
		case e := <-w.Updates():
			if e == nil {
				return entries, nil // the values there were are all read
			}
			entries = append(entries, e)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// retry runs op, each attempt with a deadline of its own, until it
// succeeds or fails with an error that JetStream's leader elections do
// not explain, or ctx ends, or reapTimeout passed.
func (s *sessions) retry(ctx context.Context, op func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, reapTimeout)
	defer cancel()
	for {
		attempt, cancel := context.WithTimeout(ctx, openAttempt)
		err := op(attempt)
		cancel()
		if err == nil || !(retryable(err) || unavailableLegacy(err)) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(retryPause):
		}
	}
}

// unavailableLegacy reports whether err is JetStream's "temporarily
// unavailable" (a leader election) as the legacy API behind the key-value
// watchers gives it.
func unavailableLegacy(err error) bool {
	var api *nats.APIError
	return errors.As(err, &api) && (api.ErrorCode == nats.JSErrCodeJetStreamNotAvailable || api.Code == 503)
}

// lostSession is one session of a reaped member, gathered from its keys.
type lostSession struct {
	member   Member // the member reaped
	realm    wamp.URI
	keys     []string
	rostered bool // its roster key was there: on_leave and the rest
	s        router.LostSession
}

// reapSessions publishes the leaving of l.member's sessions, when
// l.publish, and deletes their keys; it returns how many sessions it
// reaped.
func (s *sessions) reapSessions(ctx context.Context, kv jetstream.KeyValue, l reapLock) (int, error) {
	mk := memberKey(l.member)
	entries, err := s.readAll(ctx, kv, "*."+mk+".>")
	if err != nil {
		return 0, err
	}
	lost := s.gather(entries, mk, l.member)
	last := lastHolders(lost)
	for done := 0; done < len(lost); {
		if err := ctx.Err(); err != nil {
			return done, err // this node stops, or is isolated
		}
		batch := lost[done:min(done+reapBatch, len(lost))]
		for _, ls := range batch {
			if !l.publish {
				continue
			}
			ls.s.Subscriptions = last(ls.realm, ls.s.Subscriptions, 's')
			ls.s.Registrations = last(ls.realm, ls.s.Registrations, 'r')
			if link := s.realm(ls.realm); link != nil {
				publishLost(link, ls)
			} else if err := s.handOver(ls); err != nil {
				return done, err // a realm this node does not serve (reap_handover.go)
			}
		}
		if err := s.deleteKeys(ctx, kv, batch); err != nil {
			return done, err
		}
		done += len(batch)
	}
	return len(lost), nil
}

// reapTimeout bounds each table operation of a reaper, its retries
// while JetStream elects a leader included.
const reapTimeout = 30 * time.Second

// reapBatch is how many sessions a reaper publishes before it deletes
// their records, all at once: a reaper that dies in between has that
// many sessions' leaving published again by the member that takes over.
const reapBatch = 32

// deleteKeys deletes the records of the sessions of batch, concurrently.
func (s *sessions) deleteKeys(ctx context.Context, kv jetstream.KeyValue, batch []*lostSession) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(batch))
	for _, ls := range batch {
		wg.Go(func() {
			for _, k := range ls.keys {
				if err := s.retry(ctx, func(ctx context.Context) error { return kv.Delete(ctx, k) }); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// gather groups the roster and testament keys of the sessions of member
// m (prefix "r." or "w.", then mk, m's), by session, in the order of
// their IDs.
func (s *sessions) gather(entries []jetstream.KeyValueEntry, mk string, m Member) []*lostSession {
	bySession := map[string]*lostSession{}
	for _, e := range entries {
		k := e.Key()
		ref := strings.TrimPrefix(k[2:], mk+".")
		ls := bySession[ref]
		if ls == nil {
			ls = &lostSession{member: m}
			bySession[ref] = ls
		}
		ls.keys = append(ls.keys, k)
		if err := ls.add(k[0], e.Value()); err != nil {
			s.log.Error("cluster: malformed session record in the sess table", "key", k, "err", err)
		}
	}
	all := make([]*lostSession, 0, len(bySession))
	for _, ls := range bySession {
		all = append(all, ls)
	}
	slices.SortFunc(all, func(a, b *lostSession) int { return cmp.Compare(a.s.ID, b.s.ID) })
	return all
}

// add decodes a roster entry (kind 'r') or testaments (kind 'w') into ls.
func (ls *lostSession) add(kind byte, v []byte) error {
	if kind == 'w' {
		w, err := decodeWill(v)
		if err == nil {
			ls.realm, ls.s.ID, ls.s.Testaments = w.realm, w.session, w.ts
		}
		return err
	}
	e, err := decodeRoster(v)
	if err != nil {
		return err
	}
	ls.realm, ls.rostered = e.realm, true
	ls.s.ID, ls.s.AuthID, ls.s.AuthRole = e.session, e.authID, e.authRole
	ls.s.Subscriptions, ls.s.Registrations = e.subs, e.regs
	return nil
}

// lastHolders counts the sessions of lost that hold each subscription and
// registration, and returns a function that, called for each session in
// turn, marks the items no later session holds.
func lastHolders(lost []*lostSession) func(realm wamp.URI, items []router.RosterItem, kind byte) []router.RosterItem {
	type ref struct {
		realm wamp.URI
		kind  byte
		id    wamp.ID
	}
	holders := map[ref]int{}
	for _, ls := range lost {
		for _, it := range ls.s.Subscriptions {
			holders[ref{ls.realm, 's', it.ID}]++
		}
		for _, it := range ls.s.Registrations {
			holders[ref{ls.realm, 'r', it.ID}]++
		}
	}
	return func(realm wamp.URI, items []router.RosterItem, kind byte) []router.RosterItem {
		for i, it := range items {
			k := ref{realm, kind, it.ID}
			holders[k]--
			items[i].Last = holders[k] == 0
		}
		return items
	}
}
