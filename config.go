package junction

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
)

// Config is a node configuration, read and checked: Crossbar.io's format
// (version 2), as the junction command reads it (see docs/configuration.md).
// Make one with LoadConfig, ParseConfig or RouterConfig; the zero value
// is not usable. A Config may be started more than once, one node after
// the other (a second node on the same ports fails to listen while the
// first runs).
type Config struct {
	cfg      *config.Config
	warnings []config.Warning
	file     string // the file LoadConfig read, "" otherwise
	err      error  // RouterConfig's problem, returned by Start
}

// LoadConfig reads the configuration file at path, as "junction start
// --config path" does: YAML when the name ends in ".yaml" or ".yml", JSON
// otherwise; every string that is exactly "${NAME}" takes the value of
// environment variable NAME (a missing one is an error). Relative paths
// in the configuration (static directories, TLS files, Unix sockets) are
// resolved against the file's folder unless Options.Dir says otherwise.
// A configuration with problems gives a *ConfigError listing each at its
// JSON path; a file that cannot be read gives the error of os.ReadFile,
// wrapped.
func LoadConfig(path string) (*Config, error) {
	cfg, warns, err := config.Load(path)
	if err != nil {
		return nil, configError(path, err)
	}
	return &Config{cfg: cfg, warnings: warns, file: path}, nil
}

// ParseConfig reads a configuration from data: JSON when its first
// character (after white space) is "{", YAML otherwise, "${NAME}" strings
// taken from the environment as LoadConfig does. Relative paths are
// resolved against Options.Dir (the current directory by default). A
// configuration with problems gives a *ConfigError.
func ParseConfig(data []byte) (*Config, error) {
	format := config.YAML
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		format = config.JSON
	}
	cfg, warns, err := config.Parse(data, format)
	if err != nil {
		return nil, configError("", err)
	}
	return &Config{cfg: cfg, warnings: warns}, nil
}

// RouterConfig returns the configuration of an embedded router: one
// router worker with the given realms ("realm1" when none is given) and
// no transport, so that nothing listens and sessions join with
// Node.Join. Each realm has one role, "anonymous", allowed to call,
// register, publish and subscribe on every URI (caller and publisher not
// disclosed), as the realm of Crossbar's default configuration: every
// session that Join makes there may do everything. An invalid realm name
// makes Start fail with a *ConfigError naming it
// ("workers[0].realms[1].name: ...").
func RouterConfig(realms ...string) *Config {
	if len(realms) == 0 {
		realms = []string{"realm1"}
	}
	data, err := json.Marshal(routerDoc(realms))
	if err == nil {
		var c *Config
		if c, err = ParseConfig(data); err == nil {
			return c
		}
	}
	return &Config{err: err}
}

// routerDoc is RouterConfig's document.
func routerDoc(realms []string) map[string]any {
	allowAll := map[string]any{"uri": "", "match": "prefix",
		"allow": map[string]bool{"call": true, "register": true, "publish": true, "subscribe": true}}
	list := make([]any, len(realms))
	for i, name := range realms {
		list[i] = map[string]any{"name": name, "roles": []any{
			map[string]any{"name": "anonymous", "permissions": []any{allowAll}},
		}}
	}
	return map[string]any{"version": 2, "workers": []any{
		map[string]any{"type": "router", "realms": list},
	}}
}

// Warnings returns the keys the configuration holds that have no effect
// in Junction (options of Crossbar's Python workers, say), each as "path:
// message", sorted by path: what "junction check" prints as warnings.
func (c *Config) Warnings() []string {
	out := make([]string, len(c.warnings))
	for i, w := range c.warnings {
		out[i] = w.String()
	}
	return out
}

// dir is the node directory for opts: Options.Dir, else the folder of the
// file LoadConfig read.
func (c *Config) dir(opts Options) string {
	if opts.Dir != "" || c.file == "" {
		return opts.Dir
	}
	return filepath.Dir(c.file)
}

// ConfigError is a configuration with problems: every problem found, not
// only the first, sorted by JSON path. LoadConfig and ParseConfig return
// it for what the file says, Start for what the node cannot build from it
// (a TLS file that does not load, a static directory that is not one).
type ConfigError struct {
	Problems []ConfigProblem
}

// ConfigProblem is one problem of a configuration.
type ConfigProblem struct {
	// File is the configuration file, when LoadConfig read one.
	File string
	// Path is the JSON path of the value at fault, such as
	// "workers[0].transports[1].endpoint.port"; "" for a syntax error.
	Path string
	// Message says what is wrong.
	Message string
	// Line and Column place a syntax error, each from 1 (0 when the
	// parser does not say; YAML's gives no column).
	Line, Column int
}

// Error lists the problems, one per line.
func (e *ConfigError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// String returns the problem as "junction check" prints it: "file: path:
// message", or "file:line:column: message" for a syntax error.
func (p ConfigProblem) String() string {
	fe := config.FieldError{Path: p.Path, Msg: p.Message, File: p.File, Line: p.Line, Column: p.Column}
	if p.Line > 0 || p.File == "" {
		return fe.Error() // a syntax error names its file itself
	}
	return p.File + ": " + fe.Error()
}

// configError translates the config.Errors in err into a *ConfigError
// whose problems name file; any other error is returned as it is.
func configError(file string, err error) error {
	var es config.Errors
	if !errors.As(err, &es) {
		return err
	}
	ce := &ConfigError{Problems: make([]ConfigProblem, len(es))}
	for i, e := range es {
		ce.Problems[i] = ConfigProblem{File: file, Path: e.Path, Message: e.Msg, Line: e.Line, Column: e.Column}
	}
	return ce
}
