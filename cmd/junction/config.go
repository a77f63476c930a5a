package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/junction-wamp/junction/internal/config"
)

// defaultDir is the node directory when --cbdir is not given, as Crossbar.
const defaultDir = ".crossbar"

// embedded names the embedded default config in messages.
const embedded = "(embedded default)"

// configFlags are --cbdir and --config.
type configFlags struct {
	dir, file string
}

func (c *configFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.dir, "cbdir", defaultDir, "node directory")
	fs.StringVar(&c.file, "config", "", "config file (default DIR/config.yaml, config.yml or config.json, else the embedded default)")
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
	path, err := c.find()
	if err != nil {
		return l, err
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

// printConfigError writes err, one problem per line at its JSON path.
func printConfigError(w io.Writer, source string, err error) {
	var es config.Errors
	if !errors.As(err, &es) {
		fmt.Fprintf(w, "%s: %v\n", source, err)
		return
	}
	for _, e := range es {
		fmt.Fprintf(w, "%s: %s\n", source, e.Error())
	}
}
