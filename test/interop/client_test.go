package interop_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// pythonPath is the interpreter the Debian python3-* packages install into;
// the python3 first on the PATH may be another one without them.
const pythonPath = "/usr/bin/python3"

// processTimeout bounds one client process; the scripts give up by
// themselves after scriptTimeout.
const (
	processTimeout = 40 * time.Second
	scriptTimeout  = "20"
)

// procSlots bounds the client processes running at once, whatever
// -test.parallel says: each takes a slot before it starts and gives it back
// when it has exited. Python and Node start-up is CPU-bound, so more than a
// few at once on a small machine only makes each slower. A cross-client
// callee holds its slot while it waits for its caller; the bound is above
// the number of such callees, so the callers always get a slot.
var procSlots = make(chan struct{}, 4)

// client is one of the WAMP client libraries under test.
type client struct {
	name string   // "js", "python" or "wampy"
	argv []string // the command that runs its scenario script
}

var (
	jsClient    = client{name: "js", argv: []string{"node", "js/scenario.js"}}
	pyClient    = client{name: "python", argv: []string{pythonPath, "py/scenario.py"}}
	wampyClient = client{name: "wampy", argv: []string{"node", "js/wampy-scenario.mjs"}} // WebSocket only
	clients     = []client{jsClient, pyClient, wampyClient}
)

// scenarioArgs are a scenario script's command-line arguments.
type scenarioArgs struct {
	url        string
	realm      string
	serializer string
	authmethod string
	authid     string
	secret     string
	role       string // "" means "all"
	prefix     string // "" lets the script choose a unique one
	expectFail bool
	// payloadCodec: send and receive every payload in passthru mode
	// (autobahn-python's --payload-codec).
	payloadCodec bool
}

func (a scenarioArgs) argv() []string {
	args := []string{"--url", a.url, "--realm", a.realm, "--serializer", a.serializer,
		"--authmethod", a.authmethod, "--timeout", scriptTimeout}
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	add("--authid", a.authid)
	add("--secret", a.secret)
	add("--role", a.role)
	add("--prefix", a.prefix)
	if a.expectFail {
		args = append(args, "--expect-fail")
	}
	if a.payloadCodec {
		args = append(args, "--payload-codec")
	}
	return args
}

// result is the JSON line a scenario script prints last.
type result struct {
	OK          bool           `json:"ok"`
	Error       string         `json:"error"`
	Client      string         `json:"client"`
	Role        string         `json:"role"`
	Serializer  string         `json:"serializer"`
	AuthID      string         `json:"authid"`
	AuthRole    string         `json:"authrole"`
	AuthMethod  string         `json:"authmethod"`
	Refused     bool           `json:"refused"`
	Reason      string         `json:"reason"`
	Invocations map[string]int `json:"invocations"`
	Goodbye     string         `json:"goodbye"`    // the reason of the router's GOODBYE reply
	Everything  string         `json:"everything"` // role everything: "subscribed" or the refusal's URI
	Decoded     int            `json:"decoded"`    // with a payload codec: the passthru payloads it decoded
}

// process is a running scenario script.
type process struct {
	c      client
	cmd    *exec.Cmd
	cancel context.CancelFunc
	lines  chan string // stdout, line by line; closed at EOF
	stderr bytes.Buffer
	stdout []string // the lines read so far, for reports
	done   func()   // gives the process's slot back; idempotent
}

// start starts c's scenario script with args.
func start(t *testing.T, c client, args scenarioArgs) *process {
	t.Helper()
	procSlots <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), processTimeout)
	argv := append(append([]string(nil), c.argv...), args.argv()...)
	p := &process{c: c, cancel: cancel, lines: make(chan string, 16)}
	p.done = sync.OnceFunc(func() { <-procSlots })
	p.cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	p.cmd.Stderr = &p.stderr
	p.cmd.WaitDelay = 5 * time.Second
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		cancel()
		p.done()
		t.Fatalf("%s: stdout pipe: %v", c.name, err)
	}
	if err := p.cmd.Start(); err != nil {
		cancel()
		p.done()
		t.Fatalf("%s: start %q: %v (run scripts/install-test-deps.sh)", c.name, argv, err)
	}
	go scanLines(out, p.lines)
	t.Cleanup(func() { p.stop() })
	return p
}

func scanLines(r io.Reader, lines chan<- string) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines <- sc.Text()
	}
	_, _ = io.Copy(io.Discard, r) // a line too long for the scanner: drain to EOF
}

// stop kills the process if it still runs and waits for it. Idempotent.
func (p *process) stop() {
	p.cancel()
	for range p.lines { // drain, so that Wait can finish
	}
	_ = p.cmd.Wait()
	p.done()
}

// waitReady reads stdout until the script says {"ready": true}.
func (p *process) waitReady(t *testing.T) {
	t.Helper()
	for line := range p.lines {
		p.stdout = append(p.stdout, line)
		var r struct {
			Ready bool `json:"ready"`
		}
		if json.Unmarshal([]byte(line), &r) == nil && r.Ready {
			return
		}
	}
	p.stop()
	t.Fatalf("%s: exited before it was ready: %v\n%s", p.c.name, p.cmd.ProcessState, p.report())
}

// wait waits for the process to exit and returns its result line; it fails
// the test, with the script's stdout and stderr, unless the process exited 0
// with {"ok": true}.
func (p *process) wait(t *testing.T) result {
	t.Helper()
	for line := range p.lines {
		p.stdout = append(p.stdout, line)
	}
	err := p.cmd.Wait()
	p.cancel()
	p.done()
	r, perr := p.result()
	switch {
	case err != nil:
		t.Fatalf("%s: %v\n%s", p.c.name, describeExit(err), p.report())
	case perr != nil:
		t.Fatalf("%s: %v\n%s", p.c.name, perr, p.report())
	case !r.OK:
		t.Fatalf("%s: exited 0 but said %q\n%s", p.c.name, r.Error, p.report())
	}
	return r
}

func describeExit(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("killed after %s", processTimeout)
	}
	return "failed: " + err.Error()
}

// result parses the last stdout line that is a JSON result.
func (p *process) result() (result, error) {
	for i := len(p.stdout) - 1; i >= 0; i-- {
		var r result
		if json.Unmarshal([]byte(p.stdout[i]), &r) == nil && (r.OK || r.Error != "") {
			return r, nil
		}
	}
	return result{}, errors.New("no result line on stdout")
}

func (p *process) report() string {
	return fmt.Sprintf("command: %s\nstdout:\n%s\nstderr:\n%s",
		strings.Join(p.cmd.Args, " "), strings.Join(p.stdout, "\n"), p.stderr.String())
}

// run runs c's scenario script to completion.
func run(t *testing.T, c client, args scenarioArgs) result {
	t.Helper()
	return start(t, c, args).wait(t)
}
