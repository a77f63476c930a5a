package proxy

import (
	"github.com/junction-wamp/junction/internal/unsent"
	"github.com/junction-wamp/junction/wamp"
)

// backendWho is who refused a client's message, in the texts that say
// so (unsent.Text).
const backendWho = "backend router"

// toBackend is the client-to-backend direction of a link: a client that
// logs out (GOODBYE wamp.close.logout) is told to its entry; a message of
// the client's that the backend connection refuses before writing it
// (longer than the backend accepts, the maximum message length its
// RawSocket announced, or holding a value its serializer cannot encode)
// is answered for as the toClient direction does, with what a relay
// knows, one message at a time, and the session goes on:
//   - a CALL, SUBSCRIBE, REGISTER, UNSUBSCRIBE, UNREGISTER, or a PUBLISH
//     with acknowledge: the client gets ERROR for it (unsent.Reason.URI:
//     wamp.error.payload_size_exceeded or wamp.error.invalid_argument);
//   - a PUBLISH without acknowledge: dropped;
//   - a YIELD: the backend gets that ERROR for the INVOCATION instead,
//     which its router passes to the caller; after a progressive YIELD
//     the client gets INTERRUPT (killnowait) for it if it announced
//     call_canceling (its later answers, for an invocation the backend
//     router ended, are ignored there);
//   - an ERROR, ABORT, GOODBYE or CANCEL: sent again in its plainer form
//     (unsent.SendPlainer);
//   - anything else (a HELLO or AUTHENTICATE after the join: nothing can
//     stand for it): the session ends, the client getting ABORT with the
//     URI and what was refused.
//
// Each is counted (Stats.ToBackend) and logged, rate-limited. Used by the
// pump's goroutine alone.
type toBackend struct{ l *link }

func (d toBackend) keep(m wamp.Message) bool {
	g, ok := wamp.Unwrap(m).(*wamp.Goodbye)
	if ok && g.Reason == "wamp.close.logout" && d.l.entry.o.OnLogout != nil {
		d.l.entry.o.OnLogout(d.l.id)
	}
	return true
}

func (d toBackend) refused(m wamp.Message, err error) error {
	id := d.l.identity()
	d.l.relay.byBackend.Note(string(id.Realm), uint64(id.Session), m.Type(), err)
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Yield:
		return d.yieldRefused(m, err)
	case *wamp.Publish:
		if ack, _ := m.Options[wamp.OptAcknowledge].(bool); !ack {
			return nil
		}
	case *wamp.Error, *wamp.Abort, *wamp.Goodbye, *wamp.Cancel:
		return unsent.SendPlainer(d.l.back.Send, m, err, backendWho)
	}
	if req, ok := request(m); ok {
		return sendOwn(d.l.front, unsent.Error(m.Type(), req, err, backendWho), "client")
	}
	d.l.bye.Do(func() {
		sendAbort(d.l.front, wamp.Errorf(unsent.Of(err).URI(), "%s", unsent.Text(err, backendWho)))
	})
	return err
}

// yieldRefused answers for YIELD m, which the backend connection refused
// with err: the backend gets ERROR for its INVOCATION, and a client still
// running it (m was progressive) INTERRUPT, if it takes one.
func (d toBackend) yieldRefused(m *wamp.Yield, err error) error {
	if err := sendOwn(d.l.back, unsent.Error(wamp.TypeInvocation, m.Request, err, backendWho), backendWho); err != nil {
		return err
	}
	if progressive, _ := m.Options[wamp.OptProgress].(bool); !progressive || !d.l.interruptible {
		return nil
	}
	return d.l.front.Send(&wamp.Interrupt{Request: m.Request,
		Options: wamp.Dict{wamp.OptMode: wamp.CancelKillNoWait, wamp.OptReason: string(unsent.Of(err).URI())}})
}

// request returns the request ID of m, a client's request that an ERROR
// answers.
func request(m wamp.Message) (wamp.ID, bool) {
	switch m := wamp.Unwrap(m).(type) {
	case *wamp.Call:
		return m.Request, true
	case *wamp.Publish:
		return m.Request, true
	case *wamp.Subscribe:
		return m.Request, true
	case *wamp.Unsubscribe:
		return m.Request, true
	case *wamp.Register:
		return m.Request, true
	case *wamp.Unregister:
		return m.Request, true
	}
	return 0, false
}

// sendOwn sends the relay's own message m to p, plainer if p's peer
// refuses it too (who refused it, as in unsent.Text).
func sendOwn(p wamp.Peer, m wamp.Message, who string) error {
	err := p.Send(m)
	if unsent.Refused(err) {
		return unsent.SendPlainer(p.Send, m, err, who)
	}
	return err
}

// cancels reports whether HELLO details announce the callee feature
// call_canceling.
func cancels(details wamp.Dict) bool {
	roles, _ := details[wamp.KeyRoles].(map[string]any)
	callee, _ := roles["callee"].(map[string]any)
	features, _ := callee[wamp.KeyFeatures].(map[string]any)
	on, _ := features["call_canceling"].(bool)
	return on
}
