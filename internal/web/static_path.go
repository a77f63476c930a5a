package web

import (
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
)

// requestName turns an escaped request path ("/a/b%20c/" form) into a
// slash-separated name relative to the served directory ("." for the
// directory itself). Each segment is decoded once and refused (ok false) if
// it is empty, "." or "..", or holds "/", "\", NUL or a control character:
// the confinement does not rely on these checks alone (os.Root enforces
// it), but they keep encoded separators and dot segments from ever
// reaching the file system.
func requestName(escaped string) (name string, wantDir, ok bool) {
	p, found := strings.CutPrefix(escaped, "/")
	if !found {
		return "", false, false
	}
	if p == "" {
		return ".", true, true
	}
	p, wantDir = strings.CutSuffix(p, "/")
	segs := strings.Split(p, "/")
	for i, raw := range segs {
		seg, err := url.PathUnescape(raw)
		if err != nil || !safeSegment(seg) {
			return "", false, false
		}
		segs[i] = seg
	}
	return strings.Join(segs, "/"), wantDir, true
}

// safeSegment reports whether seg can name a file inside a directory.
func safeSegment(seg string) bool {
	switch {
	case seg == "", seg == ".", seg == "..":
		return false
	case strings.ContainsAny(seg, "/\\"):
		return false
	case strings.ContainsFunc(seg, isControl):
		return false
	}
	return true
}

// cleanRelative checks a configured relative file name (DefaultFile) with
// the same rules as a request path and returns it slash-separated.
func cleanRelative(name string) (string, bool) {
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return "", false
	}
	for seg := range strings.SplitSeq(name, "/") {
		if !safeSegment(seg) {
			return "", false
		}
	}
	return name, true
}

// normaliseMIMETypes returns the overrides keyed by lower-case ".ext"
// (which may hold further dots: ".min.js"); each value must parse as a
// media type.
func normaliseMIMETypes(in map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for ext, typ := range in {
		key := strings.ToLower(ext)
		if !strings.HasPrefix(key, ".") {
			key = "." + key
		}
		if key == "." || strings.HasSuffix(key, ".") || strings.Contains(key, "..") || strings.ContainsAny(key, "/\\") {
			return nil, fmt.Errorf("%w: static mime_types key %q: not a file extension", ErrBadOption, ext)
		}
		if _, _, err := mime.ParseMediaType(typ); err != nil {
			return nil, fmt.Errorf("%w: static mime_types[%q] = %q: %w", ErrBadOption, ext, typ, err)
		}
		out[key] = typ
	}
	return out, nil
}

// mimeOverride returns the override of mimes (normalised) for the file
// name: the longest extension key that ends it (".min.js" before ".js"),
// or "".
func mimeOverride(mimes map[string]string, name string) string {
	base := strings.ToLower(path.Base(name))
	for i := 0; i < len(base); i++ {
		if base[i] != '.' {
			continue
		}
		if t, ok := mimes[base[i:]]; ok {
			return t
		}
	}
	return ""
}
