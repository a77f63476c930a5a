package web

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// jsonService serves a fixed, pre-encoded JSON document; see JSON.
type jsonService struct{ body []byte }

// JSON returns the handler of a "json" path service: value encoded once, at
// construction (an error if it cannot be encoded), and served as
// application/json to GET and HEAD (405 otherwise).
func JSON(value any) (http.Handler, error) {
	body, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("web: json service value: %w", err)
	}
	return &jsonService{body: append(body, '\n')}, nil
}

func (h *jsonService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !readOnly(w, r) {
		return
	}
	writeBody(w, r, http.StatusOK, "application/json", h.body)
}
