package bridge

import (
	"log/slog"
	"net/http"
	"unicode/utf8"
)

// pipeline is the request processing the three services share. Immutable
// after construction; safe for concurrent use.
type pipeline struct {
	limit      int64 // < 0: none
	json       bool  // Content-Type rules and a JSON object body
	requireIP  IPRules
	requireTLS bool
	// verify checks a request's signature against its body: the signing
	// query parameters (Caller, Publisher) or a provider's scheme (Webhook).
	// nil checks nothing.
	verify func(r *http.Request, body []byte) error
	text   *string // Webhook: the error_response text; nil answers JSON
	debug  bool
	log    *slog.Logger
}

func newPipeline(c *Common, json bool, service string) *pipeline {
	return &pipeline{limit: c.bodyLimit(), json: json, requireIP: c.RequireIP, requireTLS: c.RequireTLS,
		debug: c.Debug, log: c.logger().With("service", service)}
}

// request is an accepted request, as the pipeline hands it to a service.
type request struct {
	body []byte
	obj  map[string]any // the decoded body (JSON services)
}

// accept runs the pipeline. It returns (nil, nil) when it has answered the
// request itself (OPTIONS), or the error to answer with. Order: method,
// content type, body limit, signature, require_ip, require_tls, UTF-8, JSON.
func (p *pipeline) accept(w http.ResponseWriter, r *http.Request) (*request, error) {
	setCORS(w, r)
	if r.Method == http.MethodOptions {
		preflight(w)
		return nil, nil
	}
	if err := checkMethod(r); err != nil {
		return nil, err
	}
	if p.json {
		if err := checkContentType(r.Header); err != nil {
			return nil, err
		}
	}
	body, err := readBody(w, r, p.limit)
	if err != nil {
		return nil, err
	}
	if err := p.checkPeer(r, body); err != nil {
		return nil, err
	}
	return p.decode(body)
}

// checkPeer checks the signature, then the address, then TLS.
func (p *pipeline) checkPeer(r *http.Request, body []byte) error {
	if p.verify != nil {
		if err := p.verify(r, body); err != nil {
			return err
		}
	}
	if !p.requireIP.Empty() && !p.requireIP.Allows(peerAddr(r.RemoteAddr)) {
		return refuse(http.StatusForbidden, textDeniedIP)
	}
	if p.requireTLS && r.TLS == nil {
		return refuse(http.StatusForbidden, textDeniedTLS)
	}
	return nil
}

// decode checks the body is UTF-8 and, for the JSON services, one object.
func (p *pipeline) decode(body []byte) (*request, error) {
	if !utf8.Valid(body) {
		return nil, badRequest(textNotUTF8)
	}
	req := &request{body: body}
	if p.json {
		obj, err := decodeObject(body)
		if err != nil {
			return nil, err
		}
		req.obj = obj
	}
	return req, nil
}

// serve runs the pipeline, then act with the accepted request, and answers
// the error of either.
func (p *pipeline) serve(w http.ResponseWriter, r *http.Request, act func(http.ResponseWriter, *http.Request, *request) error) {
	req, err := p.accept(w, r)
	if req == nil && err == nil {
		return
	}
	if err == nil {
		err = act(w, r, req)
	}
	if err != nil {
		p.respond(w, r, err)
	}
}

// accepted logs an accepted request when Debug is set.
func (p *pipeline) accepted(r *http.Request, attrs ...any) {
	if p.debug {
		base := []any{slog.String("peer", r.RemoteAddr), slog.String("method", r.Method), slog.String("path", r.URL.Path)}
		p.log.Debug("bridge: request accepted", append(base, attrs...)...)
	}
}
