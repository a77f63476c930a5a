package pyweb

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// Source is the program, run by the interpreter from its stdin.
//
//go:embed pyweb.py
var Source []byte

// The kinds of path a process serves.
const (
	KindWSGI     = "wsgi"
	KindResource = "resource"
	KindWAP      = "wap"
)

// Settings are what a process is told at start (its last argument).
type Settings struct {
	// Path is the service's JSON path, for messages.
	Path string `json:"path"`
	// Kind is KindWSGI or KindResource.
	Kind string `json:"kind"`
	// Prefix is the mount path, decoded: "" at the root, "/app",
	// "/a/b". The proxy sends the full path; the program splits it there.
	Prefix string `json:"prefix"`
	// StartDir is the directory the node was started from, absolute: the
	// program's sys.path[0], as a Crossbar worker's.
	StartDir string `json:"startdir"`
	// Module and Object are a WSGI application's; MaxThreads is its, and
	// a wap's, bound on the requests served at once.
	Module     string `json:"module,omitempty"`
	Object     string `json:"object,omitempty"`
	MaxThreads int    `json:"maxthreads,omitempty"`
	// Classname and Extra are a resource's: Class(extra).
	Classname string `json:"classname,omitempty"`
	Extra     any    `json:"extra,omitempty"`
	// Templates (a directory, absolute) or TemplatesPackage and
	// TemplatesResource, Sandbox and Routes are a wap's.
	Templates         string     `json:"templates,omitempty"`
	TemplatesPackage  string     `json:"templates_package,omitempty"`
	TemplatesResource string     `json:"templates_resource,omitempty"`
	Sandbox           bool       `json:"sandbox,omitempty"`
	Routes            []WAPRoute `json:"routes,omitempty"`
}

// WAPRoute is a wap's route: a werkzeug rule, its method, the procedure
// called ("" for none) and the template rendered.
type WAPRoute struct {
	Path   string `json:"path"`
	Method string `json:"method"`
	Call   string `json:"call"`
	Render string `json:"render"`
}

// Args are the interpreter's arguments for a process with settings s:
// unbuffered output, the program from stdin (Source), then s.
func Args(s Settings) ([]string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("pyweb: settings: %w", err)
	}
	return []string{"-u", "-", string(b)}, nil
}

// ErrNotServing is the dial error while no process serves the socket.
var ErrNotServing = errors.New("pyweb: the Python web process is not serving")

// ErrEnded: the process closed its end of the pipe without a word (it
// died, or was killed, before it could say).
var ErrEnded = errors.New("pyweb: the Python web process ended before it was ready")

// StartError is why a process cannot serve its path, in its words: the
// module or object is not there, the class failed.
type StartError struct {
	Message string
	// Key is the service's config key at fault: "module", "object",
	// "classname", or "" when none is.
	Key       string
	Traceback string
}

func (e *StartError) Error() string { return e.Message }

// Socket is the directory of a path's Unix socket, made with mode 0700,
// and the socket a process is serving, if any. Its zero value dials
// nothing until Open; Dial and SetServing are safe for concurrent use,
// Open, Listen and Close are called by one goroutine at a time.
type Socket struct {
	dir     string // set by Open, before serving is first set
	serving atomic.Bool
}

// socketName is the socket's name in its directory; callSocketName is
// the socket's, beside it, where the node answers a wap process's WAMP
// calls (the process finds it beside the one it was given).
const (
	socketName     = "http.sock"
	callSocketName = "call.sock"
)

// Open makes the private directory, in the system's temporary one.
func (s *Socket) Open() error {
	dir, err := os.MkdirTemp("", "junction-pyweb-") // mode 0700
	if err != nil {
		return fmt.Errorf("pyweb: socket directory: %w", err)
	}
	s.dir = dir
	return nil
}

// Path is the socket's path.
func (s *Socket) Path() string { return filepath.Join(s.dir, socketName) }

// Listen makes a new listening socket in place of the last one and
// returns it as a file for the process (fd 3); the node keeps no
// descriptor of it, so that once the process is gone connecting is
// refused at once. The caller closes the file once the process has
// started.
func (s *Socket) Listen() (*os.File, error) {
	s.serving.Store(false)
	if err := os.Remove(s.Path()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("pyweb: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.Path(), Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("pyweb: %w", err)
	}
	ln.SetUnlinkOnClose(false)
	f, err := ln.File()
	ln.Close()
	if err != nil {
		return nil, fmt.Errorf("pyweb: %w", err)
	}
	return f, nil
}

// ListenCalls listens on the socket where the node answers a wap
// process's WAMP calls, beside Path (so in the same private directory).
func (s *Socket) ListenCalls() (net.Listener, error) {
	ln, err := net.Listen("unix", filepath.Join(s.dir, callSocketName))
	if err != nil {
		return nil, fmt.Errorf("pyweb: %w", err)
	}
	return ln, nil
}

// SetServing says whether a process serves the socket: until it does,
// Dial fails at once.
func (s *Socket) SetServing(on bool) { s.serving.Store(on) }

// Serving reports whether a process serves the socket now.
func (s *Socket) Serving() bool { return s.serving.Load() }

// Dial connects to the socket (network and addr are ignored), or fails
// with a *net.OpError whose Op is "dial" while no process serves it.
func (s *Socket) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	if !s.serving.Load() {
		return nil, &net.OpError{Op: "dial", Net: "unix", Err: ErrNotServing}
	}
	var d net.Dialer
	return d.DialContext(ctx, "unix", s.Path())
}

// Close removes the directory and the socket.
func (s *Socket) Close() error {
	s.serving.Store(false)
	if s.dir == "" {
		return nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("pyweb: %w", err)
	}
	return nil
}

// exitedGrace bounds the read of the pipe once the process has exited.
const exitedGrace = time.Second

// maxReadyLine bounds the process's one line (a long traceback fits).
const maxReadyLine = 1 << 20

// readyLine is the process's one line.
type readyLine struct {
	Ready     bool   `json:"ready"`
	Error     string `json:"error"`
	Key       string `json:"key"`
	Traceback string `json:"traceback"`
}

// WaitReady reads the process's line from r, the pipe's read end: nil
// once it serves, a *StartError when it cannot, ErrEnded when the pipe
// closes without a line or the process exits (exited is closed) with
// nothing written, or ctx's error. It closes r.
func WaitReady(ctx context.Context, r *os.File, exited <-chan struct{}) error {
	defer r.Close()
	got := make(chan error, 1)
	go func() { got <- readReady(r) }()
	select {
	case err := <-got:
		return err
	case <-exited:
		// What it wrote before exiting is in the pipe: read it, but do not
		// wait long for a descriptor a child of the process may still
		// hold (without one, the pipe ends at once).
		_ = r.SetReadDeadline(time.Now().Add(exitedGrace))
		if err := <-got; !errors.Is(err, os.ErrDeadlineExceeded) {
			return err
		}
		return ErrEnded
	case <-ctx.Done():
		_ = r.SetReadDeadline(time.Now())
		<-got
		return ctx.Err()
	}
}

// readReady reads and decodes the one line.
func readReady(r io.Reader) error {
	line, err := bufio.NewReaderSize(io.LimitReader(r, maxReadyLine), 4096).ReadBytes('\n')
	if len(line) == 0 || err != nil && !errors.Is(err, io.EOF) {
		if err == nil || errors.Is(err, io.EOF) {
			return ErrEnded
		}
		return err
	}
	var m readyLine
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("pyweb: the process's ready line %.80q: %w", line, err)
	}
	switch {
	case m.Ready:
		return nil
	case m.Error != "":
		return &StartError{Message: m.Error, Key: m.Key, Traceback: m.Traceback}
	}
	return fmt.Errorf("pyweb: the process's ready line %.80q says nothing", line)
}
