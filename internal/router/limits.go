package router

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/junction-wamp/junction/internal/lograte"
	"github.com/junction-wamp/junction/wamp"
)

// Limits bound what clients can make a realm hold, so that no client can
// grow the router's memory without end. A field's zero value means its
// default (the Default constants); a negative value means no limit.
//
// A request past a limit gets ERROR junction.error.limit_exceeded (an
// unacknowledged PUBLISH is dropped); each refusal is counted
// (RealmStats.LimitRefusals) and logged, at most one line every 10
// seconds per realm.
//
// The sessions of an Internal gate (the node's own bridge services and
// components, which act for many clients at once) are never refused a
// subscription, registration or call: what they hold is set by the
// configuration, or, for the Caller's calls, ends with the HTTP request.
// Their subscriptions, registrations and calls count toward the realm's
// limits all the same, so that outside clients get what is left and a
// realm's total stays within its limit plus what the node itself holds.
// The limits on retained events and testaments apply to every session:
// what they bound outlives the request, and the bridge's sessions carry
// HTTP clients' requests (a Publisher's retain, a Caller's
// add_testament).
//
// Subscriptions and registrations count with a weight: one per 512 (600)
// bytes of router memory each takes at most, so one for typical URIs and
// more for long ones and wildcard patterns (see limits_weight.go). A
// subscription that other sessions hold too counts its weight for each
// of them, but for the realm only once (and one for each other
// subscriber): what the realm holds for it.
type Limits struct {
	// SubscriptionsPerSession: subscriptions one session may hold, by
	// weight.
	SubscriptionsPerSession int
	// RegistrationsPerSession: registrations one session may hold, by
	// weight.
	RegistrationsPerSession int
	// CallsInFlightPerSession: calls one session may have in flight as caller.
	CallsInFlightPerSession int
	// SubscriptionsPerRealm: subscriptions the realm's sessions may hold
	// together (a session subscribed to a topic counts once however many
	// others are, as in SubscriptionsPerSession).
	SubscriptionsPerRealm int
	// RegistrationsPerRealm: registrations the realm's sessions may hold
	// together (each callee of a shared registration counts).
	RegistrationsPerRealm int
	// CallsInFlightPerRealm: calls the realm's sessions may have in
	// flight together.
	CallsInFlightPerRealm int
	// URIBytesPerPattern: the longest topic or procedure, in bytes, that
	// a session may subscribe to or register (any match policy). The
	// weights bound memory already; this bounds the work a short request
	// can cost: a prefix pattern's label is copied whole when a shorter
	// pattern that split it is unsubscribed, and a wildcard pattern is
	// walked one call deep per component at each publication.
	URIBytesPerPattern int

	// Retained events (PUBLISH retain: true), one per topic, kept until
	// the topic's next retained event replaces it or the realm goes away.
	// A session's share is the retained events it published that are
	// still retained, counted while it is joined: it no longer counts
	// once the session left, but the events stay (as the WAMP spec says),
	// still counted by the realm's limits.
	RetainedEventsPerRealm   int
	RetainedBytesPerRealm    int
	RetainedEventsPerSession int
	RetainedBytesPerSession  int

	// Testaments (wamp.session.add_testament), held until published
	// (when their session leaves) or flushed.
	TestamentsPerRealm       int
	TestamentBytesPerRealm   int
	TestamentsPerSession     int
	TestamentBytesPerSession int

	// HistoryBytesPerRealm bounds the bytes the realm's event histories
	// (RealmOptions.EventHistory) hold together. A history that would
	// pass it drops its own oldest events; an event that does not fit
	// even then is not kept (and counted as a refusal), but still
	// delivered.
	HistoryBytesPerRealm int
}

// Defaults of Limits. The per session counts are far above what an
// application needs (a browser page or a device holds tens of
// subscriptions, a backend hundreds of registrations) and cost a few MB
// of router memory at most.
//
// The realm's counts fit 100,000 sessions with 10 subscriptions each,
// 250,000 registrations (100,000 devices registering two each, with
// room to spare) and 250,000 calls in flight (2.5 s of a node's peak
// call rate, about 100,000 calls/s, all unanswered). As a subscription
// counts one per 512 bytes it takes, a registration one per 600 and a
// call 300 at most (TestHeldMemory), they bound that memory at about
// 490 MiB for subscriptions, 145 MiB for registrations and 72 MiB for
// calls, whatever the URIs, plus about 200 bytes for each session that
// holds any (sessionTableBytes). The longest URI a session may subscribe
// to or register, 4 KiB, is 16 times a long real one (256 bytes).
//
// The byte limits bound the router's memory per realm at 64 MiB for
// retained events, as much for testaments and as much for event
// histories; one session may take a
// sixteenth of the retained bytes and 64 KiB of testaments (a testament
// is typically a presence event of a few hundred bytes). Bytes are the
// memory that a publication's or a testament's topic, arguments, keyword
// arguments and options hold once decoded, as wamp.PayloadSize estimates
// it.
const (
	DefaultSubscriptionsPerSession  = 10_000
	DefaultRegistrationsPerSession  = 10_000
	DefaultCallsInFlightPerSession  = 10_000
	DefaultSubscriptionsPerRealm    = 1_000_000
	DefaultRegistrationsPerRealm    = 250_000
	DefaultCallsInFlightPerRealm    = 250_000
	DefaultURIBytesPerPattern       = 4096
	DefaultRetainedEventsPerRealm   = 100_000
	DefaultRetainedBytesPerRealm    = 64 << 20
	DefaultRetainedEventsPerSession = 10_000
	DefaultRetainedBytesPerSession  = 4 << 20
	DefaultTestamentsPerRealm       = 100_000
	DefaultTestamentBytesPerRealm   = 64 << 20
	DefaultTestamentsPerSession     = 256
	DefaultTestamentBytesPerSession = 64 << 10
	DefaultHistoryBytesPerRealm     = 64 << 20
)

// limitLogEvery is the shortest interval between two "limit exceeded"
// lines of a realm.
const limitLogEvery = 10 * time.Second

// realmLimits are a realm's Limits, resolved (see limitValues), which
// SetRealmLimits replaces, with the count and the log of refusals. Safe
// for concurrent use.
type realmLimits struct {
	v       atomic.Pointer[limitValues]
	log     *slog.Logger
	rate    lograte.Limit
	refused atomic.Uint64
}

// limitValues are a realm's Limits resolved: every limit > 0, math.MaxInt
// for none. Read-only.
type limitValues struct {
	subs, regs, calls countLimit
	uriBytes          int
	retainedRealm     budget
	retainedSession   budget
	testamentRealm    budget
	testamentSession  budget
	historyBytes      int
}

// newRealmLimits resolves o; refusals are logged to log.
func newRealmLimits(o Limits, log *slog.Logger) *realmLimits {
	l := &realmLimits{log: log, rate: lograte.Limit{Interval: limitLogEvery}}
	l.v.Store(resolveLimits(o))
	return l
}

// now returns the limits in force.
func (l *realmLimits) now() *limitValues { return l.v.Load() }

// resolveLimits resolves o, its zero fields to the defaults.
func resolveLimits(o Limits) *limitValues {
	return &limitValues{
		subs: countLimit{"subscriptions",
			resolve(o.SubscriptionsPerSession, DefaultSubscriptionsPerSession),
			resolve(o.SubscriptionsPerRealm, DefaultSubscriptionsPerRealm)},
		regs: countLimit{"registrations",
			resolve(o.RegistrationsPerSession, DefaultRegistrationsPerSession),
			resolve(o.RegistrationsPerRealm, DefaultRegistrationsPerRealm)},
		calls: countLimit{"calls in flight",
			resolve(o.CallsInFlightPerSession, DefaultCallsInFlightPerSession),
			resolve(o.CallsInFlightPerRealm, DefaultCallsInFlightPerRealm)},
		uriBytes: resolve(o.URIBytesPerPattern, DefaultURIBytesPerPattern),
		retainedRealm: budget{"retained events per realm",
			resolve(o.RetainedEventsPerRealm, DefaultRetainedEventsPerRealm),
			resolve(o.RetainedBytesPerRealm, DefaultRetainedBytesPerRealm)},
		retainedSession: budget{"retained events per session",
			resolve(o.RetainedEventsPerSession, DefaultRetainedEventsPerSession),
			resolve(o.RetainedBytesPerSession, DefaultRetainedBytesPerSession)},
		testamentRealm: budget{"testaments per realm",
			resolve(o.TestamentsPerRealm, DefaultTestamentsPerRealm),
			resolve(o.TestamentBytesPerRealm, DefaultTestamentBytesPerRealm)},
		testamentSession: budget{"testaments per session",
			resolve(o.TestamentsPerSession, DefaultTestamentsPerSession),
			resolve(o.TestamentBytesPerSession, DefaultTestamentBytesPerSession)},
		historyBytes: resolve(o.HistoryBytesPerRealm, DefaultHistoryBytesPerRealm),
	}
}

// SetRealmLimits replaces the limits of realm name (a configuration
// reload): the requests admitted from now on are held to them. What the
// realm's sessions hold already stays, also above a limit lowered (a
// retained event, a testament or a history's events are then refused or
// dropped as others are added; a count limit refuses new items until the
// holdings fall below it).
func (r *Router) SetRealmLimits(name wamp.URI, o Limits) error {
	rm := r.realm(name)
	if rm == nil {
		return fmt.Errorf("router: no realm %q", name)
	}
	v := resolveLimits(o)
	rm.limits.v.Store(v)
	rm.broker.histories.setBudget(v.historyBytes)
	return nil
}

// resolve turns a Limits field into a limit: 0 is def, negative none.
func resolve(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return math.MaxInt
	}
	return v
}

// limitError is a request refused by a limit. It is made under the lock
// that guards what it counts, and turned into ERROR
// junction.error.limit_exceeded, counted and logged (session.reply,
// session.dropped) once that lock is released.
type limitError struct {
	what   string // "subscriptions per session"
	max    int
	weight int // what the refused request counts, when more than one
}

func (e *limitError) Error() string { return "router: " + e.message() }

// message says which limit refused the request, and its weight.
func (e *limitError) message() string {
	msg := fmt.Sprintf("limit exceeded: at most %d %s", e.max, e.what)
	if e.weight > 1 {
		msg += fmt.Sprintf(" (this one counts as %d, for its long URI or pattern)", e.weight)
	}
	return msg
}

// countLimit is a limit on what sessions hold, one by one: per session
// and for the realm's sessions together.
type countLimit struct {
	what           string // "subscriptions"
	session, realm int
}

// admit returns the limitError for s asking for an item that counts w
// against its own limit, of which it holds own, and grow against the
// realm's, of which the realm's sessions hold all together (s's
// included); nil when both stay within their limits, or when s belongs to
// an Internal gate, which is never refused (what it holds is counted in
// all nonetheless).
func (c countLimit) admit(s *session, own, all, w, grow int) error {
	switch {
	case s.gate.opts.Internal:
		return nil
	case own+w > c.session:
		return &limitError{what: c.what + " per session", max: c.session, weight: w}
	case all+grow > c.realm:
		return &limitError{what: c.what + " per realm", max: c.realm, weight: grow}
	}
	return nil
}

// admitURI returns the limitError for s asking to subscribe to or
// register (what) a URI longer than the realm allows, or nil. The
// sessions of an Internal gate are never refused.
func (l *realmLimits) admitURI(s *session, uri wamp.URI, what string) error {
	max := l.now().uriBytes
	if s.gate.opts.Internal || len(uri) <= max {
		return nil
	}
	return &limitError{what: "bytes of URI per " + what, max: max}
}

// budget is a limit on a count and on bytes together.
type budget struct {
	what     string // "retained events per realm"
	n, bytes int
}

// usage is what a realm or a session holds against a budget.
type usage struct{ n, bytes int }

// admit returns the limitError for u growing by dn items and db bytes
// past b, or nil. What does not grow is always admitted, so a replacement
// no bigger than what it replaces in u passes even over a limit.
func (b budget) admit(u usage, dn, db int) error {
	switch {
	case dn > 0 && u.n+dn > b.n:
		return &limitError{what: b.what, max: b.n}
	case db > 0 && u.bytes+db > b.bytes:
		return &limitError{what: "bytes of " + b.what, max: b.bytes}
	}
	return nil
}

func (u *usage) add(dn, db int) {
	u.n += dn
	u.bytes += db
}

// note counts a refusal and logs it, rate-limited. No lock may be held.
// s is nil for the router's own publications (a retained testament).
func (l *realmLimits) note(s *session, e *limitError) {
	l.refused.Add(1)
	ok, suppressed := l.rate.Allow()
	if !ok {
		return
	}
	attrs := []any{"limit", e.what, "max", e.max, "suppressed", suppressed}
	if e.weight > 1 {
		attrs = append(attrs, "weight", e.weight)
	}
	if s != nil {
		attrs = append(attrs, "session", uint64(s.id), "authid", s.ident.AuthID, "authrole", s.ident.AuthRole)
	}
	l.log.Warn("limit exceeded", attrs...)
}

// dropped counts and logs the refusal of an unacknowledged PUBLISH by a
// limit; no ERROR is sent for it. Its other errors pass silently, as in
// Crossbar. It runs for every such PUBLISH: it returns before errors.As
// when err is nil, as le escapes to the heap.
func (s *session) dropped(err error) {
	if err == nil {
		return
	}
	var le *limitError
	if errors.As(err, &le) {
		s.realm.limits.note(s, le)
	}
}

// refusal is the wire error of a limitError, counted and logged.
func (s *session) refusal(e *limitError) *wamp.RequestError {
	s.realm.limits.note(s, e)
	return wamp.Errorf(wamp.ErrLimitExceeded, "%s", e.message())
}
