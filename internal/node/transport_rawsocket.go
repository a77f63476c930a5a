package node

import (
	"context"
	"crypto/tls"
	"errors"
	"net"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/rawsocket"
)

// streamServer adapts a server of stream connections (RawSocket, MQTT) to
// server, with the endpoint's TLS.
type streamServer struct {
	srv interface {
		Serve(net.Listener) error
		Close() error
	}
	tls    *tls.Config // nil for plain TCP or Unix
	closed error       // what srv's Serve returns after Close: a clean end
}

// Serve serves l, with TLS handshakes when configured.
func (s streamServer) Serve(l net.Listener) error {
	if s.tls != nil {
		l = tls.NewListener(l, s.tls)
	}
	err := s.srv.Serve(l)
	if errors.Is(err, s.closed) {
		return nil
	}
	return err
}

// shutdown closes the listener only: the sessions stay open until the
// router says GOODBYE to them.
func (streamServer) shutdown(_ context.Context, l net.Listener) error {
	if err := l.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}

func (s streamServer) close() error { return s.srv.Close() }

// rawSocketTransport builds a "rawsocket" transport on a TCP or Unix
// endpoint.
func (b *builder) rawSocketTransport(path string, ru *routerUnit, t *config.RawSocketTransport) (*listenerUnit, error) {
	var errs config.Errors
	spec, err := b.listenSpecOf(t.Endpoint)
	if err != nil {
		errs = append(errs, fieldError(path+".endpoint", err))
	}
	srv := streamServer{closed: rawsocket.ErrServerClosed}
	if t.Endpoint.TLS != nil {
		if srv.tls, err = b.serverTLS(t.Endpoint.TLS).Load(); err != nil {
			errs = append(errs, fieldError(path+".endpoint.tls", err))
		}
	}
	srv.srv, err = rawsocket.NewServer(rawsocket.Options{
		Attacher:       clientGate(ru, path, t.Auth, t.JoinTimeout),
		Serializers:    t.Serializers,
		MaxMessageSize: t.MaxMessageSize,
		Logger:         b.log.With("transport", path),
	})
	if err != nil {
		errs = append(errs, fieldError(path, err))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	logEndpoint(b.log, path, t.Endpoint)
	l := &listenerUnit{path: path, kind: "rawsocket", spec: spec, srv: srv, limits: b.limitsOf(path, t.Endpoint)}
	l.services = append(l.services, serviceLog{"rawsocket service", []any{"serializers", t.Serializers}})
	return l, nil
}
