package docs

import (
	"maps"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/node"
)

// nodeModules is where scripts/install-test-deps.sh installs autobahn-js.
const nodeModules = "../test/interop/js/node_modules"

// guest makes a guest worker of an example run from docs/examples, as
// "junction start --config docs/examples/NAME" runs it (the test node's
// directory is a temporary one): its working directory and watched
// directories resolved against docs/examples, and NODE_PATH pointing at
// the autobahn-js of the tests.
func (rw *rewriter) guest(g *config.GuestWorker) {
	examples, err := filepath.Abs("examples")
	if err != nil {
		rw.t.Fatal(err)
	}
	g.Options.Workdir = filepath.Join(examples, g.Options.Workdir)
	if w := g.Options.Watch; w != nil {
		for i, d := range w.Directories {
			w.Directories[i] = filepath.Join(examples, d)
		}
	}
	modules, err := filepath.Abs(nodeModules)
	if err != nil {
		rw.t.Fatal(err)
	}
	g.Options.Env.Vars = maps.Clone(g.Options.Env.Vars)
	if g.Options.Env.Vars == nil {
		g.Options.Env.Vars = map[string]string{}
	}
	g.Options.Env.Vars["NODE_PATH"] = modules
}

// connectGuest points the addresses of rewritten TCP transports
// ("127.0.0.1:8080", "localhost:8080") in a guest's arguments, variables
// and stdin value at the transports' real addresses.
func (rw *rewriter) connectGuest(g *config.GuestWorker, ls []node.Listener) {
	var pairs []string
	for port, path := range rw.ports {
		host, real := rw.listener(path, ls)
		to := net.JoinHostPort(host, strconv.Itoa(real))
		pairs = append(pairs, "127.0.0.1:"+strconv.Itoa(port), to, "localhost:"+strconv.Itoa(port), to)
	}
	r := strings.NewReplacer(pairs...)
	for i, a := range g.Arguments {
		g.Arguments[i] = r.Replace(a)
	}
	for k, v := range g.Options.Env.Vars {
		g.Options.Env.Vars[k] = r.Replace(v)
	}
	if s := g.Options.Stdin; s != nil {
		s.Value = replaceDeep(r, s.Value)
	}
}

// replaceDeep applies r to every string of a JSON value.
func replaceDeep(r *strings.Replacer, v any) any {
	switch v := v.(type) {
	case string:
		return r.Replace(v)
	case map[string]any:
		for k, e := range v {
			v[k] = replaceDeep(r, e)
		}
	case []any:
		for i, e := range v {
			v[i] = replaceDeep(r, e)
		}
	}
	return v
}
