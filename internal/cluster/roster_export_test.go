package cluster

import "context"

// OnReap sets a hook that every node of the test process calls as it
// starts reaping a member, once it holds the member's lock: true stops
// the reaping there, as if the reaper died. nil removes it.
func OnReap(f func(reaper, lost Member) bool) {
	if f == nil {
		reapHook.Store(nil)
		return
	}
	reapHook.Store(&f)
}

// Reaped returns how many losses and leaves of members f has handled
// (reaped, or left to the member that took the lock).
func Reaped(f *Fabric) uint64 { return f.sessions.reaped.Load() }

// RosterFlushed reports whether f has written every change of its
// roster into the table.
func RosterFlushed(f *Fabric) bool {
	ro := f.roster
	ro.mu.Lock()
	dirty := len(ro.dirty)
	ro.mu.Unlock()
	select {
	case <-ro.w.flushed():
		return dirty == 0
	default:
		return false
	}
}

// SessionRecords returns how many roster and testament records of member
// m's sessions f's sess table holds.
func SessionRecords(f *Fabric, m Member) (int, error) {
	s := f.sessions
	ctx, cancel := context.WithTimeout(context.Background(), reapTimeout)
	defer cancel()
	all, err := s.readAll(ctx, s.table(), "*."+memberKey(m)+".>")
	return len(all), err
}
