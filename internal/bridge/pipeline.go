package bridge

import (
	"context"
	"log/slog"
	"net/http"
	"unicode/utf8"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/wamp"
)

// pipeline is the request processing the three services share. Immutable
// after construction; safe for concurrent use.
type pipeline struct {
	limit      int64 // < 0: none
	buf        *BodyBuffer
	json       bool // Content-Type rules and a JSON object body
	requireIP  IPRules
	requireTLS bool
	// verify checks a request's signature against its body: the signing
	// query parameters (Caller, Publisher) or a provider's scheme (Webhook).
	// nil checks nothing.
	verify func(r *http.Request, body []byte) error
	text   *string // Webhook: the error_response text; nil answers JSON
	allow  string  // the Allow header; "" means allowedMethods
	// identity tells who a request comes from; nil: nobody (the
	// service's session acts as itself).
	identity Identifier
	// remote is how WAMP errors are answered.
	remote remoteAnswer
	debug  bool
	log    *slog.Logger
	// requests count the requests served, by status (Stats).
	requests meter.Requests
	act      http.Handler // run with the service's act (handle)
}

func newPipeline(c *Common, json bool, service string) *pipeline {
	buf := c.Buffer
	if buf == nil {
		buf = NewBodyBuffer(0)
	}
	return &pipeline{limit: c.bodyLimit(), buf: buf, json: json, requireIP: c.RequireIP, requireTLS: c.RequireTLS,
		remote: remoteAnswer{compat: json}, debug: c.Debug, log: c.logger().With("service", service)}
}

// setAccess sets a Caller's or Publisher's Access options.
func (p *pipeline) setAccess(a *Access) error {
	if err := a.ErrorStatus.validate(); err != nil {
		return err
	}
	p.identity = a.Identity
	p.remote.status = a.ErrorStatus
	p.remote.auth = a.Identity != nil
	return nil
}

// request is an accepted request, as the pipeline hands it to a service.
type request struct {
	body []byte         // nil once decoded (JSON services)
	held int64          // reserved from the pipeline's buffer: the body's bytes, or its decoded value's estimate if more
	obj  wamp.Object    // the decoded body (JSON services), its members in order
	as   *wamp.Identity // who the request comes from (pipeline.identity); nil: the session itself
	// result is the Caller's answer, kept here so that it costs no
	// allocation of its own; written before p.done.
	result resultBody
}

// context is the context the request's WAMP actions run in: r's, acting
// for req.as when set.
func (req *request) context(r *http.Request) context.Context {
	if req.as == nil {
		return r.Context()
	}
	return client.WithIdentity(r.Context(), req.as)
}

// accept runs the pipeline. It returns (nil, nil) when it has answered the
// request itself (OPTIONS), or the error to answer with. Order: require_ip,
// require_tls, method, content type (what needs no body), body limit and
// buffer, signature, UTF-8, JSON. A request it returns holds its body's
// bytes in p.buf until p.done, or what its decoded body costs if more
// (JSON services). The credentials (identity) are checked after the
// content type, before the body is read.
func (p *pipeline) accept(w http.ResponseWriter, r *http.Request) (*request, error) {
	p.cors(w, r)
	if r.Method == http.MethodOptions {
		preflight(w, p.allowed())
		return nil, nil
	}
	if err := p.checkHead(r); err != nil {
		return nil, unread(w, r, err)
	}
	as, err := p.identify(r)
	if err != nil {
		return nil, unread(w, r, err)
	}
	body, held, err := readBody(w, r, p.limit, p.buf)
	if err != nil {
		return nil, unread(w, r, err)
	}
	req := &request{body: body, held: held, as: as}
	if err := p.checkBody(r, req); err != nil {
		p.done(req)
		return nil, err
	}
	return req, nil
}

// allowed is the Allow header of the service.
func (p *pipeline) allowed() string {
	if p.allow == "" {
		return allowedMethods
	}
	return p.allow
}

// checkHead checks what needs no body, before any of it is read: the
// address, TLS, the method and the content type.
func (p *pipeline) checkHead(r *http.Request) error {
	if err := p.checkPeer(r); err != nil {
		return err
	}
	if err := checkMethod(r); err != nil {
		return err
	}
	if p.json {
		return checkContentType(r.Header)
	}
	return nil
}

// checkPeer checks the client's address and TLS.
func (p *pipeline) checkPeer(r *http.Request) error {
	if !p.requireIP.Empty() && !p.requireIP.Allows(peerAddr(r.RemoteAddr)) {
		return refuse(http.StatusForbidden, textDeniedIP)
	}
	if p.requireTLS && r.TLS == nil {
		return refuse(http.StatusForbidden, textDeniedTLS)
	}
	return nil
}

// identify returns who r comes from, nil for the service's session.
func (p *pipeline) identify(r *http.Request) (*wamp.Identity, error) {
	if p.identity == nil {
		return nil, nil
	}
	return p.identity.Resolve(r)
}

// unread prepares the answer to a request refused before its body was
// read to the end: the connection is closed after it, so that net/http
// does not read what is left of the body first (at the client's pace) to
// keep the connection.
func unread(w http.ResponseWriter, r *http.Request, err error) error {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
	return err
}

// checkBody checks the signature, then decodes the body.
func (p *pipeline) checkBody(r *http.Request, req *request) error {
	if p.verify != nil {
		if err := p.verify(r, req.body); err != nil {
			return err
		}
	}
	return p.decode(req)
}

// done releases the request's body bytes.
func (p *pipeline) done(req *request) { p.buf.release(req.held) }

// decode checks the body is UTF-8 and, for the JSON services, one object,
// which then stands for the body: the body is dropped and its reservation
// grown to the decoded value's.
func (p *pipeline) decode(req *request) error {
	if !utf8.Valid(req.body) {
		return badRequest(textNotUTF8)
	}
	if !p.json {
		return nil
	}
	obj, err := decodeObject(req.body)
	if err != nil {
		return err
	}
	req.body = nil
	// The reservation grows to the decoded value's estimated memory when
	// that is more than the body's: a body dense in small values costs
	// many times its length once decoded (a list of empty objects, about
	// 21 times), held until the request is answered, and the bound is on
	// memory.
	if err := p.buf.hold(&req.held, int64(wamp.ObjectSize(obj)), textTooLongDecoded); err != nil {
		return err
	}
	req.obj = obj
	return nil
}

// handle sets the service's act, run with each accepted request: once,
// at construction, so that serving a request builds no handler.
func (p *pipeline) handle(act func(http.ResponseWriter, *http.Request, *request) error) {
	p.act = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.run(w, r, act) })
}

// serve runs the pipeline, then the service's act with the accepted
// request, and answers the error of either.
func (p *pipeline) serve(w http.ResponseWriter, r *http.Request) {
	p.requests.Serve(w, r, p.act)
}

// run is serve, counted.
func (p *pipeline) run(w http.ResponseWriter, r *http.Request, act func(http.ResponseWriter, *http.Request, *request) error) {
	req, err := p.accept(w, r)
	if req == nil && err == nil {
		return
	}
	if err == nil {
		defer p.done(req) // also if act panics
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
