package cluster

import (
	"context"
	"encoding/binary"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// Testaments across the cluster: the table sess (meta.go) holds
// the testaments of every node's sessions, one key per session
// (w.<member>.<realm and session>, hashed), written on the session's
// goroutine as they change and deleted once the session's own node
// published them. When a member is lost, the live node that creates the
// key reap.<member> first (the lock of that member) publishes its
// sessions' testaments and deletes them.

// reapTimeout bounds the reaping of one lost member.
const reapTimeout = 30 * time.Second

// will is one session's testaments as the table keeps them.
type will struct {
	realm   wamp.URI
	session wamp.ID
	ts      []router.Testament
}

func memberKey(m Member) string { return hashKey(m.String()) }

func willKey(m Member, realm wamp.URI, session wamp.ID) string {
	return "w." + memberKey(m) + "." + hashKey(string(realm), strconv.FormatUint(uint64(session), 10))
}

// Testaments writes the testaments of this node's session to the sess
// table, or deletes its key when there are none (router.TestamentFabric).
func (r *realmSessions) Testaments(session wamp.ID, ts []router.Testament) error {
	s := r.s
	s.mu.Lock()
	kv := s.will
	s.mu.Unlock()
	if kv == nil {
		return errNotStarted
	}
	key := willKey(s.node.Self(), r.name, session)
	var body []byte
	if len(ts) > 0 {
		var err error
		if body, err = appendWill(nil, will{realm: r.name, session: session, ts: ts}); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), tableTimeout)
	defer cancel()
	for {
		var err error
		if body == nil {
			err = kv.Delete(ctx, key)
		} else {
			_, err = kv.Put(ctx, key, body)
		}
		if err == nil || !s.again(ctx, err) {
			return err
		}
	}
}

// membership reaps the members lost, unless this node is fenced (then
// every other member looks lost to it, and it may not act for them).
func (s *sessions) membership(ev MemberEvent) {
	if ev.Up || ev.Left || ev.Member.Name == s.node.Self().Name || s.node.Fenced() {
		return // a member that left published its sessions' testaments as they ended
	}
	s.wg.Go(func() { s.reap(ev.Member) })
}

// reap publishes the testaments of lost member m's sessions, when this
// node takes m's lock first.
func (s *sessions) reap(m Member) {
	s.mu.Lock()
	kv := s.will
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, reapTimeout)
	defer cancel()
	lock := "reap." + memberKey(m)
	for {
		_, err := kv.Create(ctx, lock, []byte(s.node.Self().String()))
		if err == nil {
			break
		}
		if conflict(err) {
			return // another node reaps m
		}
		if !s.again(ctx, err) {
			if s.ctx.Err() != nil {
				return // this node stops: the members that stay reap m
			}
			s.log.Error("cluster: testaments of a lost member not published: its lock cannot be taken", "member", m.String(), "err", err)
			return
		}
	}
	n, err := s.publishWills(ctx, kv, m)
	if err != nil && s.ctx.Err() != nil {
		s.log.Warn("cluster: testaments of a lost member not all published: this node stops; the lock stays until the table's cleanup", "member", m.String(), "published", n)
		return
	}
	if err != nil {
		s.log.Error("cluster: testaments of a lost member not all published", "member", m.String(), "published", n, "err", err)
		return
	}
	kv.Delete(ctx, lock)
	if n > 0 {
		s.log.Info("cluster: testaments of a lost member published", "member", m.String(), "sessions", n)
	}
}

// publishWills publishes and deletes the testaments member m's sessions
// left in the table, and returns how many sessions had some.
func (s *sessions) publishWills(ctx context.Context, kv jetstream.KeyValue, m Member) (int, error) {
	w, err := kv.Watch(ctx, "w."+memberKey(m)+".>", jetstream.IgnoreDeletes())
	if err != nil {
		return 0, err
	}
	defer w.Stop()
	var entries []jetstream.KeyValueEntry
	for e := range w.Updates() {
		if e == nil {
			break // the values there were are all read
		}
		entries = append(entries, e)
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	n := 0
	for _, e := range entries {
		wl, err := decodeWill(e.Value())
		if err != nil {
			s.log.Error("cluster: malformed testaments in the sess table", "key", e.Key(), "err", err)
		} else if l := s.realm(wl.realm); l != nil {
			l.PublishTestaments(wl.ts)
			n++
		}
		kv.Delete(ctx, e.Key())
	}
	return n, nil
}

// realm returns the link of realm name, or nil.
func (s *sessions) realm(name wamp.URI) *router.RealmLink {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.realms[name]
}

// The will's wire format, versioned by its first byte:
//
//	1 | realm | session | count | testaments: topic | options | payload
//
// options are a MessagePack dictionary (empty for none), a payload as in
// a call (rpc_wire.go).
func appendWill(b []byte, w will) ([]byte, error) {
	b = append(b, wireVersion)
	b = appendString(b, string(w.realm))
	b = binary.AppendUvarint(b, uint64(w.session))
	b = binary.AppendUvarint(b, uint64(len(w.ts)))
	for _, t := range w.ts {
		b = appendString(b, string(t.Topic))
		var err error
		if b, err = appendDict(b, t.Options); err != nil {
			return b, err
		}
		if b, err = appendPayload(b, t.Payload); err != nil {
			return b, err
		}
	}
	return b, nil
}

// decodeWill decodes b, which it does not retain.
func decodeWill(b []byte) (will, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return will{}, errWire
	}
	w := will{realm: wamp.URI(r.string()), session: r.id()}
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return will{}, errWire
	}
	for range n {
		t := router.Testament{Topic: wamp.URI(r.string()), Options: r.dict()}
		t.Payload.Args, t.Payload.Kwargs, t.Payload.Raw = r.payload()
		if len(t.Options) == 0 {
			t.Options = nil
		}
		w.ts = append(w.ts, t)
	}
	if r.err != nil || len(r.b) > 0 {
		return will{}, errWire
	}
	return w, nil
}
