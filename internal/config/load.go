package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Format is a configuration file's syntax.
type Format int

// The formats.
const (
	JSON Format = iota
	YAML
)

// String returns "json" or "yaml".
func (f Format) String() string {
	if f == YAML {
		return "yaml"
	}
	return "json"
}

// FormatOf returns the format a file name implies: YAML for ".yaml" and
// ".yml", JSON otherwise.
func FormatOf(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return YAML
	}
	return JSON
}

// Loader reads configurations. The zero value reads the process
// environment. A Loader is safe for concurrent use if LookupEnv is.
type Loader struct {
	// LookupEnv looks up the variables that ${NAME} strings refer to.
	// Nil means os.LookupEnv.
	LookupEnv func(name string) (string, bool)
}

// Load reads the configuration file at path (see FormatOf) with the process
// environment. See Loader.Parse.
func Load(path string) (*Config, []Warning, error) { return Loader{}.Load(path) }

// Parse decodes a configuration with the process environment. See
// Loader.Parse.
func Parse(data []byte, format Format) (*Config, []Warning, error) {
	return Loader{}.Parse(data, format)
}

// Load reads the configuration file at path (see FormatOf). A syntax
// error names the file (FieldError.File).
func (l Loader) Load(path string) (*Config, []Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	return l.parse(data, FormatOf(path), path)
}

// Parse decodes, completes with defaults and validates a configuration. On
// success it returns the configuration and the warnings (keys accepted but
// without effect), sorted by path. Otherwise the error is an Errors listing
// every problem, sorted by path; the warnings are returned all the same, and
// the Config is nil. A syntax error is the only one then, at its line and
// column (FieldError.Line).
func (l Loader) Parse(data []byte, format Format) (*Config, []Warning, error) {
	return l.parse(data, format, "")
}

// parse is Parse of the file named file ("" for none).
func (l Loader) parse(data []byte, format Format, file string) (*Config, []Warning, error) {
	tree, syntaxErr := parseTree(data, format)
	if syntaxErr != nil {
		syntaxErr.File = file
		return nil, nil, Errors{syntaxErr}
	}
	env := l.LookupEnv
	if env == nil {
		env = os.LookupEnv
	}
	d := &decoder{env: env}
	c := d.config(tree)
	if len(d.errs) == 0 {
		// Cross-references are checked once every item decoded, so that
		// list indexes match the document's.
		c.check(d)
	}
	sortWarnings(d.warns)
	if len(d.errs) > 0 {
		sortErrors(d.errs)
		return nil, d.warns, d.errs
	}
	return c, d.warns, nil
}
