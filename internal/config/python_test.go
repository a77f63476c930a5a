package config

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestPythonComponentDecodes: a Python class component decodes with its
// extra as written (numbers exact, "${NAME}" substituted), the worker's
// runner options, and Crossbar's defaults.
func TestPythonComponentDecodes(t *testing.T) {
	doc := top(`{"type": "router", "options": {"python": "/usr/bin/python3", "pythonpath": ["..", "/opt/lib"],
		"env": {"inherit": ["HOME", "PATH"], "vars": {"MODE": "${SECRET}"}}}, ` + testRealms + `,
		"components": [{"type": "class", "classname": "app.session.Backend", "realm": "realm1",
			"extra": {"port": 8080, "big": 12345678901234567890, "nested": {"key": "${SECRET}"}, "list": [1.5, true, null]}}]}`)
	c, _ := mustParse(t, doc)
	w := c.Workers[0].(*RouterWorker)
	wantOpts := WorkerOptions{Python: "/usr/bin/python3", PythonPath: []string{"..", "/opt/lib"},
		Env: ProcessEnv{Inherit: []string{"HOME", "PATH"}, Vars: map[string]string{"MODE": "s3cr3t"}}}
	if !reflect.DeepEqual(w.Options, wantOpts) {
		t.Errorf("options %+v, want %+v", w.Options, wantOpts)
	}
	comp := w.Components[0]
	if !comp.Python() || comp.Class != "" || comp.Role != "anonymous" || comp.Classname != "app.session.Backend" {
		t.Errorf("component %+v: want a Python class with role anonymous", comp)
	}
	got, err := json.Marshal(comp.Extra)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"big":12345678901234567890,"list":[1.5,true,null],"nested":{"key":"s3cr3t"},"port":8080}`
	if string(got) != want {
		t.Errorf("extra %s, want %s", got, want)
	}
}

// TestPythonDefaults: without options, a worker's runner is python3 with
// the node's whole environment; a router component's role is anonymous; a
// Python component without extra has an empty one; the controller's
// trigger is shutdown_on_worker_exit; a container shuts down manually and
// restarts nothing.
func TestPythonDefaults(t *testing.T) {
	doc := `{"version": 2, "workers": [` + router(`"components": [{"type": "class", "classname": "app.Backend", "realm": "realm1"},
		{"type": "class", "classname": "router.adapter.rest.RESTCallee", "realm": "realm1", "extra": {"procedure": "p", "baseurl": ""}}]`) + `,
		{"type": "container", "components": [{"type": "class", "classname": "app.Backend", "realm": "realm1",
			"transport": {"type": "rawsocket", "endpoint": {"type": "unix", "path": "s"}}}]}]}`
	c, _ := mustParse(t, doc)
	r := c.Workers[0].(*RouterWorker)
	if r.Options.Python != DefaultPython || !reflect.DeepEqual(r.Options.Env, DefaultProcessEnv) || r.Options.PythonPath != nil {
		t.Errorf("options %+v: want the defaults", r.Options)
	}
	py, bridge := r.Components[0], r.Components[1]
	if py.Role != DefaultComponentRole || py.Extra == nil || len(py.Extra) != 0 || !py.Python() {
		t.Errorf("Python component %+v: want role anonymous and an empty extra", py)
	}
	if bridge.Role != DefaultComponentRole || bridge.Python() || bridge.Extra != nil {
		t.Errorf("bridge component %+v: want role anonymous, not Python, no raw extra", bridge)
	}
	if !reflect.DeepEqual(c.Controller.Shutdown, []string{ShutdownOnWorkerExit}) {
		t.Errorf("controller shutdown %v, want [shutdown_on_worker_exit]", c.Controller.Shutdown)
	}
	ctr := c.Workers[1].(*ContainerWorker)
	if ctr.Shutdown != ShutdownManual || ctr.Restart != RestartNever || ctr.Options.Python != DefaultPython {
		t.Errorf("container %+v: want shutdown-manual, restart-never, python3", ctr)
	}
}

// TestControllerShutdownForms: a list is taken as given (empty: no
// trigger), a string is a list of one.
func TestControllerShutdownForms(t *testing.T) {
	tests := []struct {
		shutdown string
		want     []string
	}{
		{`[]`, []string{}},
		{`"shutdown_on_last_worker_exit"`, []string{ShutdownOnLastWorkerExit}},
		{`["shutdown_on_worker_exit_with_error", "shutdown_on_shutdown_requested"]`, []string{ShutdownOnWorkerExitWithError, ShutdownOnShutdownRequested}},
	}
	for _, tt := range tests {
		c, _ := mustParse(t, `{"version": 2, "controller": {"options": {"shutdown": `+tt.shutdown+`}}}`)
		if !reflect.DeepEqual(c.Controller.Shutdown, tt.want) {
			t.Errorf("shutdown %s: got %#v, want %#v", tt.shutdown, c.Controller.Shutdown, tt.want)
		}
	}
}

// TestProcessEnvForms: "inherit" true, false or a list; "vars" over it.
func TestProcessEnvForms(t *testing.T) {
	tests := []struct {
		env  string
		want ProcessEnv
	}{
		{`{}`, ProcessEnv{InheritAll: true}},
		{`{"inherit": false}`, ProcessEnv{}},
		{`{"inherit": true, "vars": {"A": "1"}}`, ProcessEnv{InheritAll: true, Vars: map[string]string{"A": "1"}}},
		{`{"inherit": []}`, ProcessEnv{}},
	}
	for _, tt := range tests {
		c, _ := mustParse(t, top(router(`"options": {"env": `+tt.env+`}, "components": [`+pyComponent+`]`)))
		if got := c.Workers[0].(*RouterWorker).Options.Env; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("env %s: got %+v, want %+v", tt.env, got, tt.want)
		}
	}
}
