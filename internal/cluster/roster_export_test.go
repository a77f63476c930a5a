package cluster

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

// RosterFlushed returns a channel closed once f has written the roster
// changes asked so far into the table.
func RosterFlushed(f *Fabric) <-chan struct{} { return f.roster.w.flushed() }
