package router

import (
	"context"
	"errors"
	"log/slog"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/loginguard"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// peerLogs are the router's rate limits per client address
// (loginguard.PeerLimit).
type peerLogs struct {
	refused    *lograte.Keyed // "join refused" (warn)
	violations *lograte.Keyed // "protocol violation" (info)
}

func newPeerLogs(log *slog.Logger) *peerLogs {
	return &peerLogs{
		refused:    loginguard.PeerLimit(log, slog.LevelWarn, "join refused"),
		violations: loginguard.PeerLimit(log, slog.LevelInfo, "protocol violation"),
	}
}

// flush reports what the limits hold back now (the router stops).
func (p *peerLogs) flush() {
	p.refused.Flush()
	p.violations.Flush()
}

// logRefused logs the refusal of a join at warn, unless the client's
// address is past its rate limit: the client's address, the realm and
// authid it asked for, the authentication method tried (or those it
// offered, when none applied), the error URI and the reason. Never a
// secret: the reason is the refusal's own message, which the client gets
// too. A handshake the client ended itself, or a protocol violation (see
// logViolation), is no refusal.
func (s *session) logRefused(h *wamp.Hello, err error) {
	var pe *protocolError
	if errors.Is(err, errQuiet) || errors.As(err, &pe) {
		return
	}
	authid, _ := h.Details[wamp.KeyAuthID].(string)
	methods, _ := option(h.Details, wamp.KeyAuthMethods)
	uri, reason := refusal(err)
	loginguard.LogRefused(s.logger(), s.router.peerLogs.refused, loginguard.Refusal{Peer: s.peer.Info().RemoteAddr,
		Realm: string(h.Realm), AuthID: authid, AuthMethod: s.ident.AuthMethod, AuthMethods: methods, URI: uri, Reason: reason})
}

// refusal is the ABORT reason and message a handshake error gives (see
// abortWith).
func refusal(err error) (wamp.URI, string) {
	var re *wamp.RequestError
	if !errors.As(err, &re) {
		return wamp.ErrAuthenticationFailed, err.Error()
	}
	if msg, ok := abortDetails(re)[wamp.KeyMessage].(string); ok {
		return re.URI, msg
	}
	return re.URI, ""
}

// logViolation logs a protocol violation at info, unless the client's
// address is past its rate limit: what the client did wrong.
func (s *session) logViolation(what string) {
	if !s.router.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	remote := s.peer.Info().RemoteAddr
	if !s.router.peerLogs.violations.Allow(loginguard.PeerLogKey(remote)) {
		return
	}
	s.logger().LogAttrs(context.Background(), slog.LevelInfo, "protocol violation",
		slog.String("peer", remote), slog.String("what", what))
}

// logSession logs a session's join or leave at debug (msg says which),
// with who it is and how it is connected.
func (s *session) logSession(msg string) {
	if !s.router.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	p := s.peer.Info()
	s.logger().LogAttrs(context.Background(), slog.LevelDebug, msg,
		slog.String("authid", s.ident.AuthID), slog.String("authrole", s.ident.AuthRole),
		slog.String("authmethod", s.ident.AuthMethod), slog.String("transport", p.Transport),
		slog.String("peer", p.RemoteAddr))
}

// authMethodTried notes the method the gate picked for the handshake, for
// logRefused; the identity the session joins with replaces it.
func (s *session) authMethodTried(a auth.Authenticator) {
	if a != nil {
		s.ident.AuthMethod = a.Method()
	}
}
