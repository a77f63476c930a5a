package loginguard

import (
	"context"
	"log/slog"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// The rate limit of the lines a client can make a router or proxy write
// by connecting again and again (docs/operations.md, "Logging"): at most
// PeerLogBurst lines of one kind per client address in each
// PeerLogWindow, then one line with the count held back; at most
// PeerLogAddresses addresses have a window open at a time, the others
// share one.
const (
	PeerLogWindow    = 10 * time.Second
	PeerLogBurst     = 5
	PeerLogAddresses = 1000
)

// PeerLimit is the rate limit per client address of the lines msg at
// level: when a window held some back, it logs "<msg>: lines held back"
// with their count. Flush it when its logger's owner stops.
func PeerLimit(log *slog.Logger, level slog.Level, msg string) *lograte.Keyed {
	return &lograte.Keyed{Interval: PeerLogWindow, Burst: PeerLogBurst, MaxKeys: PeerLogAddresses,
		OnHeld: func(addr string, n int) {
			log.Log(context.Background(), level, msg+": lines held back", "peer", addr, "count", n, "window", PeerLogWindow)
		}}
}

// PeerLogKey is whom a client's lines count against: its address as the
// login throttle counts it (an IPv6 network), else its remote address as
// it is (a Unix socket's path; "" in process).
func PeerLogKey(remote string) string {
	if k := AddrKey(remote); k != "" {
		return k
	}
	return remote
}

// Refusal is a join refused after HELLO, as the "join refused" line tells
// it. Never a secret: Reason is the refusal's own message, which the
// client gets too.
type Refusal struct {
	Peer        string   // the client's remote address
	Realm       string   // the realm the HELLO asked for
	AuthID      string   // the authid it asked for
	AuthMethod  string   // the method tried; "" when none applied
	AuthMethods any      // the methods offered, logged when AuthMethod is ""
	URI         wamp.URI // the ABORT reason
	Reason      string   // the ABORT message
}

// LogRefused logs r at warn, unless r.Peer is past its rate limit
// (PeerLimit "join refused").
func LogRefused(log *slog.Logger, limit *lograte.Keyed, r Refusal) {
	if !log.Enabled(context.Background(), slog.LevelWarn) || !limit.Allow(PeerLogKey(r.Peer)) {
		return
	}
	attrs := []slog.Attr{slog.String("peer", r.Peer), slog.String("realm", r.Realm), slog.String("authid", r.AuthID)}
	if r.AuthMethod != "" {
		attrs = append(attrs, slog.String("authmethod", r.AuthMethod))
	} else {
		attrs = append(attrs, slog.Any("authmethods", r.AuthMethods))
	}
	attrs = append(attrs, slog.String("error", string(r.URI)), slog.String("reason", r.Reason))
	log.LogAttrs(context.Background(), slog.LevelWarn, "join refused", attrs...)
}
