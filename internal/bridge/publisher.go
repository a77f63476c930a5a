package bridge

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/junction-wamp/junction/wamp"
)

// Publisher publishes a POSTed {"topic", "args", "kwargs", "options"} and
// answers {"id": publication}.
type Publisher struct {
	p *pipeline
	s Session
}

var _ http.Handler = (*Publisher)(nil)

// NewPublisher returns the Publisher service over s.
func NewPublisher(s Session, o PublisherOptions) (*Publisher, error) {
	if s == nil {
		return nil, errors.New("bridge: session: required")
	}
	if err := o.Signing.validate(); err != nil {
		return nil, err
	}
	p := newPipeline(&o.Common, true, "publisher")
	if err := p.setAccess(&o.Access); err != nil {
		return nil, err
	}
	sg := newSigner(o.Signing, p.log, nil)
	p.verify = func(r *http.Request, body []byte) error {
		return sg.check(r.Context(), parseQuery(r.URL.RawQuery), body)
	}
	pb := &Publisher{p: p, s: s}
	p.handle(pb.publish)
	return pb, nil
}

// ServeHTTP runs the pipeline, then the publish.
func (pb *Publisher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	pb.p.serve(w, r)
}

// publishedBody is the Publisher's success answer.
type publishedBody struct {
	ID wamp.ID `json:"id"`
}

func (pb publishedBody) appendJSON(b []byte) ([]byte, error) {
	b = strconv.AppendUint(append(b, `{"id":`...), uint64(pb.ID), 10)
	return append(b, '}'), nil
}

func (pb *Publisher) publish(w http.ResponseWriter, r *http.Request, req *request) error {
	topic, err := uriMember(req.obj, "topic")
	if err != nil {
		return err
	}
	args, kwargs, err := payload(req.obj)
	if err != nil {
		return err
	}
	opts, err := publishOptions(req.obj)
	if err != nil {
		return err
	}
	id, err := publishAcked(req.context(r), r, pb.s, topic, args, kwargs, opts)
	if err != nil {
		return err
	}
	pb.p.accepted(r, "topic", topic, "publication", id)
	pb.p.writeJSON(w, http.StatusOK, publishedBody{id})
	return nil
}

// publishAcked publishes in ctx (r's, or one acting for an identity)
// with acknowledge and waits (at most publishTimeout) for the publication
// ID.
func publishAcked(ctx context.Context, r *http.Request, s Session, topic wamp.URI, args wamp.List, kwargs wamp.Object, opts wamp.Dict) (wamp.ID, error) {
	if !available(s) {
		return 0, ErrUnavailable
	}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	id, err := s.Publish(ctx, topic, args, kwargs, opts)
	if err != nil {
		return 0, wampError(r, publishTimeout, err)
	}
	return id, nil
}
