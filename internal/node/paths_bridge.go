package node

import (
	"context"
	"net/http"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/bridge/httpauth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/internal/web"
	"github.com/junction-wamp/junction/wamp"
)

// buildCaller builds a "caller" service on an embedded session.
func buildCaller(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.CallerService)
	common, cerr := env.common(path, url, &s.BridgeService)
	access, aerr := env.access(path, url, &s.Access)
	h, err := bridge.NewCaller(env.sessionFor(path, &s.BridgeService, s.Auth != nil), bridge.CallerOptions{
		Common:       common,
		Signing:      env.b.signing(s.Signing),
		Access:       access,
		CallTimeout:  callTimeout(s.CallTimeout),
		CancelMode:   s.CancelMode,
		Heartbeat:    s.HeartbeatInterval, // the file's 0 is negative: none, as bridge's
		StreamLimits: bridge.StreamLimits{MaxStreams: s.MaxStreams, MaxStreamsPerIP: s.MaxStreamsPerIP},
	})
	if err == nil {
		env.addService(metrics.ServiceCaller, path, url, h)
	}
	return serviceResult(path, h, joinErrors(cerr, aerr), err)
}

// buildPublisher builds a "publisher" service on an embedded session.
func buildPublisher(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.PublisherService)
	common, cerr := env.common(path, url, &s.BridgeService)
	access, aerr := env.access(path, url, &s.Access)
	h, err := bridge.NewPublisher(env.sessionFor(path, &s.BridgeService, s.Auth != nil), bridge.PublisherOptions{
		Common:  common,
		Signing: env.b.signing(s.Signing),
		Access:  access,
	})
	if err == nil {
		env.addService(metrics.ServicePublisher, path, url, h)
	}
	return serviceResult(path, h, joinErrors(cerr, aerr), err)
}

// buildWebhook builds a "webhook" service on an embedded session.
func buildWebhook(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.WebhookService)
	common, cerr := env.common(path, url, &s.BridgeService)
	success, failure := s.SuccessResponse, s.ErrorResponse
	h, err := bridge.NewWebhook(env.session(path, &s.BridgeService), bridge.WebhookOptions{
		Common:          common,
		Topic:           s.Topic,
		SuccessResponse: &success,
		ErrorResponse:   &failure,
		ProviderSecret:  s.ProviderSecret,
		Provider:        s.Provider,
	})
	if err == nil {
		env.addService(metrics.ServiceWebhook, path, url, h)
	}
	return serviceResult(path, h, cerr, err)
}

// buildEventStream builds an "eventstream" service on an embedded
// session. Its streams end when the web transport shuts down (or its
// paths are replaced by a reload), before the server waits for its
// requests to finish.
func buildEventStream(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.EventStreamService)
	common, cerr := env.common(path, url, &s.BridgeService)
	var ident bridge.Identifier
	var aerr error
	if s.Auth != nil {
		var r *httpauth.Resolver
		if r, aerr = env.identity(path, url, s.Auth, s.AllowQueryToken); aerr == nil {
			ident = r
		}
	}
	h, err := bridge.NewEventStream(env.sessionFor(path, &s.BridgeService, s.Auth != nil), bridge.EventStreamOptions{
		RequireIP:    common.RequireIP,
		RequireTLS:   common.RequireTLS,
		Heartbeat:    s.HeartbeatInterval, // the file's 0 is negative: none, as bridge's
		QueueEvents:  s.QueueMaxEvents,
		QueueBytes:   s.QueueMaxBytes,
		StreamLimits: bridge.StreamLimits{MaxStreams: s.MaxStreams, MaxStreamsPerIP: s.MaxStreamsPerIP},
		Identity:     ident,
		Debug:        common.Debug,
		Logger:       common.Logger,
	})
	if err == nil {
		env.addEventStream(path, url, h)
		env.listener.onShutdown = append(env.listener.onShutdown, h.Shutdown)
	}
	return serviceResult(path, h, joinErrors(cerr, aerr), err)
}

// serviceResult is the result of a bridge service's builder: h, or the
// problems of its common options (already at their paths) and of its
// constructor (at the service's path).
func serviceResult(path string, h http.Handler, commonErr, err error) (http.Handler, error) {
	if err != nil {
		err = fieldError(path, err)
	}
	if err := joinErrors(commonErr, err); err != nil {
		return nil, err
	}
	return h, nil
}

// buildReverseProxy builds a "reverseproxy" service; it is shut down
// when the node stops (see proxyUnit).
func buildReverseProxy(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.ReverseProxyService)
	p, err := web.NewReverseProxy(web.ReverseProxyOptions{
		Host:           s.Host,
		Port:           s.Port,
		Path:           s.Path,
		ForwardedPort:  s.ForwardedPort,
		ForwardedProto: s.ForwardedProto,
		Logger:         env.b.log.With("url", url),
	})
	if err != nil {
		return nil, fieldError(path, err)
	}
	env.addProxy(path, p)
	return env.meterReverseProxy(path, url, p), nil
}

// addProxy registers a proxy path service of the listener being built:
// the node shuts it down (see proxyUnit), and the listener's default
// connection cap counts a descriptor to the upstream for each connection.
func (env *pathEnv) addProxy(path string, p web.Proxy) {
	env.b.node.proxies = append(env.b.node.proxies, proxyUnit{path, p})
	env.listener.proxies = true
}

// proxyUnit is a proxy path service, stopped with the node after the
// listeners: its Shutdown ends the connections passing through it, which
// the web server's own shutdown leaves alone (WebSockets relayed or
// upgraded), and closes its idle upstream connections.
type proxyUnit struct {
	path  string
	proxy web.Proxy
}

// shutdown shuts the proxy down within ctx; an error names its path.
func (u proxyUnit) shutdown(ctx context.Context) error {
	if err := u.proxy.Shutdown(ctx); err != nil {
		return pathError(u.path, err)
	}
	return nil
}

// common translates the options every bridge service has. The body limit
// maps one to one: config's default is bridge's 0 or the explicit value,
// and config.NoPostBodyLimit is negative, bridge's unlimited. With an
// error (a require_ip entry that does not parse, at its path) the options
// are still returned, without that rule, so that the rest of the service
// can be checked.
func (env *pathEnv) common(path, url string, s *config.BridgeService) (bridge.Common, error) {
	ips, err := bridge.ParseIPRules(s.RequireIP)
	if err != nil {
		err = relError(path+".options", err)
	}
	return bridge.Common{
		PostBodyLimit: s.PostBodyLimit,
		RequireIP:     ips,
		RequireTLS:    s.RequireTLS,
		Buffer:        env.bodies,
		Debug:         s.Debug,
		Logger:        env.b.log.With("url", url),
	}, err
}

// session makes the embedded session of a bridge service: joined to its
// realm as its role over an in-memory pair to the worker's router (or,
// in a proxy worker, through the proxy to its backend router, joining in
// the background), started before the listeners and stopped after them.
func (env *pathEnv) session(path string, s *config.BridgeService) *bridgeSession {
	return env.sessionFor(path, s, false)
}

// sessionFor is session; with actsFor, its gate lets it act for the
// requests' identities (options.auth).
func (env *pathEnv) sessionFor(path string, s *config.BridgeService, actsFor bool) *bridgeSession {
	gate := env.router.internal(s.Role)
	if actsFor && env.router.relay == nil {
		gate = env.router.actsFor(s.Role)
	}
	bs := &bridgeSession{
		path:       path,
		dial:       parkingDialer(gate),
		cfg:        client.Config{Realm: wamp.URI(s.Realm), Logger: env.b.log.With("path", path)},
		background: env.router.relay != nil,
	}
	env.b.node.sessions = append(env.b.node.sessions, bs)
	return bs
}

// signing translates a caller's or publisher's signing options; services
// with the same key share one nonce cache, so that a request signed for
// one cannot be replayed on another, and in a cluster the cluster's
// replay table, so that it cannot be replayed on another node.
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
	out.Shared = b.sharedNonces()
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
