package cluster

import (
	"context"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// This node's records in the sess table, written again when another
// member deletes them while this node lives: the members that hear a
// majority all held this node lost (a cut in one direction from each of
// them, or heartbeats late past the lease: agree.go) and one reaped it,
// publishing its sessions' leaving and deleting their roster records and
// testaments. Without them, this node's later loss would publish
// nothing of its sessions, and their testaments would be lost. As the
// sub table's interest and the reg table's callees, the records are
// repaired by their owner: it watches its own keys (metadata only) and
// writes again the record of a session it still has, whose key another
// member deleted. Each time the watch starts (at start, on a new life,
// after a member's loss, whose server may have held the watch), the keys
// present are checked against those written, so that a delete between
// two watches is not missed.

// watchOwn watches this node's keys in the sess table kv until close.
func (ro *roster) watchOwn(kv jetstream.KeyValue) {
	for ro.ctx.Err() == nil {
		self := ro.current()
		w, err := kv.Watch(ro.ctx, "*."+memberKey(self)+".*", jetstream.MetaOnly())
		if err != nil {
			select {
			case <-ro.ctx.Done():
			case <-time.After(retryPause):
			}
			continue
		}
		ro.followOwn(self, w)
		ro.node.stopWatcher(ro.ctx, w)
	}
}

// followOwn follows w, the watch of self's keys, until close, a rewatch,
// a new life or w's end.
func (ro *roster) followOwn(self Member, w jetstream.KeyWatcher) {
	present := map[string]bool{}
	loaded := false
	for {
		select {
		case <-ro.ctx.Done():
			return
		case <-ro.rewatch:
			return
		case e, ok := <-w.Updates():
			switch {
			case !ok:
				return
			case e == nil:
				loaded = true
				ro.checkPresent(self, present)
				present = nil
			case !loaded:
				if e.Operation() == jetstream.KeyValuePut {
					present[e.Key()] = true
				}
			case e.Operation() != jetstream.KeyValuePut:
				ro.removed(self, e.Key())
			}
		}
	}
}

// current returns the life the records are written under.
func (ro *roster) current() Member {
	ro.mu.Lock()
	defer ro.mu.Unlock()
	return ro.self
}

// checkPresent writes again the records of self written and missing
// from present, the keys of self in the table, and has the sessions part
// write again the testaments missing.
func (ro *roster) checkPresent(self Member, present map[string]bool) {
	ro.mu.Lock()
	if ro.self == self {
		for ref := range ro.entries {
			if ro.written[ref] && !present[sessionKey("r", self, ref.realm, ref.session)] {
				ro.rewrite(ref)
			}
		}
	}
	ro.mu.Unlock()
	if ro.willsMissing != nil {
		ro.willsMissing(self, present)
	}
}

// removed follows the delete of key, one of self's, from the table: the
// record of a session this node still has, deleted by another member, is
// written again.
func (ro *roster) removed(self Member, key string) {
	kind, hash, ok := ownKey(key, self)
	if !ok {
		return
	}
	ro.mu.Lock()
	ref, live := ro.byHash[hash]
	if live && ro.self == self && kind == "r" && ro.written[ref] {
		ro.rewrite(ref)
	}
	ro.mu.Unlock()
	if live && kind == "w" {
		ro.willRemoved(ref)
	}
}

// rewrite marks ref's record dirty, to be written again. ro.mu must be
// held.
func (ro *roster) rewrite(ref sessionRef) {
	if ok, suppressed := ro.rewarn.Allow(); ok {
		ro.log.Warn("cluster: another member deleted a record of this node's live session from the sess table (it held this node lost); writing it again",
			"realm", string(ref.realm), "session", uint64(ref.session), "suppressed", suppressed)
	}
	ro.dirty[ref] = true
	ro.signal()
}

// willRemoved hands ref, whose testaments' key is not in the table, to
// the sessions part, which writes them again if the session has some
// (sessions.rewriteWill).
func (ro *roster) willRemoved(ref sessionRef) {
	if ro.onWillRemoved != nil {
		ro.onWillRemoved(ref)
	}
}

// ownKey splits key, kind.member.hash, into its kind ("r" or "w") and
// hash when its member is self.
func ownKey(key string, self Member) (kind, hash string, ok bool) {
	kind, rest, ok1 := strings.Cut(key, ".")
	mk, hash, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || (kind != "r" && kind != "w") || mk != memberKey(self) {
		return "", "", false
	}
	return kind, hash, true
}

// willsMissing writes again the testaments this node holds whose key,
// under its life self, is not in present.
func (s *sessions) willsMissing(self Member, present map[string]bool) {
	for ref := range s.wills.all() {
		if !present[sessionKey("w", self, ref.realm, ref.session)] {
			s.rewriteWill(ref)
		}
	}
}

// rewriteWill writes again the testaments of ref, a session of this
// node, when it still has some: their key was deleted by another member.
func (s *sessions) rewriteWill(ref sessionRef) {
	h := s.wills.get(ref)
	if h == nil {
		return
	}
	s.wg.Go(func() {
		kv := s.table()
		if kv == nil {
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.gone || len(h.ts) == 0 || s.node.Fenced() || s.ctx.Err() != nil {
			return
		}
		ctx, cancel := context.WithTimeout(s.ctx, tableTimeout)
		defer cancel()
		if err := s.writeWill(ctx, kv, s.node.Self(), ref.realm, ref.session, h.ts); err != nil && s.ctx.Err() == nil {
			s.log.Error("cluster: testaments not kept in the cluster's table: they are lost if this node dies",
				"realm", string(ref.realm), "session", uint64(ref.session), "err", err)
		}
	})
}
