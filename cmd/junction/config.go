package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
)

// defaultDir is the node directory when neither --cbdir nor CROSSBAR_DIR
// is given, as Crossbar.
const defaultDir = ".crossbar"

// dirEnv is the environment variable that names the node directory when
// --cbdir is not given, as Crossbar's.
const dirEnv = "CROSSBAR_DIR"

// dirUsage describes --cbdir.
const dirUsage = "node directory (default $" + dirEnv + ", else " + defaultDir + ")"

// embedded names the embedded default config in messages.
const embedded = "(embedded default)"

// configFlags are --cbdir and --config.
type configFlags struct {
	dir, file string
	// dirFrom says who named dir: "--cbdir" or dirEnv, "" for the
	// default. A directory named explicitly must hold a config.
	dirFrom string
}

func (c *configFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dir, "cbdir", "", dirUsage)
	fs.StringVar(&c.file, "config", "", "config file (default DIR/config.yaml, config.yml or config.json; the embedded default when no DIR was given and .crossbar has none)")
}

// resolveDir completes dir once the flags are parsed: --cbdir if given,
// else CROSSBAR_DIR if set, else defaultDir.
func (c *configFlags) resolveDir(lookupEnv func(string) (string, bool)) {
	switch v, ok := lookupEnv(dirEnv); {
	case c.dir != "":
		c.dirFrom = "--cbdir"
	case ok && v != "":
		c.dir, c.dirFrom = v, dirEnv
	default:
		c.dir = defaultDir
	}
}

// dirError is a node directory named by --cbdir or CROSSBAR_DIR that does
// not hold a config: a usage error (exit 2), since running the embedded
// default there would serve a wide-open router the user did not ask for.
type dirError struct {
	from, dir, why string
}

func (e *dirError) Error() string {
	return fmt.Sprintf("%s %s %s (the embedded default config runs only when neither --cbdir nor %s is given)", e.from, e.dir, e.why, dirEnv)
}

// checkDir returns a *dirError when dir was named explicitly and is not
// a directory, nil otherwise.
func (c *configFlags) checkDir() error {
	if c.dirFrom == "" {
		return nil
	}
	fi, err := os.Stat(c.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &dirError{c.dirFrom, c.dir, "does not exist"}
	case err != nil:
		return fmt.Errorf("%s: %w", c.dirFrom, err)
	case !fi.IsDir():
		return &dirError{c.dirFrom, c.dir, "is not a directory"}
	}
	return nil
}

// loaded is a config and where it came from.
type loaded struct {
	cfg      *config.Config
	warnings []config.Warning
	source   string // the file, or embedded
	dir      string // the node directory: the file's folder, or --cbdir
}

// find returns the config file to read, or "" for the embedded default.
func (c *configFlags) find() (string, error) {
	if c.file != "" {
		return c.file, nil
	}
	for _, name := range []string{"config.yaml", "config.yml", "config.json"} {
		p := filepath.Join(c.dir, name)
		_, err := os.Stat(p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", nil
}

// load finds and loads the config. On a config error, l.source is set and
// err is the error (a config.Errors for problems in the file).
func (c *configFlags) load(lookupEnv func(string) (string, bool)) (l loaded, err error) {
	if c.file == "" {
		if err := c.checkDir(); err != nil {
			return l, err
		}
	}
	path, err := c.find()
	if err != nil {
		return l, err
	}
	if path == "" && c.dirFrom != "" {
		return l, &dirError{c.dirFrom, c.dir, "has no config.yaml, config.yml or config.json (junction init --cbdir " + c.dir + " writes one)"}
	}
	ld := config.Loader{LookupEnv: lookupEnv}
	if path == "" {
		l.source, l.dir = embedded, c.dir
		l.cfg, l.warnings, err = ld.Parse(config.DefaultJSON, config.JSON)
		return l, err
	}
	l.source, l.dir = path, filepath.Dir(path)
	l.cfg, l.warnings, err = ld.Load(path)
	return l, err
}

// printConfigError writes err, one problem per line at its JSON path,
// prefixed by source; a syntax error names its file itself, and is
// followed by its excerpt, indented.
func printConfigError(w io.Writer, source string, err error) {
	var es config.Errors
	if !errors.As(err, &es) {
		fmt.Fprintf(w, "%s: %v\n", source, err)
		return
	}
	for _, e := range es {
		if e.File != "" {
			fmt.Fprintln(w, e.Error())
		} else {
			fmt.Fprintf(w, "%s: %s\n", source, e.Error())
		}
		for line := range strings.Lines(e.Excerpt) {
			fmt.Fprintf(w, "    %s\n", strings.TrimSuffix(line, "\n"))
		}
	}
}

// logConfigError logs err, the error of loading or building the config of
// source, at error: one line per problem, a syntax error's excerpt as an
// attribute.
func logConfigError(log *slog.Logger, source string, err error) {
	var es config.Errors
	if !errors.As(err, &es) {
		log.Error("config", "source", source, "err", err)
		return
	}
	for _, e := range es {
		if e.Excerpt == "" {
			log.Error("config", "source", source, "err", e.Error())
		} else {
			log.Error("config", "source", source, "err", e.Error(), "excerpt", e.Excerpt)
		}
	}
}
