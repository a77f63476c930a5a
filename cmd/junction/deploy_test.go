package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var deployDir = filepath.Join("..", "..", "deploy")

func readDeploy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unit is a systemd unit file: section -> key -> values, in order.
type unit map[string]map[string][]string

// parseUnit reads the sections and keys of a unit file (comments, blank
// lines and "\" continuations as systemd reads them).
func parseUnit(text string) (unit, error) {
	u := unit{}
	var section string
	text = strings.ReplaceAll(text, "\\\n", " ")
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		case section == "":
			return nil, fmt.Errorf("line %d: %q before any section", n+1, line)
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: %q is not KEY=VALUE", n+1, line)
			}
			k = strings.TrimSpace(k)
			u[section][k] = append(u[section][k], strings.TrimSpace(v))
		}
	}
	return u, nil
}

// last is the effective value of a key: its last assignment.
func (u unit) last(section, key string) string {
	vs := u[section][key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// unitProblems says what the Junction unit lacks of what
// docs/operations.md promises.
func unitProblems(u unit) []string {
	var p []string
	want := func(section, key string, ok func(string) bool, what string) {
		if v := u.last(section, key); !ok(v) {
			p = append(p, fmt.Sprintf("[%s] %s=%q: want %s", section, key, v, what))
		}
	}
	is := func(want string) func(string) bool { return func(v string) bool { return v == want } }
	set := func(v string) bool { return v != "" }
	want("Service", "User", func(v string) bool { return v != "" && v != "root" && v != "0" }, "a dedicated user")
	want("Service", "NoNewPrivileges", is("yes"), "yes")
	want("Service", "ProtectSystem", is("strict"), "strict")
	want("Service", "ExecReload", is("/bin/kill -HUP $MAINPID"), "SIGHUP to the node")
	want("Service", "Restart", func(v string) bool { return v == "on-failure" || v == "always" }, "a restart policy")
	want("Service", "StateDirectory", set, "a state directory")
	want("Service", "ConfigurationDirectory", set, "a config directory")
	cbdir := "--cbdir /etc/" + u.last("Service", "ConfigurationDirectory")
	want("Service", "ExecStart", func(v string) bool {
		return strings.HasPrefix(v, "/usr/local/bin/junction start ") && strings.HasSuffix(v, cbdir)
	}, "junction start "+cbdir)
	want("Service", "ExecStartPre", func(v string) bool { return v == "/usr/local/bin/junction check "+cbdir }, "junction check "+cbdir)
	want("Service", "KillMode", is("mixed"), "mixed (the node stops its guest workers)")
	want("Install", "WantedBy", is("multi-user.target"), "multi-user.target")
	return p
}

func TestSystemdUnit(t *testing.T) {
	text := readDeploy(t, "junction.service")
	u, err := parseUnit(text)
	if err != nil {
		t.Fatal(err)
	}
	if p := unitProblems(u); len(p) > 0 {
		t.Errorf("deploy/junction.service:\n%s", strings.Join(p, "\n"))
	}
	systemdVerify(t, text)
}

// systemdVerify runs systemd-analyze verify on the unit, with ExecStart's
// binary replaced by an executable that exists here (verify checks that).
// Verify exits 0 even on an unknown key or a bad value, so any output is
// a failure. Without systemd-analyze, TestSystemdUnit has checked the keys.
func systemdVerify(t *testing.T, text string) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Logf("systemd-analyze not installed: the unit's keys are checked, not verified by systemd")
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "junction.service")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(text, "/usr/local/bin/junction", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestUnitProblems: each promise, broken, is reported.
func TestUnitProblems(t *testing.T) {
	good := readDeploy(t, "junction.service")
	tests := []mutation{
		{"User=junction", "User=root", "User="},
		{"User=junction", "", "User="},
		{"NoNewPrivileges=yes", "NoNewPrivileges=no", "NoNewPrivileges="},
		{"ProtectSystem=strict", "ProtectSystem=full", "ProtectSystem="},
		{"ExecReload=/bin/kill -HUP $MAINPID", "", "ExecReload="},
		{"Restart=on-failure", "Restart=no", "Restart="},
		{"StateDirectory=junction", "", "StateDirectory="},
		{"ConfigurationDirectory=junction", "ConfigurationDirectory=router", "ExecStart="},
		{"ExecStartPre=/usr/local/bin/junction check", "ExecStartPre=/usr/local/bin/junction start", "ExecStartPre="},
		{"KillMode=mixed", "", "KillMode="},
		{"WantedBy=multi-user.target", "", "WantedBy="},
	}
	checkMutations(t, good, tests, func(text string) ([]string, error) {
		u, err := parseUnit(text)
		return unitProblems(u), err
	})
}

// instruction is one Dockerfile instruction: its keyword (upper case) and
// the rest of its line, continuations joined.
type instruction struct{ cmd, args string }

// stage is a FROM and the instructions after it.
type stage struct {
	from, name string
	ins        []instruction
}

// parseDockerfile splits a Dockerfile into stages.
func parseDockerfile(text string) ([]stage, error) {
	var stages []stage
	text = regexp.MustCompile(`\\\n(\s*#[^\n]*\n)*`).ReplaceAllString(text, " ")
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		cmd, args, _ := strings.Cut(line, " ")
		in := instruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			if len(f) == 0 {
				return nil, fmt.Errorf("line %d: FROM without an image", n+1)
			}
			s := stage{from: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) == 0 {
			if in.cmd == "ARG" {
				continue
			}
			return nil, fmt.Errorf("line %d: %s before FROM", n+1, in.cmd)
		}
		stages[len(stages)-1].ins = append(stages[len(stages)-1].ins, in)
	}
	return stages, nil
}

// find returns the last instruction cmd of s and whether there is one.
func (s stage) find(cmd string) (instruction, bool) {
	for i := len(s.ins) - 1; i >= 0; i-- {
		if s.ins[i].cmd == cmd {
			return s.ins[i], true
		}
	}
	return instruction{}, false
}

// dockerProblems says what the Dockerfile lacks of what
// docs/operations.md promises.
func dockerProblems(stages []stage) []string {
	if len(stages) < 2 {
		return []string{"want a multi-stage build (a build stage and the final image)"}
	}
	var p []string
	build, final := stages[0], stages[len(stages)-1]
	if !slices.ContainsFunc(build.ins, func(in instruction) bool { return in.cmd == "RUN" && strings.HasPrefix(in.args, "make build ") }) {
		p = append(p, "the build stage does not RUN make build (the static flags)")
	}
	if !strings.HasPrefix(final.from, "gcr.io/distroless/static") && final.from != "scratch" {
		p = append(p, "final stage FROM "+final.from+": want distroless/static or scratch")
	}
	if in, ok := final.find("COPY"); !ok || !strings.HasPrefix(in.args, "--from="+build.name+" /src/bin/junction ") {
		p = append(p, "the final stage does not COPY bin/junction from the build stage")
	}
	if in, ok := final.find("USER"); !ok || slices.Contains([]string{"", "root", "0"}, strings.Split(in.args, ":")[0]) {
		p = append(p, "the final stage runs as root: want a non-root USER")
	}
	in, ok := final.find("HEALTHCHECK")
	if !ok || !strings.Contains(in.args, `CMD ["/usr/local/bin/junction", "health", "http://127.0.0.1:8080/healthz"]`) {
		p = append(p, "no HEALTHCHECK running junction health http://127.0.0.1:8080/healthz")
	}
	if in, ok := final.find("ENTRYPOINT"); !ok || in.args != `["/usr/local/bin/junction"]` {
		p = append(p, "the ENTRYPOINT is not the junction binary")
	}
	return p
}

func TestDockerfile(t *testing.T) {
	stages, err := parseDockerfile(readDeploy(t, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	if p := dockerProblems(stages); len(p) > 0 {
		t.Errorf("deploy/Dockerfile:\n%s", strings.Join(p, "\n"))
	}
	ignore := strings.Fields(readDeploy(t, "Dockerfile.dockerignore"))
	if !slices.Contains(ignore, ".git") {
		t.Errorf("deploy/Dockerfile.dockerignore does not exclude .git")
	}
}

// TestDockerProblems: each promise, broken, is reported.
func TestDockerProblems(t *testing.T) {
	good := readDeploy(t, "Dockerfile")
	tests := []mutation{
		{"RUN make build", "RUN go build", "make build"},
		{"FROM gcr.io/distroless/static-debian12:nonroot", "FROM debian:12", "final stage FROM"},
		{"USER 65532:65532", "USER root", "non-root USER"},
		{"USER 65532:65532", "USER 0:0", "non-root USER"},
		{"USER 65532:65532", "", "non-root USER"},
		{"HEALTHCHECK --interval", "# HEALTHCHECK --interval", "HEALTHCHECK"},
		{"http://127.0.0.1:8080/healthz", "http://127.0.0.1:8080/readyz", "HEALTHCHECK"},
		{"COPY --from=build", "COPY --from=other", "COPY bin/junction"},
		{`ENTRYPOINT ["/usr/local/bin/junction"]`, `ENTRYPOINT ["/bin/sh"]`, "ENTRYPOINT"},
	}
	checkMutations(t, good, tests, func(text string) ([]string, error) {
		stages, err := parseDockerfile(text)
		return dockerProblems(stages), err
	})
	stages, err := parseDockerfile("FROM scratch\nCOPY junction /\n")
	if err != nil {
		t.Fatal(err)
	}
	if p := dockerProblems(stages); len(p) != 1 || !strings.Contains(p[0], "multi-stage") {
		t.Errorf("a one-stage Dockerfile: problems %q", p)
	}
}

// mutation replaces old by new in a good file; problems must then name
// want.
type mutation struct{ old, new, want string }

// checkMutations checks that problems finds each mutation of good.
func checkMutations(t *testing.T, good string, tests []mutation, problems func(string) ([]string, error)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.old+" -> "+tt.new, func(t *testing.T) {
			if !strings.Contains(good, tt.old) {
				t.Fatalf("the file has no %q", tt.old)
			}
			p, err := problems(strings.Replace(good, tt.old, tt.new, 1))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(p, func(s string) bool { return strings.Contains(s, tt.want) }) {
				t.Errorf("problems %q, want one about %s", p, tt.want)
			}
		})
	}
}
