package config

// ProcessEnv is a worker's "options.env": the environment of the process
// that runs it (Crossbar's create_process_env). PYTHONUNBUFFERED=1 is
// added unless it is set either way.
type ProcessEnv struct {
	// InheritAll is "inherit": true (the default): the node's whole
	// environment is passed on.
	InheritAll bool
	// Inherit is "inherit" as a list of names: only these variables of the
	// node's environment are passed on (InheritAll is then false).
	Inherit []string
	// Vars is "vars": variables set over the inherited ones. Values must
	// be strings ("${NAME}" is substituted).
	Vars map[string]string
}

// DefaultProcessEnv is the environment when "env" is not given: the
// node's, whole.
var DefaultProcessEnv = ProcessEnv{InheritAll: true}

// processEnv decodes "env" of a worker's options.
func (d *decoder) processEnv(o *object) ProcessEnv {
	e := DefaultProcessEnv
	eo, ok := o.child("env")
	if !ok {
		return e
	}
	if v, ok := eo.get("inherit"); ok {
		d.inherit(eo.at("inherit"), v, &e)
	}
	eo.each("vars", func(path, key string, v any) {
		if !envName(key) {
			d.errorf(path, "invalid environment variable name %q", key)
			return
		}
		if s, ok := d.str(path, v); ok {
			if e.Vars == nil {
				e.Vars = map[string]string{}
			}
			e.Vars[key] = s
		}
	})
	eo.done()
	return e
}

// inherit decodes "inherit": a boolean or a list of variable names.
func (d *decoder) inherit(path string, v any, e *ProcessEnv) {
	switch v := v.(type) {
	case bool:
		e.InheritAll = v
	case []any:
		e.InheritAll = false
		e.Inherit = []string{}
		d.list(path, v, func(p string, item any) {
			if s, ok := d.str(p, item); ok {
				e.Inherit = append(e.Inherit, s)
			}
		})
	default:
		d.errorf(path, "must be a boolean or an array of variable names, not %s", kind(v))
	}
}
