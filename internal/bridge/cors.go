package bridge

import "net/http"

// allowedMethods is the Allow header of every service.
const allowedMethods = "POST,PUT,OPTIONS"

// setCORS sets the headers every answer carries: the request's Origin echoed
// (or "*"), without Allow-Credentials (Crossbar's reflected origin with
// credentials let any web page drive the bridge), Vary and Cache-Control.
func setCORS(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		origin = "*"
	}
	vals := make([]string, 3) // one allocation for the three headers
	vals[0], vals[1], vals[2] = origin, "Origin", "no-store"
	h["Access-Control-Allow-Origin"], h["Vary"], h["Cache-Control"] = vals[0:1:1], vals[1:2:2], vals[2:3:3]
	if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
		h.Set("Access-Control-Allow-Headers", rh)
	}
}

// preflight answers an OPTIONS request: 200, empty, with the methods.
func preflight(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Allow", allowedMethods)
	h.Set("Access-Control-Allow-Methods", allowedMethods)
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
