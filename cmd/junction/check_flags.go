package main

import "flag"

// targetKind is how a check target names its configs.
type targetKind int

const (
	targetCBDir targetKind = iota // --cbdir DIR: DIR/config.yaml, .yml or .json
	targetFile                    // --config FILE
	targetPath                    // an argument: a file, or a directory to search
)

// target is one --cbdir, --config or argument of check.
type target struct {
	kind targetKind
	path string
}

// checkFlags are the flags and arguments of check, the targets in
// command-line order.
type checkFlags struct {
	list     []target
	summary  bool
	blockers bool
}

// targetFlag is --cbdir or --config: each use adds a target.
type targetFlag struct {
	f    *checkFlags
	kind targetKind
}

func (t *targetFlag) String() string { return "" }

func (t *targetFlag) Set(s string) error {
	t.f.add(t.kind, s)
	return nil
}

func (f *checkFlags) add(kind targetKind, path string) {
	f.list = append(f.list, target{kind, path})
}

func (f *checkFlags) register(fs *flag.FlagSet) {
	fs.Var(&targetFlag{f, targetCBDir}, "cbdir", dirUsage+"; repeat to check several")
	fs.Var(&targetFlag{f, targetFile}, "config", "config file (default DIR/config.yaml, config.yml or config.json, else the embedded default); repeat to check several")
	fs.BoolVar(&f.summary, "summary", false, "print one line per config and the summary line, not each config's warnings and errors")
	fs.BoolVar(&f.blockers, "blockers", false, "after the summary line, count the configs refused for each reason")
}

// count is the number of targets of kind.
func (f *checkFlags) count(kind targetKind) int {
	n := 0
	for _, t := range f.list {
		if t.kind == kind {
			n++
		}
	}
	return n
}

// fleet reports whether the command checks a fleet rather than one config:
// an argument, a second --cbdir or --config, --summary or --blockers.
func (f *checkFlags) fleet() bool {
	return f.count(targetPath) > 0 || f.count(targetCBDir) > 1 || f.count(targetFile) > 1 || f.summary || f.blockers
}

// single is the one config to check when the command is not a fleet: the
// --config if given, else the --cbdir's config (resolved as start's).
func (f *checkFlags) single() configFlags {
	var cf configFlags
	for _, t := range f.list {
		if t.kind == targetCBDir {
			cf.dir = t.path
		} else {
			cf.file = t.path
		}
	}
	return cf
}

// parseInterleaved parses args whose flags and operands may mix ("a
// --summary b"), passing each operand to operand in order; after "--"
// everything is an operand. ok false means return code.
func parseInterleaved(fs *flag.FlagSet, args []string, operand func(string)) (code int, ok bool) {
	for {
		if code, ok := parseStatus(fs.Parse(args)); !ok {
			return code, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return exitOK, true
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			for _, a := range rest {
				operand(a)
			}
			return exitOK, true
		}
		operand(rest[0])
		args = rest[1:]
	}
}
