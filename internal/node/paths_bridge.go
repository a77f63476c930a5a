package node

import (
	"fmt"
	"net/http"
	"time"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/wamp"
	"github.com/junction-wamp/junction/internal/web"
)

// buildCaller builds a "caller" service on an embedded session.
func buildCaller(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.CallerService)
	common, err := env.common(path, url, &s.BridgeService)
	if err != nil {
		return nil, err
	}
	h, err := bridge.NewCaller(env.session(path, &s.BridgeService), bridge.CallerOptions{
		Common:      common,
		Signing:     env.b.signing(s.Signing),
		CallTimeout: callTimeout(s.CallTimeout),
	})
	if err != nil {
		return nil, pathError(path, err)
	}
	return h, nil
}

// buildPublisher builds a "publisher" service on an embedded session.
func buildPublisher(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.PublisherService)
	common, err := env.common(path, url, &s.BridgeService)
	if err != nil {
		return nil, err
	}
	h, err := bridge.NewPublisher(env.session(path, &s.BridgeService), bridge.PublisherOptions{
		Common:  common,
		Signing: env.b.signing(s.Signing),
	})
	if err != nil {
		return nil, pathError(path, err)
	}
	return h, nil
}

// buildWebhook builds a "webhook" service on an embedded session.
func buildWebhook(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.WebhookService)
	common, err := env.common(path, url, &s.BridgeService)
	if err != nil {
		return nil, err
	}
	success, failure := s.SuccessResponse, s.ErrorResponse
	h, err := bridge.NewWebhook(env.session(path, &s.BridgeService), bridge.WebhookOptions{
		Common:          common,
		Topic:           s.Topic,
		SuccessResponse: &success,
		ErrorResponse:   &failure,
		ProviderSecret:  s.ProviderSecret,
		Provider:        s.Provider,
	})
	if err != nil {
		return nil, pathError(path, err)
	}
	return h, nil
}

// buildReverseProxy builds a "reverseproxy" service; its idle upstream
// connections are closed when the node stops.
func buildReverseProxy(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.ReverseProxyService)
	h, err := web.ReverseProxy(web.ReverseProxyOptions{
		Host:           s.Host,
		Port:           s.Port,
		Path:           s.Path,
		ForwardedPort:  s.ForwardedPort,
		ForwardedProto: s.ForwardedProto,
		Logger:         env.b.log.With("service", url),
	})
	if err != nil {
		return nil, pathError(path, err)
	}
	if c, ok := h.(interface{ CloseIdleConnections() }); ok {
		env.b.node.idlers = append(env.b.node.idlers, c)
	}
	return h, nil
}

// common translates the options every bridge service has. The body limit
// maps one to one: config's default is bridge's 0 or the explicit value,
// and config.NoPostBodyLimit is negative, bridge's unlimited.
func (env *pathEnv) common(path, url string, s *config.BridgeService) (bridge.Common, error) {
	ips, err := bridge.ParseIPRules(s.RequireIP)
	if err != nil {
		return bridge.Common{}, fmt.Errorf("%s.options.%w", path, err)
	}
	return bridge.Common{
		PostBodyLimit: s.PostBodyLimit,
		RequireIP:     ips,
		RequireTLS:    s.RequireTLS,
		Debug:         s.Debug,
		Logger:        env.b.log.With("service", url),
	}, nil
}

// session makes the embedded session of a bridge service: joined to its
// realm as its role over an in-memory pair to the worker's router, started
// before the listeners and stopped after them.
func (env *pathEnv) session(path string, s *config.BridgeService) *bridgeSession {
	bs := &bridgeSession{
		path: path,
		dial: localDialer(env.router.router.Gate(anonymousAs(s.Role))),
		cfg:  client.Config{Realm: wamp.URI(s.Realm), Logger: env.b.log.With("service", path)},
	}
	env.b.node.sessions = append(env.b.node.sessions, bs)
	return bs
}

// signing translates a caller's or publisher's signing options; services
// with the same key share one nonce cache, so that a request signed for
// one cannot be replayed on another.
func (b *builder) signing(s config.Signing) bridge.Signing {
	out := bridge.Signing{Key: s.Key, Secret: s.Secret, TimestampDeltaLimit: s.TimestampDeltaLimit}
	if s.Secret == "" {
		return out
	}
	if b.nonces == nil {
		b.nonces = map[string]*bridge.NonceCache{}
	}
	if b.nonces[s.Key] == nil {
		b.nonces[s.Key] = bridge.NewNonceCache(0)
	}
	out.Nonces = b.nonces[s.Key]
	return out
}

// callTimeout maps a caller's "call_timeout": negative (the file's 0) is
// none.
func callTimeout(d time.Duration) time.Duration {
	if d < 0 {
		return bridge.NoTimeout
	}
	return d
}
