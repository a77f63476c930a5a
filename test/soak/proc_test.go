//go:build soak

package soak

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// What the system says of the node (Linux's /proc): how many descriptors
// it holds and how much memory it occupies (its resident set).

// MiB is a mebibyte, the unit of the memory readings in reports.
const MiB = 1 << 20

// fdCount is how many file descriptors process pid holds.
func fdCount(pid int) (int, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return 0, fmt.Errorf("descriptors of %d: %w", pid, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return 0, fmt.Errorf("descriptors of %d: %w", pid, err)
	}
	return len(names), nil
}

// rss is the resident set size of process pid in bytes (VmRSS).
func rss(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("memory of %d: %w", pid, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "VmRSS: %d kB", &kb); err == nil {
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("memory of %d: no VmRSS line in its status", pid)
}

// usage is one reading of a process: its descriptors and resident memory.
type usage struct {
	FDs int
	RSS int64
}

func (u usage) String() string {
	return fmt.Sprintf("%d descriptors, %.1f MiB resident", u.FDs, float64(u.RSS)/MiB)
}

// readUsage reads both, failing the test when /proc cannot tell.
func readUsage(t *testing.T, pid int) usage {
	t.Helper()
	fds, err := fdCount(pid)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := rss(pid)
	if err != nil {
		t.Fatal(err)
	}
	return usage{FDs: fds, RSS: mem}
}

// samplePeriod is how often a sampler reads the node.
const samplePeriod = 20 * time.Millisecond

// sampler reads a process every samplePeriod and keeps the highest
// readings, so that a peak between two steps of a scenario is not missed.
// Its methods are safe for concurrent use.
type sampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	peak usage // the highest of each reading; mu must be held
	err  error // the first failed reading; mu must be held
}

// sample starts a sampler of pid; it stops at Stop or at the end of the
// test.
func sample(t *testing.T, pid int) *sampler {
	s := &sampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	t.Cleanup(func() { s.Stop() })
	return s
}

func (s *sampler) run() {
	defer close(s.done)
	tick := time.NewTicker(samplePeriod)
	defer tick.Stop()
	for {
		s.read()
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// read takes one reading; a process that has exited gives none.
func (s *sampler) read() {
	fds, err := fdCount(s.pid)
	mem, err2 := rss(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		err = err2
	}
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.peak.FDs = max(s.peak.FDs, fds)
	s.peak.RSS = max(s.peak.RSS, mem)
}

// Peak is the highest readings so far, with one taken now, or the first
// reading that failed.
func (s *sampler) Peak() (usage, error) {
	s.read()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.err
}

// Final stops the sampling and returns the highest readings, with one
// taken now; it fails the test when a reading failed.
func (s *sampler) Final(t *testing.T) usage {
	t.Helper()
	peak, err := s.Peak()
	s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	return peak
}

// Stop stops the sampling; later calls do nothing.
func (s *sampler) Stop() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// needNoFile makes sure this test process may hold n descriptors: it
// raises its soft limit (Go has already raised it to the hard limit at
// start), and the hard limit too when it may (as root). It fails the test,
// saying what to do, when it cannot.
func needNoFile(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("descriptor limit: %v", err)
	}
	if lim.Cur >= n {
		return
	}
	want := syscall.Rlimit{Cur: n, Max: max(lim.Max, n)}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		t.Fatalf("this scenario holds %d descriptors; the test process may hold %d (hard limit %d) and cannot raise it (%v): "+
			"run it where ulimit -Hn is at least %d", n, lim.Cur, lim.Max, err, n)
	}
}

// fdSlack: once a flood is over, the node's descriptors must come back to
// within this of the baseline.
const fdSlack = 16

// settled waits until the node's descriptors are back within fdSlack of
// base, and fails the test when recoveryBound passes first; it returns
// its usage then.
func settled(t *testing.T, pid int, base usage) usage {
	t.Helper()
	start := time.Now()
	var now usage
	eventually(t, "descriptors back near the baseline", recoveryBound, func() error {
		now = readUsage(t, pid)
		if now.FDs > base.FDs+fdSlack {
			return fmt.Errorf("%s, baseline %s", now, base)
		}
		return nil
	})
	t.Logf("descriptors back near the baseline after %v: %s", time.Since(start).Round(time.Millisecond), now)
	return now
}
