package web

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// JSONOptions configures JSON. The zero value serves the document compact,
// with no CORS or caching header.
type JSONOptions struct {
	// Prettify indents the document by three spaces per level, as
	// Crossbar's "prettify" does.
	Prettify bool
	// AllowCrossOrigin sends "Access-Control-Allow-Origin: *": scripts of
	// any web origin may read the document (without credentials).
	AllowCrossOrigin bool
	// DiscourageCaching sends "Cache-Control: no-store, no-cache,
	// must-revalidate, max-age=0".
	DiscourageCaching bool
}

// jsonService serves a fixed, pre-encoded JSON document; see JSON. It is
// immutable after construction and safe for concurrent use.
type jsonService struct {
	body    []byte
	headers [][2]string // set on every answer, before the body's own
}

// JSON returns the handler of a "json" path service: value encoded once, at
// construction (an error if it cannot be encoded), and served as
// application/json to GET and HEAD (405 otherwise), with the headers opts
// asks for.
func JSON(value any, opts JSONOptions) (http.Handler, error) {
	body, err := encodeJSON(value, opts.Prettify)
	if err != nil {
		return nil, fmt.Errorf("web: json service value: %w", err)
	}
	h := &jsonService{body: append(body, '\n')}
	if opts.AllowCrossOrigin {
		h.headers = append(h.headers, [2]string{"Access-Control-Allow-Origin", "*"})
	}
	if opts.DiscourageCaching {
		h.headers = append(h.headers, [2]string{"Cache-Control", "no-store, no-cache, must-revalidate, max-age=0"})
	}
	return h, nil
}

func encodeJSON(value any, prettify bool) ([]byte, error) {
	if prettify {
		return json.MarshalIndent(value, "", "   ")
	}
	return json.Marshal(value)
}

func (h *jsonService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	for _, kv := range h.headers {
		w.Header().Set(kv[0], kv[1])
	}
	writeBody(w, r, http.StatusOK, "application/json", h.body)
}
