package cluster

import (
	"encoding/binary"

	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/wamp"
)

// The roster entry's wire format, versioned by its first byte:
//
//	1 | realm | session | authid | authrole | count | subscriptions | count | registrations
//
// each subscription or registration: id | uri | match.
func appendRoster(b []byte, e *rosterEntry) []byte {
	b = append(b, wireVersion)
	b = appendString(b, string(e.realm))
	b = binary.AppendUvarint(b, uint64(e.session))
	b = appendString(b, e.authID)
	b = appendString(b, e.authRole)
	for _, l := range [][]router.RosterItem{e.subs, e.regs} {
		b = binary.AppendUvarint(b, uint64(len(l)))
		for _, it := range l {
			b = binary.AppendUvarint(b, uint64(it.ID))
			b = appendString(b, string(it.URI))
			b = appendString(b, it.Match)
		}
	}
	return b
}

// decodeRoster decodes b, which it does not retain.
func decodeRoster(b []byte) (*rosterEntry, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return nil, errWire
	}
	e := &rosterEntry{realm: wamp.URI(r.string()), session: r.id(), authID: r.string(), authRole: r.string()}
	e.subs = r.rosterItems()
	e.regs = r.rosterItems()
	if r.err != nil || len(r.b) > 0 {
		return nil, errWire
	}
	return e, nil
}

func (r *wireReader) rosterItems() []router.RosterItem {
	n := r.count()
	if n == 0 {
		return nil
	}
	l := make([]router.RosterItem, 0, n)
	for range n {
		l = append(l, router.RosterItem{ID: r.id(), URI: wamp.URI(r.string()), Match: r.string()})
	}
	return l
}

// reapLock is the value of the key reap.<member> of the sess table: the
// member that reaps, and the member it reaps (and whether that member
// was lost, its sessions' leaving to publish, or left, its keys only to
// delete), so that another member takes the reaping over when the
// reaper itself is lost or leaves before it finishes.
type reapLock struct {
	reaper, member Member
	publish        bool
}

// The reap lock's wire format: 1 | publish (0 or 1) | reaper | member,
// each member name | epoch (8 bytes).
func appendReapLock(b []byte, l reapLock) []byte {
	flag := byte(0)
	if l.publish {
		flag = 1
	}
	b = append(b, wireVersion, flag)
	for _, m := range []Member{l.reaper, l.member} {
		b = appendString(b, m.Name)
		b = binary.BigEndian.AppendUint64(b, m.Epoch)
	}
	return b
}

func decodeReapLock(b []byte) (reapLock, error) {
	r := wireReader{b: b}
	if r.byte() != wireVersion {
		return reapLock{}, errWire
	}
	flag := r.byte()
	l := reapLock{publish: flag == 1}
	l.reaper = Member{Name: r.string(), Epoch: r.uint64()}
	l.member = Member{Name: r.string(), Epoch: r.uint64()}
	if r.err != nil || len(r.b) > 0 || flag > 1 {
		return reapLock{}, errWire
	}
	return l, nil
}
