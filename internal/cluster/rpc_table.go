package cluster

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// regKey is the key of the record of (realm, match, procedure) in the reg
// table: realm.match.procedure, each a Token.
func regKey(realm wamp.URI, match string, procedure wamp.URI) string {
	return Token(string(realm)) + "." + Token(match) + "." + Token(string(procedure))
}

// conflict reports whether err is a write that lost a race with another
// (Create of a key that exists, a compare-and-set on an older revision).
// Create on a deleted key, and any write to a replicated bucket, may give
// the server's "wrong last sequence" error as it is.
func conflict(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return true
	}
	return errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch)
}

// unavailable is the ERROR of a REGISTER whose table write failed.
func unavailable(err error) error {
	return wamp.Errorf(wamp.ErrClusterUnavailable, "the cluster's table of registrations cannot be written: %v", err)
}

// Register adds this node's session to the record of reg: Create when
// there is none (the lock of policy single: of two nodes creating it at
// once, one wins), compare-and-set on the record otherwise, retried when
// another node wrote it first.
func (r *callRealm) Register(reg router.Registration, session wamp.ID, canCancel bool) (uint64, error) {
	c := r.c
	ctx, cancel := context.WithTimeout(c.ctx, tableTimeout)
	defer cancel()
	key := regKey(r.name, reg.Match, reg.Procedure)
	self := c.node.Self()
	kv, err := c.table()
	if err != nil {
		return 0, unavailable(err)
	}
	for {
		rec, rev, err := c.get(ctx, kv, key)
		if err != nil && c.again(ctx, err) {
			continue
		}
		if err != nil {
			return 0, unavailable(err)
		}
		if rec == nil {
			rec = &record{id: reg.ID, realm: r.name, match: reg.Match, procedure: reg.Procedure, policy: reg.Policy, next: 1}
		} else if reg.Policy == wamp.InvokeSingle || rec.policy != reg.Policy || rec.has(self, session) {
			return 0, wamp.Errorf(wamp.ErrProcedureAlreadyExists, "procedure %q is already registered", reg.Procedure)
		}
		order := rec.next
		rec.next++
		rec.callees = append(rec.callees, entry{member: self, session: session, order: order, canCancel: canCancel})
		err = c.put(ctx, kv, key, rec, rev)
		if err == nil {
			c.own(r.name, key, session)
			return order, nil
		}
		if !conflict(err) && !c.again(ctx, err) {
			return 0, unavailable(err)
		}
	}
}

// again reports whether a table operation that failed with err should be
// tried again: JetStream is electing a leader (a node was lost) and ctx
// leaves time; it waits a little first.
func (c *calls) again(ctx context.Context, err error) bool {
	if !retryable(err) {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(retryPause):
		return true
	}
}

// Unregister removes this node's session from the record of (procedure,
// match), deleting the record with its last callee; junction.error.
// cluster_unavailable when the table cannot be written.
func (r *callRealm) Unregister(procedure wamp.URI, match string, session wamp.ID) error {
	c := r.c
	key := regKey(r.name, match, procedure)
	c.disown(key, session)
	if c.leaving.Load() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
	defer cancel()
	self := c.node.Self()
	err := c.update(ctx, key, func(e entry) bool { return e.member == self && e.session == session })
	if err == nil || errors.Is(err, errNotStarted) {
		return nil
	}
	c.log.Warn("cluster: unregister: the table cannot be written",
		"realm", string(r.name), "procedure", string(procedure), "session", uint64(session), "err", err)
	return unavailable(err)
}

// clean removes the entries of lost members from the records keys; it
// stops once this node was isolated after the losses, when its isolation
// count is no longer count (see dead).
func (c *calls) clean(keys []string, count int) {
	ctx, cancel := context.WithTimeout(c.ctx, tableTimeout)
	defer cancel()
	for _, k := range keys {
		if now, isolated := c.node.isolation(); isolated || now != count {
			return
		}
		if err := c.update(ctx, k, func(entry) bool { return false }); err != nil && ctx.Err() == nil {
			c.log.Warn("cluster: cannot remove a lost node's callees from the table", "key", k, "err", err)
		}
	}
}

// update removes the entries del picks, and the dead ones, from the
// record key, retrying on conflicts; it deletes a record left empty.
func (c *calls) update(ctx context.Context, key string, del func(entry) bool) error {
	kv, err := c.table()
	if err != nil {
		return err
	}
	for {
		rec, rev, err := c.getRaw(ctx, kv, key)
		if err != nil && c.again(ctx, err) {
			continue
		}
		if err != nil || rec == nil {
			return err
		}
		n := len(rec.callees)
		c.mu.Lock()
		rec.callees = slices.DeleteFunc(rec.callees, func(e entry) bool { return del(e) || c.dead(e.member) })
		c.mu.Unlock()
		if len(rec.callees) == n {
			return nil
		}
		if len(rec.callees) == 0 {
			err = kv.Delete(ctx, key, jetstream.LastRevision(rev))
		} else {
			_, err = kv.Update(ctx, key, appendRecord(nil, rec), rev)
		}
		if !conflict(err) && !c.again(ctx, err) {
			return err
		}
	}
}

// get returns the record key without its dead entries, nil when there
// is none or none is left, and the revision to compare-and-set (0: none,
// Create).
func (c *calls) get(ctx context.Context, kv jetstream.KeyValue, key string) (*record, uint64, error) {
	rec, rev, err := c.getRaw(ctx, kv, key)
	if rec == nil || err != nil {
		return nil, rev, err
	}
	c.mu.Lock()
	rec.callees = slices.DeleteFunc(rec.callees, func(e entry) bool { return c.dead(e.member) })
	c.mu.Unlock()
	if len(rec.callees) == 0 {
		return nil, rev, nil
	}
	return rec, rev, nil
}

// getRaw reads the record key as it is. A record that does not decode
// (written by another version) is an error.
func (c *calls) getRaw(ctx context.Context, kv jetstream.KeyValue, key string) (*record, uint64, error) {
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	rec, err := decodeRecord(e.Value())
	return rec, e.Revision(), err
}

// put writes rec as key: Create when rev is 0, else compare-and-set on
// rev.
func (c *calls) put(ctx context.Context, kv jetstream.KeyValue, key string, rec *record, rev uint64) error {
	var err error
	if rev == 0 {
		_, err = kv.Create(ctx, key, appendRecord(nil, rec))
	} else {
		_, err = kv.Update(ctx, key, appendRecord(nil, rec), rev)
	}
	return err
}

// has reports whether session of member m is a callee of rec.
func (rec *record) has(m Member, session wamp.ID) bool {
	for _, e := range rec.callees {
		if e.member == m && e.session == session {
			return true
		}
	}
	return false
}

// apply mirrors one change of the table; a change no newer than what the
// dealers hold of its key (from an earlier watch) is skipped.
func (c *calls) apply(e jetstream.KeyValueEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.advance(e.Revision())
	key := e.Key()
	old := c.records[key]
	if old != nil && e.Revision() <= old.rev {
		return
	}
	if e.Operation() != jetstream.KeyValuePut {
		delete(c.records, key)
		if old != nil {
			c.show(&record{realm: old.realm, match: old.match, procedure: old.procedure})
		}
		c.checkOwned(key, nil)
		return
	}
	rec, err := decodeRecord(e.Value())
	if err != nil {
		c.log.Warn("cluster: a record of the reg table does not decode", "key", key, "err", err)
		return
	}
	rec.rev = e.Revision()
	c.records[key] = rec
	c.show(rec)
	c.checkOwned(key, rec)
}

// show hands rec to its realm's dealer, if the realm is here. c.mu must
// be held.
func (c *calls) show(rec *record) {
	if r := c.realms[rec.realm]; r != nil {
		r.link.SetRegistration(c.mirrored(rec))
	}
}

// advance notes that the dealers hold the table up to revision rev.
// c.mu must be held.
func (c *calls) advance(rev uint64) {
	if rev > c.applied {
		c.applied = rev
		close(c.synced)
		c.synced = make(chan struct{})
	}
}

// Sync waits until the dealers hold what the table held when it was
// called: read-your-writes for a CALL that found no registration.
func (r *callRealm) Sync() error {
	c := r.c
	ctx, cancel := context.WithTimeout(c.ctx, syncTimeout)
	defer cancel()
	kv, err := c.table()
	if err != nil {
		return err
	}
	st, err := kv.Status(ctx)
	if err != nil {
		return err
	}
	bs, ok := st.(*jetstream.KeyValueBucketStatus)
	if !ok {
		return errors.New("cluster: no stream state of the reg table")
	}
	last := bs.StreamInfo().State.LastSeq
	for {
		c.mu.Lock()
		applied, synced := c.applied, c.synced
		c.mu.Unlock()
		if applied >= last {
			return nil
		}
		select {
		case <-synced:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
