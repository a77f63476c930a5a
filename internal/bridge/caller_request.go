package bridge

import (
	"time"

	"github.com/junction-wamp/junction/wamp"
)

// callRequest is a Caller body: {"procedure", "args", "kwargs", "options"}.
type callRequest struct {
	procedure  wamp.URI
	args       wamp.List
	kwargs     wamp.Object
	timeout    time.Duration // options.timeout; 0: none asked
	discloseMe bool
}

// parseCall reads and checks a Caller body. Other members are ignored.
func parseCall(obj wamp.Object) (cr callRequest, err error) {
	if cr.procedure, err = uriMember(obj, "procedure"); err != nil {
		return cr, err
	}
	if cr.args, cr.kwargs, err = payload(obj); err != nil {
		return cr, err
	}
	opts, err := dictMember(obj, "options")
	if err != nil {
		return cr, err
	}
	if cr.timeout, err = timeoutOption(opts); err != nil {
		return cr, err
	}
	cr.discloseMe, err = boolOption(opts, wamp.OptDiscloseMe)
	return cr, err
}

// timeoutOption reads options.timeout, a number of milliseconds >= 0.
func timeoutOption(opts wamp.Dict) (time.Duration, error) {
	v, ok := opts[wamp.OptTimeout]
	if !ok || v == nil {
		return 0, nil
	}
	ms, ok := wamp.AsInt(v)
	if !ok || ms < 0 || ms > int64(time.Duration(1<<62)/time.Millisecond) {
		return 0, badRequest(textBadMember, "'options.timeout' must be a number of milliseconds >= 0")
	}
	return time.Duration(ms) * time.Millisecond, nil
}
