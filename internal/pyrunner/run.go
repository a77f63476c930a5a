package pyrunner

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
)

// Component is what a runner starts: one Python class component.
type Component struct {
	// ID names the component in events and logs: its JSON path.
	ID string
	// Classname is "package.module.Class", an ApplicationSession.
	Classname string
	// Realm is the realm it joins.
	Realm string
	// Extra is its config.extra (the runner adds "cbdir"); nil is {}.
	Extra map[string]any
	// Router marks a component that joins its router from inside, as
	// Crossbar's router components do in-process: a session that leaves
	// before it is ready (leave() in onJoin) fails the start there.
	Router bool
}

// StartError is the runner's error answer to a call: why a component did
// not start, or an authenticator could not be made or failed; the
// runner's words, with the Python traceback when there is one.
type StartError struct {
	// Stage is where it failed: "import" (the module, class or factory),
	// "check_config", "create" (the constructor or factory), "join" (the
	// session ended before it was ready), "authenticate" (an
	// authenticator raised), "call" or "start" (anything else).
	Stage     string `json:"stage"`
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
}

func (e *StartError) Error() string { return e.Message }

// Joined says who a ready component's session is.
type Joined struct {
	Session  int64  `json:"session"`
	AuthID   string `json:"authid"`
	AuthRole string `json:"authrole"`
}

// Outcome is how a run ended.
type Outcome struct {
	// Fatal is the exception that escaped the component's code (Crossbar's
	// "Fatal error in component"), for which it was disconnected; "" for
	// none.
	Fatal string
	// Left is the reason its session left with ("wamp.close.normal");
	// "" when its connection closed without it leaving.
	Left string
	// RunnerEnded says that the runner ended with the run still going.
	RunnerEnded bool
}

// Run is one start of one component: from the start call to the end of
// its session. Its methods are safe for concurrent use.
type Run struct {
	// Component is the component's ID.
	Component string
	// Conn is the node's end of the run's socket pair: the component
	// speaks WAMP-over-RawSocket on the other end, as a client; serve it
	// as a RawSocket server. Closing it ends the run.
	Conn net.Conn

	ready chan struct{} // closed once the start is answered
	done  chan struct{} // closed once the run is over

	mu      sync.Mutex // guards the fields below
	joined  Joined
	err     error // why it did not start; read after ready
	outcome Outcome
	closed  bool // done is closed
}

// Start asks the runner to start c on a new socket pair, and returns at
// once: serve r.Conn, then wait with r.Ready. Its error is the channel's
// (the runner has ended, or a socket pair could not be made).
func (c *Channel) Start(comp Component) (*Run, error) {
	mine, theirs, err := socketPair(comp.ID)
	if err != nil {
		return nil, err
	}
	defer theirs.Close()
	r := &Run{Component: comp.ID, Conn: mine, ready: make(chan struct{}), done: make(chan struct{})}
	id, ok := c.register(r)
	if !ok {
		mine.Close()
		return nil, ErrEnded
	}
	extra := comp.Extra
	if extra == nil {
		extra = map[string]any{}
	}
	args := map[string]any{"component": comp.ID, "run": id, "classname": comp.Classname,
		"realm": comp.Realm, "extra": extra, "router": comp.Router}
	if err := c.send(id, "start", args, theirs); err != nil {
		c.forget(id)
		mine.Close()
		return nil, err
	}
	return r, nil
}

// register gives r a call id (which is also its run number) and waits for
// the answer; false when the channel has ended.
func (c *Channel) register(r *Run) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return 0, false
	}
	c.nextID++
	id := c.nextID
	c.runs[id] = r
	c.pending[id] = func(rep reply) {
		r.answer(rep, func() { c.forget(id) }) // not started: no event follows
	}
	return id, true
}

func (c *Channel) forget(id int64) {
	c.mu.Lock()
	delete(c.runs, id)
	delete(c.pending, id)
	c.mu.Unlock()
}

// call is a control message from the node.
type call struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
	Op   string `json:"op"`
	Args any    `json:"args"`
}

// send writes a call, with fd's descriptor (SCM_RIGHTS) when fd is not
// nil.
func (c *Channel) send(id int64, op string, args any, fd interface{ Fd() uintptr }) error {
	line, err := json.Marshal(call{Type: "call", ID: id, Op: op, Args: args})
	if err != nil {
		return fmt.Errorf("pyrunner: %s: %w", op, err)
	}
	line = append(line, '\n')
	var oob []byte
	if fd != nil {
		oob = rights(fd.Fd())
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	n, _, err := c.conn.WriteMsgUnix(line, oob, nil)
	if err == nil && n < len(line) {
		_, err = c.conn.Write(line[n:]) // the descriptor went with the first bytes
	}
	if err != nil {
		return fmt.Errorf("pyrunner: %s: %w", op, err)
	}
	return nil
}

// Ready waits until the component is ready (its onJoin has returned) and
// says who its session is; or returns why it did not start (a
// *StartError, or ErrEnded), or ctx's error. A run that did not start is
// over.
func (r *Run) Ready(ctx context.Context) (Joined, error) {
	select {
	case <-r.ready:
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.joined, r.err
	case <-ctx.Done():
		return Joined{}, fmt.Errorf("pyrunner: %s: waiting until ready: %w", r.Component, ctx.Err())
	}
}

// Done is closed when the run is over: its connection has closed, it did
// not start, or the runner ended.
func (r *Run) Done() <-chan struct{} { return r.done }

// Outcome says how the run ended; complete once Done is closed.
func (r *Run) Outcome() Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.outcome
}

// answer takes the start call's reply: ready, or not started (then
// over, and failed runs first).
func (r *Run) answer(rep reply, failed func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rep.err == nil {
		if err := json.Unmarshal(rep.result, &r.joined); err != nil {
			rep.err = &StartError{Stage: "call", Message: fmt.Sprintf("unreadable answer to start: %v", err)}
		}
	}
	r.err = rep.err
	if r.err != nil {
		failed() // before Done closes: a run that is done is no longer listed
	}
	close(r.ready)
	if r.err != nil {
		r.closeLocked()
	}
}

// event takes a "fatal", "left" or "closed" event of the run.
func (r *Run) event(m *message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch m.Event {
	case "fatal":
		r.outcome.Fatal = m.Fatal
	case "left":
		r.outcome.Left = m.Reason
	case "closed":
		if m.Fatal != "" {
			r.outcome.Fatal = m.Fatal
		}
		r.closeLocked()
	}
}

// runnerEnded ends the run: the runner has gone.
func (r *Run) runnerEnded() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.outcome.RunnerEnded = true
	}
	r.closeLocked()
}

// closeLocked closes done, once, and the node's end of the socket pair.
// r.mu is held.
func (r *Run) closeLocked() {
	if r.closed {
		return
	}
	r.closed = true
	r.Conn.Close()
	close(r.done)
}
