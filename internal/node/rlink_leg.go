package node

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// rlinkLeg is one direction of a router link, as Crossbar's BridgeSession:
// it watches the subscriptions and registrations of one router (this,
// through the meta API), mirrors them on the other router (other), and
// republishes on this the events the mirrors receive, or calls this with
// the invocations, each with forward_for naming the original publisher or
// caller. An event or call that already carries forward_for was forwarded
// by a link before and is not forwarded again.
//
// Concurrency: the meta event handlers run on this's dispatch goroutine,
// setup on serve's; mu guards the maps.
type rlinkLeg struct {
	link        *rlink
	log         *slog.Logger
	warn        *lograte.Limit
	this, other *client.Session
	exclude     []any // exclude_authid of the events published on this
	events      bool
	invocations bool

	mu   sync.Mutex
	subs map[wamp.ID]*client.Subscription // this's subscription -> mirror (nil while subscribing)
	regs map[wamp.ID]*client.Registration // this's registration -> mirror (nil while registering)
	meta []*client.Subscription           // meta event subscriptions on this
}

func newLeg(l *rlink, this, other *client.Session, name string, exclude []string, events, invocations bool) *rlinkLeg {
	g := &rlinkLeg{link: l, log: l.log.With("leg", name), warn: &lograte.Limit{Interval: rlinkWarnEvery}, this: this, other: other,
		events: events, invocations: invocations,
		subs: map[wamp.ID]*client.Subscription{}, regs: map[wamp.ID]*client.Registration{}}
	for _, a := range exclude {
		g.exclude = append(g.exclude, a)
	}
	return g
}

// setup subscribes to the meta events of this, then mirrors what this
// already has.
func (g *rlinkLeg) setup(ctx context.Context) error {
	if g.events {
		if err := g.watch(ctx, "wamp.subscription", g.subCreated, g.subDeleted, g.mirrorSub); err != nil {
			return err
		}
	}
	if g.invocations {
		if err := g.watch(ctx, "wamp.registration", g.regCreated, g.regDeleted, g.mirrorExistingReg); err != nil {
			return err
		}
	}
	return nil
}

// watch subscribes to kind's on_create and on_delete, then lists and gets
// every existing one, handing its details to existing.
func (g *rlinkLeg) watch(ctx context.Context, kind string, created, deleted client.EventHandler, existing func(ctx context.Context, d wamp.Dict)) error {
	ctx, cancel := context.WithTimeout(ctx, rlinkTimeout)
	defer cancel()
	for topic, h := range map[string]client.EventHandler{".on_create": created, ".on_delete": deleted} {
		sub, err := g.this.Subscribe(ctx, wamp.URI(kind+topic), h, nil)
		if err != nil {
			return err
		}
		g.mu.Lock()
		g.meta = append(g.meta, sub)
		g.mu.Unlock()
	}
	res, err := g.this.Call(ctx, wamp.URI(kind+".list"), nil, nil)
	if err != nil {
		return err
	}
	lists, _ := wamp.AsDict(firstArg(res))
	for _, m := range []string{wamp.MatchExact, wamp.MatchPrefix, wamp.MatchWildcard} {
		ids, _ := lists[m].([]any)
		for _, id := range ids {
			got, err := g.this.Call(ctx, wamp.URI(kind+".get"), wamp.List{id}, nil)
			if d, ok := wamp.AsDict(firstArg(got)); err == nil && ok {
				existing(ctx, d)
			}
		}
	}
	return nil
}

func firstArg(r *client.Result) any {
	if r == nil || len(r.Args) == 0 {
		return nil
	}
	return r.Args[0]
}

// metaArgs reads a meta event's (session, second) arguments.
func metaArgs(ev *client.Event) (session wamp.ID, second any, ok bool) {
	if len(ev.Args) < 2 {
		return 0, nil, false
	}
	id, ok := wamp.AsInt(ev.Args[0])
	return wamp.ID(id), ev.Args[1], ok
}

// mirrorable reads the id, URI and match of a subscription's or
// registration's details; the router's own wamp.* ones are not mirrored.
func mirrorable(d wamp.Dict) (id wamp.ID, uri wamp.URI, opts wamp.Dict, ok bool) {
	n, okID := wamp.AsInt(d["id"])
	u, _ := d["uri"].(string)
	if !okID || strings.HasPrefix(u, "wamp.") {
		return 0, "", nil, false
	}
	opts = wamp.Dict{}
	if m, _ := d["match"].(string); m != "" && m != wamp.MatchExact {
		opts[wamp.OptMatch] = m
	}
	return wamp.ID(n), wamp.URI(u), opts, true
}

func (g *rlinkLeg) subCreated(ev *client.Event) {
	if _, d, ok := metaArgs(ev); ok {
		if d, ok := wamp.AsDict(d); ok {
			g.mirrorSub(g.link.ctx, d)
		}
	}
}

// mirrorSub subscribes other to a subscription of this (as Crossbar, also
// one that a link's own session made: that is how events flow both ways).
func (g *rlinkLeg) mirrorSub(ctx context.Context, d wamp.Dict) {
	id, uri, opts, ok := mirrorable(d)
	if !ok || !claim(&g.mu, &g.subs, id) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, rlinkTimeout)
	defer cancel()
	sub, err := g.other.Subscribe(ctx, uri, g.forwardEvent, opts)
	if err != nil {
		g.log.Warn("router link: cannot subscribe on the other router", "topic", uri, "err", err)
		release(&g.mu, &g.subs, id)
		return
	}
	if !settle(&g.mu, &g.subs, id, sub) {
		sub.Unsubscribe(ctx)
	}
}

func (g *rlinkLeg) subDeleted(ev *client.Event) {
	id, ok := deletedID(ev)
	if !ok {
		return
	}
	if sub := release(&g.mu, &g.subs, id); sub != nil {
		ctx, cancel := context.WithTimeout(g.link.ctx, rlinkTimeout)
		defer cancel()
		sub.Unsubscribe(ctx)
	}
}

func (g *rlinkLeg) regCreated(ev *client.Event) {
	s, d, ok := metaArgs(ev)
	if d, okD := wamp.AsDict(d); ok && okD && s != g.this.ID() {
		g.mirrorReg(g.link.ctx, d)
	}
}

// mirrorExistingReg mirrors a registration found at setup, unless this
// session made it (a mirror of the other router's).
func (g *rlinkLeg) mirrorExistingReg(ctx context.Context, d wamp.Dict) {
	res, err := g.this.Call(ctx, "wamp.registration.list_callees", wamp.List{d["id"]}, nil)
	if err != nil {
		return
	}
	callees, _ := firstArg(res).([]any)
	for _, c := range callees {
		if n, _ := wamp.AsInt(c); wamp.ID(n) == g.this.ID() {
			return
		}
	}
	g.mirrorReg(ctx, d)
}

// mirrorReg registers on other a registration of this, with its match
// and invocation policy. A registration that this session made is a
// mirror of the other router's own and is not mirrored back (Crossbar
// tries, and the other router refuses it as already registered). Nor is
// the empty prefix (which only a trusted session may register): the
// other router would refuse it, since it reaches its wamp.* procedures.
func (g *rlinkLeg) mirrorReg(ctx context.Context, d wamp.Dict) {
	id, uri, opts, ok := mirrorable(d)
	if !ok || uri == "" && opts[wamp.OptMatch] == wamp.MatchPrefix || !claim(&g.mu, &g.regs, id) {
		return
	}
	if inv, _ := d["invoke"].(string); inv != "" {
		opts[wamp.OptInvoke] = inv
	}
	ctx, cancel := context.WithTimeout(ctx, rlinkTimeout)
	defer cancel()
	reg, err := g.other.Register(ctx, uri, g.forwardCall, opts)
	if err != nil {
		g.log.Warn("router link: cannot register on the other router", "procedure", uri, "err", err)
		release(&g.mu, &g.regs, id)
		return
	}
	if !settle(&g.mu, &g.regs, id, reg) {
		reg.Unregister(ctx)
	}
}

func (g *rlinkLeg) regDeleted(ev *client.Event) {
	id, ok := deletedID(ev)
	if !ok {
		return
	}
	if reg := release(&g.mu, &g.regs, id); reg != nil {
		ctx, cancel := context.WithTimeout(g.link.ctx, rlinkTimeout)
		defer cancel()
		reg.Unregister(ctx)
	}
}

// claim marks id as being mirrored; false if it already is. mu guards
// *mp, which teardown replaces, so it is read under mu too.
func claim[T any](mu *sync.Mutex, mp *map[wamp.ID]*T, id wamp.ID) bool {
	mu.Lock()
	defer mu.Unlock()
	m := *mp // read under mu: teardown replaces the map
	if _, dup := m[id]; dup {
		return false
	}
	m[id] = nil
	return true
}

// settle records the mirror of id; false if id was deleted meanwhile.
func settle[T any](mu *sync.Mutex, mp *map[wamp.ID]*T, id wamp.ID, v *T) bool {
	mu.Lock()
	defer mu.Unlock()
	m := *mp
	if _, still := m[id]; !still {
		return false
	}
	m[id] = v
	return true
}

// release forgets id and returns its mirror (nil if none yet).
func release[T any](mu *sync.Mutex, mp *map[wamp.ID]*T, id wamp.ID) *T {
	mu.Lock()
	defer mu.Unlock()
	m := *mp
	v := m[id]
	delete(m, id)
	return v
}

// deletedID reads the ID of an on_delete meta event.
func deletedID(ev *client.Event) (wamp.ID, bool) {
	_, v, ok := metaArgs(ev)
	n, okID := wamp.AsInt(v)
	return wamp.ID(n), ok && okID
}

// teardown removes the meta subscriptions and the mirrors (on a session
// that has ended the requests fail at once, which is fine).
func (g *rlinkLeg) teardown() {
	ctx, cancel := context.WithTimeout(context.Background(), rlinkTimeout)
	defer cancel()
	g.mu.Lock()
	meta, subs, regs := g.meta, g.subs, g.regs
	g.meta, g.subs, g.regs = nil, map[wamp.ID]*client.Subscription{}, map[wamp.ID]*client.Registration{}
	g.mu.Unlock()
	for _, s := range meta {
		s.Unsubscribe(ctx)
	}
	for _, s := range subs {
		if s != nil {
			s.Unsubscribe(ctx)
		}
	}
	for _, r := range regs {
		if r != nil {
			r.Unregister(ctx)
		}
	}
}

// errNotDisclosed: a link can forward only what names its publisher or
// caller, as in Crossbar.
var errNotDisclosed = errors.New("the router link needs the publisher or caller disclosed (the role's \"disclose\")")

// origin is the forward_for entry of the publisher or caller that d
// discloses.
func origin(d wamp.Dict, session, authid, authrole string) (wamp.Dict, error) {
	id, ok := wamp.AsInt(d[session])
	if !ok {
		return nil, errNotDisclosed
	}
	return wamp.Dict{wamp.KeySession: uint64(id), wamp.KeyAuthID: d[authid], wamp.KeyAuthRole: d[authrole]}, nil
}

// forwarded reports whether a link forwarded the message of d already.
func forwarded(d wamp.Dict) bool {
	ff, _ := d[wamp.OptForwardFor].([]any)
	return len(ff) > 0
}

// forwardEvent republishes on this an event that a mirror got on other.
// The other router's own events (its wamp.* meta events, which the mirror
// of a subscription to every topic gets) are not forwarded: this router
// publishes its own.
func (g *rlinkLeg) forwardEvent(ev *client.Event) {
	if forwarded(ev.Details) || strings.HasPrefix(string(ev.Topic), "wamp.") {
		return
	}
	hop, err := origin(ev.Details, wamp.OptPublisher, wamp.OptPublisherAuthID, wamp.OptPublisherAuthRole)
	if err != nil {
		g.warnf("router link: event not forwarded", "topic", ev.Topic, "err", err)
		return
	}
	opts := wamp.Dict{wamp.OptExcludeMe: true, wamp.OptForwardFor: []any{hop}}
	if len(g.exclude) > 0 {
		opts[wamp.OptExcludeAuthID] = g.exclude
	}
	passthruOptions(opts, ev.Details)
	if ev.Passthru != nil {
		_, err = g.this.PublishPassthru(g.link.ctx, ev.Topic, ev.Passthru, opts)
	} else {
		_, err = g.this.Publish(g.link.ctx, ev.Topic, ev.Args, ev.Kwargs, opts)
	}
	if err != nil {
		g.warnf("router link: forwarding an event failed", "topic", ev.Topic, "err", err)
	}
}

// passthruOptions copies the options of a passthru payload (both forms)
// from an event's details into opts.
func passthruOptions(opts, details wamp.Dict) {
	for _, k := range []string{wamp.OptEncAlgo, wamp.OptEncKey, wamp.OptEncSerializer,
		wamp.OptPPTScheme, wamp.OptPPTSerializer, wamp.OptPPTCipher, wamp.OptPPTKeyID} {
		if v, ok := details[k]; ok {
			opts[k] = v
		}
	}
}

// forwardCall calls on this the procedure that a mirror was invoked for.
// The callee's result or error goes back to the caller.
func (g *rlinkLeg) forwardCall(ctx context.Context, inv *client.Invocation) (*client.Result, error) {
	if forwarded(inv.Details) {
		return nil, wamp.Errorf(wamp.ErrNoSuchProcedure, "call already forwarded by a router link")
	}
	hop, err := origin(inv.Details, wamp.OptCaller, wamp.OptCallerAuthID, wamp.OptCallerAuthRole)
	if err != nil {
		return nil, wamp.Errorf(wamp.ErrRuntimeError, "%v", err)
	}
	res, err := g.this.Call(ctx, inv.Procedure, inv.Args, inv.Kwargs,
		client.WithOptions(wamp.Dict{wamp.OptForwardFor: []any{hop}}))
	if err != nil {
		return nil, err
	}
	return &client.Result{Args: res.Args, Kwargs: res.Kwargs}, nil
}

// rlinkWarnEvery is how often a leg logs the same kind of failure.
const rlinkWarnEvery = 10 * time.Second

func (g *rlinkLeg) warnf(msg string, args ...any) {
	if ok, held := g.warn.Allow(); ok {
		g.log.Warn(msg, append(args, "held_back", held)...)
	}
}
