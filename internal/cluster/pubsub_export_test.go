package cluster

import "github.com/junction-wamp/junction/wamp"

// Interested returns the members whose interest in realm, as f's mirror
// has it, matches topic.
func Interested(f *Fabric, realm, topic wamp.URI) []Member {
	return f.events.interested(realm, topic, nil)
}

// InterestChanged returns a channel closed at the next change of f's
// mirror.
func InterestChanged(f *Fabric) <-chan struct{} {
	f.events.mu.RLock()
	defer f.events.mu.RUnlock()
	return f.events.changed
}

// Flushed returns a channel closed once f has written the interest asked
// so far into the table.
func Flushed(f *Fabric) <-chan struct{} { return f.events.w.flushed() }

// RetainedID returns the publication ID of topic's retained event in
// f's mirror of the ret table, 0 for none.
func RetainedID(f *Fabric, realm, topic wamp.URI) wamp.ID {
	f.events.retMu.Lock()
	defer f.events.retMu.Unlock()
	if r := f.events.retained[realm][topic].pub; r != nil {
		return r.ID
	}
	return 0
}
