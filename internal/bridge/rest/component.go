package rest

import (
	"context"
	"log/slog"

	"github.com/junction-wamp/junction/client"
)

// Component is a bridge component running on a reconnecting client. Start
// registers or subscribes (bounded by ctx; the client renews them after
// each reconnect); Stop undoes that, stops the component's goroutines and
// waits for work in flight, which ctx's end cancels. A component is started
// at most once.
type Component interface {
	Start(ctx context.Context, c *client.Client) error
	Stop(ctx context.Context) error
}

var (
	_ Component = (*Callee)(nil)
	_ Component = (*Subscriber)(nil)
)

func loggerOr(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
