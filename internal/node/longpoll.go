package node

import (
	"net/http"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/longpoll"
)

// longPollUnit is a long-poll service's handler, with what it was built
// from: a reload that builds its transport's paths anew keeps the handler
// of a service whose options and body bound did not change, so that its
// sessions carry on (a long-poll session lives in its handler; its
// client's next request goes to the new path tree).
type longPollUnit struct {
	path       string // the service's JSON path
	opts       config.LongPollOptions
	maxBody    int64
	h          *longpoll.Handler
	handedOver atomic.Bool // a reload's tree uses h now: this unit's shutdown leaves it be
}

// shutdown answers the held receives of h and holds no more, unless a
// newer tree took h over.
func (u *longPollUnit) shutdown() {
	if !u.handedOver.Load() {
		u.h.Shutdown()
	}
}

// buildLongPoll builds a "longpoll" service: WAMP over HTTP long-poll,
// sessions anonymous with role "anonymous" (Crossbar's long-poll has no
// "auth"). A request body is bounded by the transport's body buffer when
// that is smaller than longpoll's default; held receives are answered
// when the listener shuts down. A reload's build takes over the running
// handler of the same path when the service is unchanged.
func buildLongPoll(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.LongPollService)
	o := s.Options
	maxBody := int64(longpoll.DefaultMaxBodySize)
	if limit := env.bodies.Limit(); limit > 0 && limit < maxBody {
		maxBody = limit
	}
	u := &longPollUnit{path: path, opts: o, maxBody: maxBody}
	if running := env.b.owner.longPollAt(path); running != nil && running.opts == o && running.maxBody == maxBody {
		u.h = running.h
	} else {
		h, err := longpoll.NewHandler(longpoll.Options{
			Attacher:           clientGate(env.router, path, config.Auth{}, 0),
			RequestTimeout:     o.RequestTimeout,
			SessionTimeout:     o.SessionTimeout,
			QueueLimitBytes:    o.QueueLimitBytes,
			QueueLimitMessages: o.QueueLimitMessages,
			MaxBodySize:        maxBody,
			DebugTransportID:   o.DebugTransportID,
			Logger:             env.b.log.With("url", url),
		})
		if err != nil {
			return nil, fieldError(path, err)
		}
		u.h = h
	}
	env.b.node.longPolls = append(env.b.node.longPolls, u)
	env.listener.onShutdown = append(env.listener.onShutdown, u.shutdown)
	return u.h, nil
}

// longPollAt returns n's long-poll service at the JSON path, or nil (also
// for a nil n: a build that is not a reload's).
func (n *Node) longPollAt(path string) *longPollUnit {
	if n == nil {
		return nil
	}
	for _, u := range n.longPolls {
		if u.path == path {
			return u
		}
	}
	return nil
}

// handOverLongPolls marks the long-poll services of n under the JSON path
// paths (a transport's "paths") whose handler staged's tree took over,
// once that tree serves: the old tree's shutdown then leaves their
// sessions be.
func (n *Node) handOverLongPolls(paths string, staged *Node) {
	for _, u := range n.longPolls {
		if next := staged.longPollAt(u.path); underPaths(paths, u.path) && next != nil && next.h == u.h {
			u.handedOver.Store(true)
		}
	}
}
