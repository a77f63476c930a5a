package pyrunner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
)

// maxLine bounds one control message (a traceback or a log line can be
// long; a component's extra travels in a start call).
const maxLine = 16 << 20

// ErrEnded is the error of a call or run cut short because the runner's
// end of the channel closed: the runner exited, or never started.
var ErrEnded = errors.New("pyrunner: the runner ended")

// Hello is what a runner says once it is ready for calls.
type Hello struct {
	PID        int    `json:"pid"`
	Python     string `json:"python"`     // the interpreter's version, "3.11.2"
	Executable string `json:"executable"` // its path, as Python sees it
	Twisted    string `json:"twisted"`    // Twisted's version
	Autobahn   string `json:"autobahn"`   // Autobahn's version
}

// FatalError is a runner's report that it cannot run: Twisted or Autobahn
// does not import.
type FatalError struct{ Message string }

func (e *FatalError) Error() string { return e.Message }

// Channel is the node's end of a runner's control channel. Its methods are
// safe for concurrent use. One goroutine reads the channel until the
// runner's end closes; it never blocks on the node.
type Channel struct {
	conn *net.UnixConn
	log  *slog.Logger
	wmu  sync.Mutex // serializes writes: a call's line and its descriptor go together

	hello    chan struct{} // closed at hello, fatal or end
	helloMsg Hello         // written before hello is closed
	helloErr error         // written before hello is closed

	done chan struct{} // closed when the read loop has ended

	mu      sync.Mutex            // guards the fields below
	nextID  int64                 // the last call id
	pending map[int64]func(reply) // calls waiting for their answer, by id
	runs    map[int64]*Run        // runs not over yet, by run number
	ended   bool                  // the read loop has ended: no call is sent
	helloed bool                  // hello is closed
}

// NewChannel makes a control channel: the node's end, reading at once,
// and the file to give the runner as fd 3 (close it once the runner has
// started, or failed to). log gets the runner's log lines.
func NewChannel(log *slog.Logger) (*Channel, *os.File, error) {
	mine, theirs, err := socketPair("control")
	if err != nil {
		return nil, nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Channel{conn: mine, log: log, hello: make(chan struct{}), done: make(chan struct{}),
		pending: map[int64]func(reply){}, runs: map[int64]*Run{}}
	go c.read()
	return c, theirs, nil
}

// Hello waits until the runner is ready for calls and says what it runs
// on; or returns a *FatalError saying why it cannot run, ErrEnded when it
// ended first, or ctx's error.
func (c *Channel) Hello(ctx context.Context) (Hello, error) {
	select {
	case <-c.hello:
		return c.helloMsg, c.helloErr
	case <-ctx.Done():
		return Hello{}, fmt.Errorf("pyrunner: waiting for the runner: %w", ctx.Err())
	}
}

// Done is closed when the runner's end of the channel has closed (it has
// exited) or Close was called, and every run is over.
func (c *Channel) Done() <-chan struct{} { return c.done }

// Close closes the node's end; the runner takes that as the end of its
// worker. It returns once the read loop has ended. Safe to call more than
// once.
func (c *Channel) Close() error {
	err := c.conn.Close()
	<-c.done
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// message is any control message; the fields present depend on Type.
type message struct {
	Type      string          `json:"type"`
	ID        int64           `json:"id"`
	Result    json.RawMessage `json:"result"`
	Error     *StartError     `json:"error"`
	Event     string          `json:"event"`
	Component string          `json:"component"`
	Run       int64           `json:"run"`
	Level     string          `json:"level"`
	Message   string          `json:"message"`
	Traceback string          `json:"traceback"`
	Reason    string          `json:"reason"`
	Fatal     string          `json:"fatal"`
}

// reply is the answer to a call: a result, or an error.
type reply struct {
	result json.RawMessage
	err    error
}

// read handles the runner's messages until its end closes, then ends
// what is still waiting.
func (c *Channel) read() {
	defer close(c.done)
	r := bufio.NewReaderSize(c.conn, 64<<10)
	for {
		line, err := readLine(r)
		if err != nil {
			c.end(err)
			return
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			c.log.Warn("Python runner: unreadable control message", "err", err)
			continue
		}
		if m.Type == "hello" {
			var h Hello
			json.Unmarshal(line, &h) // fields of a message that decoded
			c.handleHello(h, nil)
			continue
		}
		c.handle(&m)
	}
}

// readLine reads one line, at most maxLine bytes, without its newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("pyrunner: control message longer than %d bytes", maxLine)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return nil, err
		}
	}
}

func (c *Channel) handle(m *message) {
	switch m.Type {
	case "fatal":
		c.handleHello(Hello{}, &FatalError{Message: m.Message})
	case "result":
		c.answer(m.ID, reply{result: m.Result})
	case "error":
		c.answer(m.ID, reply{err: m.startError()})
	case "event":
		c.event(m)
	case "log":
		c.logLine(m)
	default:
		c.log.Warn("Python runner: unknown control message", "type", m.Type)
	}
}

func (m *message) startError() error {
	if m.Error == nil {
		return &StartError{Stage: "call", Message: "the runner answered an error without saying which"}
	}
	return m.Error
}

// handleHello closes hello, once: with h, or with err.
func (c *Channel) handleHello(h Hello, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.helloed {
		return
	}
	c.helloed = true
	c.helloMsg, c.helloErr = h, err
	close(c.hello)
}

// answer hands a reply to the call waiting for it.
func (c *Channel) answer(id int64, rep reply) {
	c.mu.Lock()
	fn := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if fn == nil {
		c.log.Warn("Python runner: answer to no call", "id", id)
		return
	}
	fn(rep)
}

// event hands an event to its run.
func (c *Channel) event(m *message) {
	c.mu.Lock()
	r := c.runs[m.Run]
	if m.Event == "closed" {
		delete(c.runs, m.Run)
	}
	c.mu.Unlock()
	if r == nil {
		return // a run that failed to start, or is over
	}
	r.event(m)
}

// levels maps the runner's log levels.
var levels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

func (c *Channel) logLine(m *message) {
	level, ok := levels[m.Level]
	if !ok {
		level = slog.LevelInfo
	}
	var attrs []any
	if m.Component != "" {
		attrs = append(attrs, "component", m.Component)
	}
	if m.Traceback != "" {
		attrs = append(attrs, "traceback", m.Traceback)
	}
	c.log.Log(context.Background(), level, m.Message, attrs...)
}

// end ends every call and run still waiting: the runner is gone.
func (c *Channel) end(err error) {
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		c.log.Warn("Python runner: control channel failed", "err", err)
	}
	c.mu.Lock()
	c.ended = true
	pending, runs := c.pending, c.runs
	c.pending, c.runs = map[int64]func(reply){}, map[int64]*Run{}
	c.mu.Unlock()
	c.handleHello(Hello{}, ErrEnded)
	for _, fn := range pending {
		fn(reply{err: ErrEnded})
	}
	for _, r := range runs {
		r.runnerEnded()
	}
}
