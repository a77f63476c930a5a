package pyweb

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadReady(t *testing.T) {
	tests := []struct {
		name, in string
		want     error
	}{
		{"ready", `{"ready": true}` + "\n", nil},
		{"ready without newline", `{"ready": true}`, nil},
		{"error", `{"error": "WSGI app object \"x\" not in module \"m\"", "key": "object", "traceback": "tb"}` + "\n",
			&StartError{Message: `WSGI app object "x" not in module "m"`, Key: "object", Traceback: "tb"}},
		{"nothing", "", ErrEnded},
		{"says nothing", `{}` + "\n", errors.New(`pyweb: the process's ready line "{}\n" says nothing`)},
		{"not JSON", "Traceback (most recent call last):\n", errors.New(`pyweb: the process's ready line "Traceback (most recent call last):\n": invalid character 'T' looking for beginning of value`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readReady(strings.NewReader(tt.in))
			var se, wantSE *StartError
			switch {
			case errors.As(tt.want, &wantSE):
				if !errors.As(got, &se) || *se != *wantSE {
					t.Errorf("got %#v, want %#v", got, tt.want)
				}
			case tt.want == nil || errors.Is(tt.want, ErrEnded):
				if !errors.Is(got, tt.want) {
					t.Errorf("got %v, want %v", got, tt.want)
				}
			case got == nil || got.Error() != tt.want.Error():
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzReadReady: no line makes readReady panic; it is nil, a
// *StartError with the message, or another error.
func FuzzReadReady(f *testing.F) {
	for _, s := range []string{`{"ready": true}`, `{"error": "e", "key": "module"}`, "", "{", `{"ready": 1}`, "\n\n", `{"error": ""}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		err := readReady(strings.NewReader(string(line)))
		var se *StartError
		if errors.As(err, &se) && se.Message == "" {
			t.Errorf("a StartError without a message from %q", line)
		}
	})
}

// TestWaitReady: the line is read from the pipe; the process's exit
// without a line, or ctx's end, ends the wait.
func TestWaitReady(t *testing.T) {
	t.Run("line", func(t *testing.T) {
		r, w := pipe(t)
		w.WriteString(`{"ready": true}` + "\n")
		if err := WaitReady(context.Background(), r, nil); err != nil {
			t.Error(err)
		}
	})
	t.Run("line then exit", func(t *testing.T) {
		r, w := pipe(t)
		w.WriteString(`{"error": "no module", "key": "module"}` + "\n")
		exited := make(chan struct{})
		close(exited)
		var se *StartError
		if err := WaitReady(context.Background(), r, exited); !errors.As(err, &se) || se.Key != "module" {
			t.Errorf("got %v, want the StartError", err)
		}
	})
	t.Run("exit without a line, pipe held open", func(t *testing.T) {
		r, _ := pipe(t) // a child of the process holds the write end
		exited := make(chan struct{})
		close(exited)
		if err := WaitReady(context.Background(), r, exited); !errors.Is(err, ErrEnded) {
			t.Errorf("got %v, want ErrEnded", err)
		}
	})
	t.Run("pipe closed", func(t *testing.T) {
		r, w := pipe(t)
		w.Close()
		if err := WaitReady(context.Background(), r, nil); !errors.Is(err, ErrEnded) {
			t.Errorf("got %v, want ErrEnded", err)
		}
	})
	t.Run("ctx", func(t *testing.T) {
		r, _ := pipe(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := WaitReady(ctx, r, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})
}

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestSocket: the directory is private; Dial fails as unreachable until
// a process serves, reaches the socket then, and is refused once the
// process (the last holder of the listener) is gone; Close removes it.
func TestSocket(t *testing.T) {
	var s Socket
	if _, err := s.Dial(context.Background(), "tcp", "localhost:80"); !isDialError(err, ErrNotServing) {
		t.Errorf("dial before Open: %v", err)
	}
	if err := s.Open(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(filepath.Dir(s.Path()))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory: %v %v", fi, err)
	}
	f, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.FileListener(f) // the process's copy
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.SetServing(true)
	c, err := s.Dial(context.Background(), "tcp", "localhost:80")
	if err != nil {
		t.Fatalf("dial while serving: %v", err)
	}
	c.Close()
	ln.Close()
	_, err = s.Dial(context.Background(), "tcp", "localhost:80")
	if !isDialError(err, nil) {
		t.Errorf("dial once the listener is gone: %v, want a dial error", err)
	}
	f, err = s.Listen() // the next process's: in place of the last
	if err != nil {
		t.Fatalf("second Listen: %v", err)
	}
	f.Close()
	if _, err := s.Dial(context.Background(), "tcp", "localhost:80"); !isDialError(err, ErrNotServing) {
		t.Errorf("dial after Listen, before SetServing: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(s.Path())); !os.IsNotExist(err) {
		t.Errorf("directory after Close: %v", err)
	}
}

// isDialError reports whether err is a *net.OpError of a dial, wrapping
// want when it is not nil.
func isDialError(err, want error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" && (want == nil || errors.Is(err, want))
}

func TestArgs(t *testing.T) {
	args, err := Args(Settings{Path: "p", Kind: KindWSGI, Module: "m", Object: "app", MaxThreads: 3})
	if err != nil || len(args) != 3 || args[0] != "-u" || args[1] != "-" ||
		args[2] != `{"path":"p","kind":"wsgi","prefix":"","startdir":"","module":"m","object":"app","maxthreads":3}` {
		t.Errorf("Args: %q %v", args, err)
	}
	if _, err := Args(Settings{Extra: make(chan int)}); err == nil {
		t.Error("Args with an extra that is not JSON: no error")
	}
}
