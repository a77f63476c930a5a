package node

import (
	"net/http"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/longpoll"
)

// buildLongPoll builds a "longpoll" service: WAMP over HTTP long-poll,
// sessions anonymous with role "anonymous" (Crossbar's long-poll has no
// "auth"). A request body is bounded by the transport's body buffer when
// that is smaller than longpoll's default; held receives are answered
// when the listener shuts down.
func buildLongPoll(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.LongPollService)
	o := s.Options
	maxBody := int64(longpoll.DefaultMaxBodySize)
	if limit := env.bodies.Limit(); limit > 0 && limit < maxBody {
		maxBody = limit
	}
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
	env.listener.onShutdown = append(env.listener.onShutdown, h.Shutdown)
	return h, nil
}
