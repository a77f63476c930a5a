package bridge

import (
	"net/http"
	"strings"
)

// checkContentType applies the Caller and Publisher rule: a Content-Type,
// when sent, must be application/json (case-insensitive), and a charset
// parameter, quoted or not, utf-8 or utf8. Only the first header counts;
// parameters without '=' are skipped and a repeated parameter is refused,
// as Crossbar does.
func checkContentType(h http.Header) error {
	v, ok := h["Content-Type"]
	if !ok || len(v) == 0 {
		return nil
	}
	pieces := strings.Split(v[0], ";")
	if mt := strings.ToLower(strings.TrimSpace(pieces[0])); mt != "application/json" {
		return badRequest(textContentType, echo(mt))
	}
	return checkCharset(pieces[1:])
}

// checkCharset checks the parameters of a Content-Type.
func checkCharset(params []string) error {
	seen := make(map[string]bool, len(params))
	for _, p := range params {
		name, value, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		name = strings.ToLower(strings.TrimSpace(name))
		if seen[name] || strings.Contains(value, "=") {
			return badRequest(textEncoding)
		}
		seen[name] = true
		if name == "charset" && !isUTF8Name(value) {
			return badRequest(textEncoding)
		}
	}
	return nil
}

func isUTF8Name(v string) bool {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	v = strings.ToLower(v)
	return v == "utf-8" || v == "utf8"
}
