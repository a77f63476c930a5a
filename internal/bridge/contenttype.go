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
	mt, params, _ := strings.Cut(v[0], ";")
	if mt = strings.ToLower(strings.TrimSpace(mt)); mt != "application/json" {
		return badRequest(textContentType, echo(mt))
	}
	return checkCharset(params)
}

// checkCharset checks the parameters of a Content-Type, separated by ';'.
func checkCharset(params string) error {
	seen := map[string]bool{}
	for more := params != ""; more; {
		var p string
		p, params, more = strings.Cut(params, ";")
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
