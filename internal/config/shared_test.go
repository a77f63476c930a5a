package config

import (
	"strings"
	"testing"
)

// sharedWorker is a router worker with a web transport on port 8080,
// "shared" as given, and the given extra members.
func sharedWorker(shared bool, members ...string) string {
	s := "false"
	if shared {
		s = "true"
	}
	t := `"transports": [{"type": "web", "endpoint": {"type": "tcp", "port": 8080, "shared": ` + s + `}, "paths": {"/": {"type": "json", "value": 1}}}]`
	return router(append([]string{t}, members...)...)
}

// TestSharedWorkers: identical workers sharing a port run as one, with a
// warning; different ones are an error that says how they differ.
func TestSharedWorkers(t *testing.T) {
	tests := []struct {
		name    string
		workers []string
		runsAs  []string // RunsAs of each worker
		err     string   // the one error's path and text, "" for none
		warn    string   // a warning's text
	}{
		{"identical", []string{sharedWorker(true), sharedWorker(true), sharedWorker(true)},
			[]string{"", "workers[0]", "workers[0]"}, "", "workers[1]: identical to workers[0] and sharing its port: runs as one router with it"},
		{"placement options and id differ", []string{
			sharedWorker(true, `"id": "worker1"`, `"options": {"cpu_affinity": [0], "title": "a"}`),
			sharedWorker(true, `"id": "worker2"`, `"options": {"cpu_affinity": [1]}`)},
			[]string{"", "workers[0]"}, "", "workers[1]: identical to workers[0]"},
		{"realms differ", []string{sharedWorker(true), strings.Replace(sharedWorker(true), "realm1", "realm2", 1)},
			nil, `workers[1].transports[0].endpoint: shares a port with workers[0] ("shared": true), but the workers differ in "realms"`, ""},
		{"options differ", []string{sharedWorker(true), sharedWorker(true, `"options": {"env": {"inherit": false}}`)},
			nil, `workers[1].transports[0].endpoint: shares a port with workers[0] ("shared": true), but the workers differ in "options.env"`, ""},
		{"not shared", []string{sharedWorker(false), sharedWorker(false)},
			nil, "workers[1].transports[0].endpoint: listens where workers[0].transports[0] does", ""},
		{"one shared", []string{sharedWorker(true), sharedWorker(false)},
			nil, "workers[1].transports[0].endpoint: listens where workers[0].transports[0] does", ""},
		{"disabled", []string{sharedWorker(true), sharedWorker(true, `"options": {"disabled": true}`)},
			[]string{"", ""}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns, errs := parseTest(t, top(tt.workers...), JSON)
			if tt.err != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.err) {
					t.Fatalf("got %v,\nwant one error %s", errs, tt.err)
				}
				return
			}
			if errs != nil {
				t.Fatalf("errors: %v", errs)
			}
			for i, want := range tt.runsAs {
				if got := c.Workers[i].(*RouterWorker).RunsAs; got != want {
					t.Errorf("workers[%d].RunsAs %q, want %q", i, got, want)
				}
			}
			if !strings.Contains(warningsText(warns), tt.warn) {
				t.Errorf("warnings:\n%s\nwant %s", warningsText(warns), tt.warn)
			}
		})
	}
}

// TestSharedTransportsOfOneWorker: "shared" does not let two transports
// of one worker share a port.
func TestSharedTransportsOfOneWorker(t *testing.T) {
	e := `"endpoint": {"type": "tcp", "port": 8080, "shared": true}`
	_, _, errs := parseTest(t, transports(`{"type": "websocket", `+e+`}`, `{"type": "rawsocket", `+e+`}`), JSON)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `listens where workers[0].transports[0] does ("shared" lets other processes share a port`) {
		t.Fatalf("got %v", errs)
	}
}
