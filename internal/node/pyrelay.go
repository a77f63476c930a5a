package node

import (
	"sync"

	"github.com/junction-wamp/junction/wamp"
)

// relay passes messages both ways between a Python container component's
// session (inner: the runner's socket) and its router (outer: the
// component's configured transport, dialled by the node) until either
// side ends, then closes both. Messages are decoded and encoded again, so
// the two sides may use different serializers.
//
// It reports whether the router's side ended first without having sent
// GOODBYE or ABORT: the connection to the router was lost, which a
// container counts as the component failing (Crossbar's unclean close).
func relay(inner, outer wamp.Peer) (lost bool) {
	var (
		first sync.Once
		wg    sync.WaitGroup
	)
	wg.Go(func() {
		said := pump(outer, inner)
		first.Do(func() { lost = !said })
		inner.Close()
	})
	pump(inner, outer)
	first.Do(func() {}) // the component's side ended first
	outer.Close()
	wg.Wait()
	return lost
}

// pump sends what from receives to to, until either fails. It reports
// whether a GOODBYE or an ABORT went through: the session ended in words.
func pump(from, to wamp.Peer) (said bool) {
	for {
		m, err := from.Recv()
		if err != nil {
			return said
		}
		switch m.(type) {
		case *wamp.Goodbye, *wamp.Abort:
			said = true
		}
		if to.Send(m) != nil {
			return said
		}
	}
}
