package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
)

// fleet is the state of a check over many configs.
type fleet struct {
	e       *env
	detail  io.Writer       // each config's own lines: stdout, or io.Discard with --summary
	summary bool            // one line per config on stdout
	seen    map[string]bool // the configs checked, by absolute path
	loaded  int
	refused int
	empty   int            // targets that named no config
	reasons map[string]int // configs refused for each reason
}

// checkFleet checks every config the targets name, each once and in
// order: a --config or file argument is checked as checkOne checks it; a
// --cbdir, its config (no embedded default here); a directory argument,
// each node config below it (see nodeConfigs). Then it prints the summary
// line, and with blockers the count of configs refused for each reason.
// The status is 0 only when every config loads and each target named one.
func checkFleet(e *env, targets []target, summary, blockers bool) int {
	fl := &fleet{e: e, detail: e.stdout, summary: summary, seen: map[string]bool{}, reasons: map[string]int{}}
	if summary {
		fl.detail = io.Discard
	}
	for _, t := range targets {
		fl.checkTarget(t)
	}
	fl.printSummary(e.stdout)
	if blockers {
		fl.printBlockers(e.stdout)
	}
	if fl.refused > 0 || fl.empty > 0 {
		return exitError
	}
	return exitOK
}

func (fl *fleet) checkTarget(t target) {
	switch t.kind {
	case targetFile:
		fl.checkFile(t.path)
	case targetCBDir:
		fl.checkCBDir(t.path)
	case targetPath:
		fl.checkPath(t.path)
	}
}

// checkCBDir checks the config of the node directory dir.
func (fl *fleet) checkCBDir(dir string) {
	path, err := (&configFlags{dir: dir}).find()
	switch {
	case err != nil:
		fl.noConfig(dir, err)
	case path == "":
		fl.noConfig(dir, errors.New("no config.yaml, config.yml or config.json"))
	default:
		fl.checkFile(path)
	}
}

// checkPath checks the file p, or every node config below the directory p.
func (fl *fleet) checkPath(p string) {
	fi, err := os.Stat(p)
	if err != nil {
		fl.noConfig(p, err)
		return
	}
	if !fi.IsDir() {
		fl.checkFile(p)
		return
	}
	files, errs := nodeConfigs(p)
	for _, err := range errs {
		fl.noConfig(p, err)
	}
	if len(files) == 0 && len(errs) == 0 {
		fl.noConfig(p, errors.New("no node config found: no config*.json, *.yaml or *.yml in a .crossbar directory below it"))
	}
	for _, f := range files {
		fl.checkFile(f)
	}
}

// noConfig reports a target that names no config to check. The message
// of a *fs.PathError is given with its own path.
func (fl *fleet) noConfig(name string, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		name, err = pe.Path, pe.Err
	}
	fmt.Fprintf(fl.e.stdout, "%s: %v\n", name, err)
	fl.empty++
}

// checkFile checks the config file path, unless it was checked already.
func (fl *fleet) checkFile(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		if fl.seen[abs] {
			return
		}
		fl.seen[abs] = true
	}
	cf := configFlags{file: path}
	l, err := cf.load(fl.e.lookupEnv)
	fl.count(path, report(fl.detail, l, path, err))
}

// count records the outcome of one config, err nil when it loads.
func (fl *fleet) count(path string, err error) {
	if err == nil {
		fl.loaded++
		if fl.summary {
			fmt.Fprintf(fl.e.stdout, "ok: %s\n", path)
		}
		return
	}
	fl.refused++
	ps := problemsOf(err)
	for _, r := range uniqueReasons(ps) {
		fl.reasons[r]++
	}
	if fl.summary {
		more := ""
		if len(ps) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(ps)-1)
		}
		fmt.Fprintf(fl.e.stdout, "refused: %s: %s%s\n", path, ps[0].text, more)
	}
}

// printSummary prints "checked N configs: X load, Y refused", and how many
// targets named no config, if any.
func (fl *fleet) printSummary(w io.Writer) {
	fmt.Fprintf(w, "checked %s: %d load, %d refused", plural(fl.loaded+fl.refused, "config"), fl.loaded, fl.refused)
	if fl.empty > 0 {
		fmt.Fprintf(w, "; %s without a config", plural(fl.empty, "argument"))
	}
	fmt.Fprintln(w)
}

// printBlockers prints the count of configs refused for each reason, most
// frequent first.
func (fl *fleet) printBlockers(w io.Writer) {
	if len(fl.reasons) == 0 {
		return
	}
	fmt.Fprintln(w, "refused for (configs per reason; a config may have several):")
	reasons := slices.SortedFunc(maps.Keys(fl.reasons), func(a, b string) int {
		return cmp.Or(cmp.Compare(fl.reasons[b], fl.reasons[a]), cmp.Compare(a, b))
	})
	for _, r := range reasons {
		fmt.Fprintf(w, "%6d  %s\n", fl.reasons[r], r)
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// problem is one reason a config is refused: its text as check prints it,
// and the reason it counts under (see reasonOf).
type problem struct {
	text, reason string
}

// problemsOf lists the problems of a config's error: each of a
// config.Errors, or a file that cannot be read.
func problemsOf(err error) []problem {
	var es config.Errors
	if !errors.As(err, &es) {
		return []problem{{err.Error(), "the file cannot be read"}}
	}
	ps := make([]problem, len(es))
	for i, e := range es {
		bare := *e
		bare.File = "" // the summary line names the file already
		ps[i] = problem{bare.Error(), reasonOf(e)}
	}
	return ps
}

// uniqueReasons is the reasons of ps, each once.
func uniqueReasons(ps []problem) []string {
	var rs []string
	for _, p := range ps {
		if !slices.Contains(rs, p.reason) {
			rs = append(rs, p.reason)
		}
	}
	return rs
}

// reasonOf is what a problem says without where it is, so that configs
// refused for the same reason count together: a "not supported" message as
// it is (it names the feature), else the key and the message ("trace:
// unknown key").
func reasonOf(e *config.FieldError) string {
	switch {
	case e.Path == "":
		return "the document does not parse"
	case strings.HasPrefix(e.Msg, "not supported"):
		return e.Msg
	}
	return lastKey(e.Path) + ": " + e.Msg
}

// lastKey is the last member name of a JSON path, without its indexes:
// "realm" for `principals["a@b.c"].realm`, "paths" for `paths["/"]`,
// "workers" for "workers[1]".
func lastKey(path string) string {
	for strings.HasSuffix(path, "]") {
		i := strings.LastIndex(path, "[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return path[strings.LastIndex(path, ".")+1:]
}
