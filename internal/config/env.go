package config

// resolve substitutes an environment variable for a string that is exactly
// "${NAME}", reporting a missing variable at path. Other values are
// returned unchanged.
func (d *decoder) resolve(path string, v any) any {
	v, _, _ = d.resolveTyped(path, v)
	return v
}

// resolveTyped is resolve that also reports whether v came from the
// environment (and so may hold a number or a boolean as a string), and
// false when the variable is missing (already reported).
func (d *decoder) resolveTyped(path string, v any) (val any, fromEnv, ok bool) {
	s, isStr := v.(string)
	if !isStr {
		return v, false, true
	}
	name, isRef := envRef(s)
	if !isRef {
		return v, false, true
	}
	val, ok = d.lookup(path, name)
	return val, true, ok
}

// lookup returns the value of variable name, or reports it at path.
func (d *decoder) lookup(path, name string) (any, bool) {
	val, ok := d.env(name)
	if !ok {
		d.errorf(path, "environment variable %s is not set", name)
		return nil, false
	}
	return val, true
}

// envRef returns NAME when s is "${NAME}".
func envRef(s string) (string, bool) {
	if len(s) < 4 || s[0] != '$' || s[1] != '{' || s[len(s)-1] != '}' {
		return "", false
	}
	name := s[2 : len(s)-1]
	return name, envName(name)
}

// envName reports whether s is a shell variable name.
func envName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// resolveDeep substitutes variables in every string of a raw value (a
// json service's "value"), in place.
func (d *decoder) resolveDeep(path string, v any) any {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			v[k] = d.resolveDeep(childPath(path, k), v[k])
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = d.resolveDeep(path+"["+itoa(i)+"]", e)
		}
		return v
	}
	return d.resolve(path, v)
}
