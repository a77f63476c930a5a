package bridge

import (
	"net/http"
	"strings"
)

// allowedMethods is the Allow header of the services that take a body;
// streamMethods the event stream's.
const (
	allowedMethods = "POST,PUT,OPTIONS"
	streamMethods  = "GET,OPTIONS"
)

// setCORS sets the headers every answer carries: the request's Origin echoed
// (or "*"), without Allow-Credentials (Crossbar's reflected origin with
// credentials let any web page drive the bridge), Vary and Cache-Control.
func setCORS(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		h["Access-Control-Allow-Origin"] = anyOrigin
	} else {
		h["Access-Control-Allow-Origin"] = []string{origin}
	}
	h["Vary"], h["Cache-Control"] = varyOrigin, noStore
	if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
		h.Set("Access-Control-Allow-Headers", rh)
	}
}

// cors sets the CORS headers of every answer of the service (setCORS);
// on a path with an Identity it also exposes WWW-Authenticate, so that a
// page on another origin can read a 401's challenge (a browser hides
// every header but the CORS-safelisted ones from it).
func (p *pipeline) cors(w http.ResponseWriter, r *http.Request) {
	setCORS(w, r)
	if p.identity != nil {
		expose(w.Header(), exposeAuth)
	}
}

// expose adds the header name of alone (a one-name list) to h's
// Access-Control-Expose-Headers, merged with the names there already (a
// header name is compared without case; "*" exposes every one, as there
// are no credentials).
func expose(h http.Header, alone []string) {
	name := alone[0]
	const key = "Access-Control-Expose-Headers"
	list := h[key]
	if len(list) == 0 {
		h[key] = alone
		return
	}
	for _, v := range list {
		for item := range strings.SplitSeq(v, ",") {
			if t := strings.TrimSpace(item); t == "*" || strings.EqualFold(t, name) {
				return
			}
		}
	}
	h.Set(key, strings.Join(list, ", ")+", "+name)
}

// Header values every answer shares, so that setting them allocates
// nothing. Each has its length as capacity: Header.Add appends to a copy.
// Never modified in place.
var (
	anyOrigin   = []string{"*"}
	varyOrigin  = []string{"Origin"}
	noStore     = []string{"no-store"}
	jsonType    = []string{"application/json; charset=utf-8"}
	exposeAuth  = []string{"WWW-Authenticate"}
	exposeRetry = []string{"Retry-After"}
)

// preflight answers an OPTIONS request: 200, empty, with the methods.
func preflight(w http.ResponseWriter, methods string) {
	h := w.Header()
	h.Set("Allow", methods)
	h.Set("Access-Control-Allow-Methods", methods)
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// checkMethod accepts POST and PUT, case-sensitively as HTTP says.
func checkMethod(r *http.Request) error {
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		return nil
	}
	return refuse(http.StatusMethodNotAllowed, textMethod, echo(r.Method))
}
