package web

import (
	"mime"
	"strconv"
	"strings"
)

// prefersJSON reports whether the Accept header values rank
// application/json strictly above text/html. text/html also takes the
// weight of "text/*" and "*/*", so browsers and curl's "*/*" get HTML.
func prefersJSON(accept []string) bool {
	jsonQ, htmlQ := -1.0, -1.0
	for _, v := range accept {
		for part := range strings.SplitSeq(v, ",") {
			typ, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := qValue(params["q"])
			switch typ {
			case "application/json":
				jsonQ = max(jsonQ, q)
			case "text/html", "text/*", "*/*":
				htmlQ = max(htmlQ, q)
			}
		}
	}
	return jsonQ > 0 && jsonQ > htmlQ
}

// qValue parses a q parameter; missing means 1, malformed means 0.
func qValue(s string) float64 {
	if s == "" {
		return 1
	}
	q, err := strconv.ParseFloat(s, 64)
	if err != nil || q < 0 || q > 1 {
		return 0
	}
	return q
}
