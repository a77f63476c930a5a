package process

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// drainLimit bounds how long output is still read once the child and its
// group are gone: only a process that left the group (setsid) can hold
// the pipe open that long, and it is not waited for.
const drainLimit = 2 * time.Second

// maxLine is the longest line logged as one; a longer one is split.
const maxLine = 64 << 10

// stdio holds the pipes between the node and a child.
type stdio struct {
	child  [3]*os.File // the child's stdin, stdout, stderr
	stdin  *os.File    // the node's write end of stdin
	stdout *os.File    // the node's read ends, nil when Close
	stderr *os.File
}

// newStdio makes the pipes: stdin, stdout and stderr are always pipes;
// the node's end of an output that is Close is closed at once.
func newStdio(spec Spec) (*stdio, error) {
	s := &stdio{}
	var err error
	if s.child[0], s.stdin, err = os.Pipe(); err != nil {
		return nil, err
	}
	for i, o := range []Output{spec.Stdout, spec.Stderr} {
		r, w, err := os.Pipe()
		if err != nil {
			s.closeChildEnds()
			s.closeParentEnds()
			return nil, err
		}
		s.child[i+1] = w
		if o == Close {
			r.Close()
			continue
		}
		*s.readEnd(i) = r
	}
	return s, nil
}

func (s *stdio) readEnd(i int) **os.File {
	if i == 0 {
		return &s.stdout
	}
	return &s.stderr
}

func (s *stdio) childFiles() []*os.File { return s.child[:] }

func (s *stdio) closeChildEnds() {
	for _, f := range s.child {
		closeFile(f)
	}
}

func (s *stdio) closeParentEnds() {
	for _, f := range []*os.File{s.stdin, s.stdout, s.stderr} {
		closeFile(f)
	}
}

func closeFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

// running is the goroutines that feed stdin and read the output.
type running struct {
	wg     sync.WaitGroup
	stdin  *os.File
	output []*os.File
}

// run starts writing spec.Stdin and reading the output as spec says.
func (s *stdio) run(spec Spec) *running {
	r := &running{stdin: s.stdin}
	r.wg.Go(func() {
		if len(spec.Stdin) > 0 {
			s.stdin.Write(spec.Stdin) // an error is the child's: it left early
		}
		if !spec.KeepStdin {
			s.stdin.Close()
		}
	})
	log := spec.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("worker", spec.Name)
	r.read(s.stdout, spec.Stdout, log.With("stream", "stdout"), slog.LevelInfo)
	r.read(s.stderr, spec.Stderr, log.With("stream", "stderr"), slog.LevelWarn)
	return r
}

// read starts reading f (nil: Close) as o says.
func (r *running) read(f *os.File, o Output, log *slog.Logger, level slog.Level) {
	if f == nil {
		return
	}
	r.output = append(r.output, f)
	r.wg.Go(func() {
		defer f.Close()
		var err error
		if o == Drop {
			_, err = io.Copy(io.Discard, f)
		} else {
			err = logLines(f, log, level)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			log.Warn("output still held open by a process outside the group: no longer read")
		}
	})
}

// logLines logs each line of r at level until end of file, and returns
// why reading stopped (nil at end of file).
func logLines(r io.Reader, log *slog.Logger, level slog.Level) error {
	br := bufio.NewReaderSize(r, maxLine)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			log.Log(context.Background(), level, trimEOL(line))
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
	}
}

func trimEOL(line []byte) string {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return string(line[:n])
}

// finish, once the child's group is gone, stops a stdin write the child
// will never read, bounds the reading of output a process outside the
// group may hold open, waits for both and closes stdin.
func (r *running) finish() {
	r.stdin.SetWriteDeadline(time.Now())
	limit := time.Now().Add(drainLimit)
	for _, f := range r.output {
		f.SetReadDeadline(limit)
	}
	r.wg.Wait()
	r.stdin.Close()
}
