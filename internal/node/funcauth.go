package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/junction-wamp/junction/internal/auth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/pyrunner"
	"github.com/junction-wamp/junction/wamp"
)

// Function authenticators ("type": "function") are Python factories that
// a router worker's Python runner imports and calls at start, before the
// listeners open; the functions they return are called through the
// runner's control channel, each as an auth.AuthenticateFunc, so that the
// auth package treats them as dynamic authenticators.

// functionAuths are the function authenticators of one router worker.
// The builder adds them; make runs once, in the worker's start, before any
// session logs in; the AuthenticateFuncs are then called concurrently.
type functionAuths struct {
	log   *slog.Logger // with "worker"
	made  []*functionAuth
	byKey map[string]*functionAuth // by factory and config: each made once
	ch    atomic.Pointer[pyrunner.Channel]
}

// functionAuth is one factory call: the first method (at path) that
// configured it.
type functionAuth struct {
	path string // "workers[0].transports[0].auth.ticket"
	cfg  *config.FunctionAuth
}

func newFunctionAuths(log *slog.Logger) *functionAuths {
	return &functionAuths{log: log, byKey: map[string]*functionAuth{}}
}

// empty reports whether the worker has no function authenticator.
func (fa *functionAuths) empty() bool { return fa == nil || len(fa.made) == 0 }

// add records the function authenticator of the method at path, and
// returns the function that asks it. Methods with the same factory and
// config share one authenticator (Crossbar makes one per factory name
// and worker).
func (fa *functionAuths) add(path string, fn *config.FunctionAuth) auth.AuthenticateFunc {
	cfgJSON, _ := json.Marshal(fn.Config) // decoded from JSON: it encodes
	key := fn.Create + "\x00" + string(cfgJSON)
	f := fa.byKey[key]
	if f == nil {
		f = &functionAuth{path: path, cfg: fn}
		fa.byKey[key] = f
		fa.made = append(fa.made, f)
	}
	return func(ctx context.Context, realm wamp.URI, authid string, details wamp.Dict) (any, error) {
		return fa.authenticate(ctx, f, path, realm, authid, details)
	}
}

// make makes every function authenticator in ch's runner, in config
// order; python names the interpreter in errors. A factory that does not
// import, raises or returns no function fails it, at the JSON path of its
// "create".
func (fa *functionAuths) make(ctx context.Context, ch *pyrunner.Channel, python string) error {
	for _, f := range fa.made {
		err := ch.NewAuthenticator(ctx, pyrunner.Authenticator{ID: f.path, Create: f.cfg.Create, Config: f.cfg.Config})
		if err != nil {
			var se *pyrunner.StartError
			if errors.As(err, &se) && se.Traceback != "" {
				fa.log.Error("function authenticator failed to start", "auth", f.path, "create", f.cfg.Create,
					"err", se.Message, "traceback", se.Traceback)
			}
			return fieldError(f.path+".create", fmt.Errorf("node: function authenticator %q (%s): %w", f.cfg.Create, python, err))
		}
		fa.log.Info("function authenticator ready", "auth", f.path, "create", f.cfg.Create)
	}
	fa.ch.Store(ch)
	return nil
}

// authenticate asks f about a login on the method at path, and words its
// errors for auth: an ApplicationError it raised is a *wamp.RequestError
// (the ABORT); any other exception is logged with its traceback and fails
// the login; a runner that is gone or not started is auth.ErrUnavailable.
func (fa *functionAuths) authenticate(ctx context.Context, f *functionAuth, path string, realm wamp.URI, authid string, details wamp.Dict) (any, error) {
	ch := fa.ch.Load()
	if ch == nil {
		return nil, fmt.Errorf("%w: the function authenticator is not started", auth.ErrUnavailable)
	}
	res, err := ch.Authenticate(ctx, f.path, string(realm), authid, details)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	var refusal *pyrunner.Refusal
	var se *pyrunner.StartError
	switch {
	case errors.As(err, &refusal):
		return nil, refusalError(refusal)
	case errors.Is(err, pyrunner.ErrEnded):
		return nil, fmt.Errorf("%w: the Python runner has ended", auth.ErrUnavailable)
	case errors.As(err, &se) && se.Stage == "authenticate":
		fa.log.Error("function authenticator failed", "auth", path, "create", f.cfg.Create, "err", se.Message, "traceback", se.Traceback)
		return nil, errors.New(se.Message)
	}
	return nil, fmt.Errorf("%w: %w", auth.ErrUnavailable, err)
}

// refusalError is the ABORT for an ApplicationError an authenticator
// raised: its URI and arguments, as Crossbar forwards them; a URI that is
// none fails the login instead.
func refusalError(r *pyrunner.Refusal) error {
	uri := wamp.URI(r.URI)
	if !wamp.ValidURI(uri, false, wamp.MatchExact) {
		return fmt.Errorf("function authenticator raised ApplicationError with an invalid URI %q", r.URI)
	}
	return &wamp.RequestError{URI: uri, Args: r.Args}
}
