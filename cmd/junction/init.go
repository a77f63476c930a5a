package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/junction-wamp/junction/internal/config"
)

// runInit writes DIR/config.json from the embedded default, creating DIR
// (--cbdir, else CROSSBAR_DIR, else .crossbar); it never overwrites an
// existing file.
func runInit(e *env, args []string) int {
	fset := flagSet(e, "init", "[--cbdir DIR]")
	var cf configFlags
	fset.StringVar(&cf.dir, "cbdir", "", dirUsage)
	if code, ok := parseFlags(fset, args); !ok {
		return code
	}
	cf.resolveDir(e.lookupEnv)
	dir := cf.dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(e.stderr, "junction init: %v\n", err)
		return exitError
	}
	path := filepath.Join(dir, "config.json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(e.stderr, "junction init: %s already exists; not overwriting it\n", path)
		return exitError
	}
	if err == nil {
		_, err = f.Write(config.DefaultJSON)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "junction init: %v\n", err)
		return exitError
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", path)
	return exitOK
}
