package router

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/internal/wamp"
)

// The rate limit of the lines a client can make the router write by
// connecting again and again (docs/operations.md, "Logging"): at most
// peerLogBurst "join refused" lines, and as many "protocol violation"
// lines, per client address in each peerLogWindow, then one line with the
// count held back; at most peerLogAddresses addresses have a window open
// at a time, the others share one.
const (
	peerLogWindow    = 10 * time.Second
	peerLogBurst     = 5
	peerLogAddresses = 1000
)

// peerLogs are the router's rate limits per client address.
type peerLogs struct {
	refused    lograte.Keyed // "join refused" (warn)
	violations lograte.Keyed // "protocol violation" (info)
}

func newPeerLogs(log *slog.Logger) *peerLogs {
	held := func(level slog.Level, msg string) func(string, int) {
		return func(addr string, n int) {
			log.Log(context.Background(), level, msg, "peer", addr, "count", n, "window", peerLogWindow)
		}
	}
	return &peerLogs{
		refused: lograte.Keyed{Interval: peerLogWindow, Burst: peerLogBurst, MaxKeys: peerLogAddresses,
			OnHeld: held(slog.LevelWarn, "join refused: lines held back")},
		violations: lograte.Keyed{Interval: peerLogWindow, Burst: peerLogBurst, MaxKeys: peerLogAddresses,
			OnHeld: held(slog.LevelInfo, "protocol violation: lines held back")},
	}
}

// flush reports what the limits hold back now (the router stops).
func (p *peerLogs) flush() {
	p.refused.Flush()
	p.violations.Flush()
}

// peerLogKey is whom a session's lines count against: its client's
// address as the login throttle counts it (an IPv6 network), else its
// remote address as it is (a Unix socket's path; "" in process).
func peerLogKey(remote string) string {
	if k := addrKey(remote); k != "" {
		return k
	}
	return remote
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
	if errors.Is(err, errQuiet) || errors.As(err, &pe) || !s.log.Enabled(context.Background(), slog.LevelWarn) {
		return
	}
	remote := s.peer.Info().RemoteAddr
	if !s.router.peerLogs.refused.Allow(peerLogKey(remote)) {
		return
	}
	authid, _ := h.Details[wamp.KeyAuthID].(string)
	attrs := []slog.Attr{slog.String("peer", remote), slog.String("realm", string(h.Realm)), slog.String("authid", authid)}
	if s.ident.AuthMethod != "" {
		attrs = append(attrs, slog.String("authmethod", s.ident.AuthMethod))
	} else {
		methods, _ := option(h.Details, wamp.KeyAuthMethods)
		attrs = append(attrs, slog.Any("authmethods", methods))
	}
	uri, reason := refusal(err)
	attrs = append(attrs, slog.String("error", string(uri)), slog.String("reason", reason))
	s.log.LogAttrs(context.Background(), slog.LevelWarn, "join refused", attrs...)
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
	if !s.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	remote := s.peer.Info().RemoteAddr
	if !s.router.peerLogs.violations.Allow(peerLogKey(remote)) {
		return
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, "protocol violation",
		slog.String("peer", remote), slog.String("what", what))
}

// logSession logs a session's join or leave at debug (msg says which),
// with who it is and how it is connected.
func (s *session) logSession(msg string) {
	if !s.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	p := s.peer.Info()
	s.log.LogAttrs(context.Background(), slog.LevelDebug, msg,
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
