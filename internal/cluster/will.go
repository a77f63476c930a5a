package cluster

import (
	"context"
	"encoding/binary"
	"strconv"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// Testaments across the cluster: the table sess (meta.go) holds
// the testaments of every node's sessions, one key per session
// (w.<member>.<realm and session>, hashed), written on the session's
// goroutine as they change and deleted once the session's own node
// published them. When a member is lost, the live node that creates the
// key reap.<member> first (the lock of that member) publishes its
// sessions' leaving from their roster keys and testaments (reap.go)
// and deletes them; when the reaper is itself lost, or leaves, before it
// finished, another member takes the lock over.

// will is one session's testaments as the table keeps them.
type will struct {
	realm   wamp.URI
	session wamp.ID
	ts      []router.Testament
}

func memberKey(m Member) string { return hashKey(m.String()) }

// sessionKey is the key of a session of member m in the sess table:
// kind (w: its testaments, r: its roster entry), then m, then the
// session, hashed.
func sessionKey(kind string, m Member, realm wamp.URI, session wamp.ID) string {
	return kind + "." + memberKey(m) + "." + hashKey(string(realm), strconv.FormatUint(uint64(session), 10))
}

// Testaments writes the testaments of this node's session to the sess
// table, or deletes its key when there are none (router.TestamentFabric),
// but not while this node is fenced: it publishes them to its own
// subscribers only, and the members that reap it to theirs.
func (r *realmSessions) Testaments(session wamp.ID, ts []router.Testament) error {
	s := r.s
	s.mu.Lock()
	kv := s.will
	s.mu.Unlock()
	if kv == nil {
		return errNotStarted
	}
	if len(ts) == 0 && s.node.Fenced() {
		return nil // the members that reap this node publish them to theirs
	}
	key := sessionKey("w", s.node.Self(), r.name, session)
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
