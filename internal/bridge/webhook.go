package bridge

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/junction-wamp/junction/internal/bridge/webhooksig"
	"github.com/junction-wamp/junction/wamp"
)

// Webhook publishes each POSTed request, whatever its content type, as one
// event {"body", "headers"} on a fixed topic, and answers 202 with the
// success text.
type Webhook struct {
	p       *pipeline
	s       Session
	topic   wamp.URI
	success string
}

var _ http.Handler = (*Webhook)(nil)

// NewWebhook returns the Webhook service over s.
func NewWebhook(s Session, o WebhookOptions) (*Webhook, error) {
	if s == nil {
		return nil, errors.New("bridge: session: required")
	}
	if o.Topic == "" {
		return nil, errors.New("bridge: topic: required")
	}
	if !wamp.ValidURI(wamp.URI(o.Topic), false, wamp.MatchExact) {
		return nil, fmt.Errorf("bridge: topic: invalid URI %q", o.Topic)
	}
	if o.PostBodyLimit == 0 {
		o.PostBodyLimit = DefaultWebhookPostBodyLimit
	}
	p := newPipeline(&o.Common, false, "webhook")
	p.text = textOr(o.ErrorResponse, "NOT OK")
	verify, err := providerCheck(o.ProviderSecret, o.Provider, time.Now)
	if err != nil {
		return nil, err
	}
	wh := &Webhook{p: p, s: s, topic: wamp.URI(o.Topic), success: *textOr(o.SuccessResponse, "OK")}
	if verify != nil {
		p.verify = wh.logRefusal(verify)
	}
	p.handle(wh.publish)
	return wh, nil
}

func textOr(s *string, def string) *string {
	if s == nil {
		return &def
	}
	return s
}

// providerCheck returns the signature check of the webhook: nil without a
// secret; else the pinned scheme, or the one recognised by its headers.
func providerCheck(secret, provider string, now func() time.Time) (func(*http.Request, []byte) error, error) {
	var pinned webhooksig.Scheme
	if provider != "" {
		s, ok := webhooksig.ParseScheme(provider)
		if !ok {
			return nil, fmt.Errorf("bridge: provider: unknown scheme %q", provider)
		}
		pinned = s
	}
	if secret == "" {
		if provider != "" {
			return nil, errors.New("bridge: provider_secret: required when provider is set")
		}
		return nil, nil
	}
	return func(r *http.Request, body []byte) error {
		scheme, ok := pinned, pinned != ""
		if !ok {
			if scheme, ok = webhooksig.Detect(r.Header); !ok {
				return &Error{Status: http.StatusUnauthorized, Text: "unsigned", Cause: webhooksig.ErrMissing}
			}
		}
		if err := webhooksig.Verify(scheme, secret, r.Header, body, now()); err != nil {
			return &Error{Status: http.StatusUnauthorized, Text: "bad signature", Cause: err}
		}
		return nil
	}, nil
}

// logRefusal wraps the signature check with the log line of a refusal.
func (wh *Webhook) logRefusal(verify func(*http.Request, []byte) error) func(*http.Request, []byte) error {
	return func(r *http.Request, body []byte) error {
		err := verify(r, body)
		if err != nil {
			wh.p.log.Warn("bridge: webhook refused", "peer", r.RemoteAddr, "topic", wh.topic, "err", err)
		}
		return err
	}
}

// ServeHTTP runs the pipeline, then publishes the event.
func (wh *Webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	wh.p.serve(w, r)
}

func (wh *Webhook) publish(w http.ResponseWriter, r *http.Request, req *request) error {
	event := wamp.Object{{Key: "body", Value: string(req.body)}, {Key: "headers", Value: eventHeaders(r)}}
	id, err := publishAcked(r.Context(), r, wh.s, wh.topic, wamp.List{event}, nil, wamp.Dict{wamp.OptAcknowledge: true})
	if err != nil {
		return err
	}
	wh.p.log.Info("bridge: webhook published", "peer", r.RemoteAddr, "topic", wh.topic, "publication", id)
	writeText(w, http.StatusAccepted, wh.success)
	return nil
}

// credentialHeaders are left out of the event: they would hand a secret to
// every subscriber.
var credentialHeaders = func() map[string]bool {
	m := map[string]bool{"Authorization": true, "Cookie": true, "Proxy-Authorization": true}
	all := []webhooksig.Scheme{webhooksig.GitHub, webhooksig.GitLab, webhooksig.Stripe,
		webhooksig.Slack, webhooksig.Shopify, webhooksig.Standard}
	for _, s := range all {
		for _, h := range webhooksig.CredentialHeaders(s) {
			m[http.CanonicalHeaderKey(h)] = true
		}
	}
	return m
}()

// eventHeaders is the event's "headers": canonical name -> list of values,
// names sorted (net/http does not keep the order they came in), Host
// included (Go keeps it apart), credentials left out, values made valid
// UTF-8 so that every serializer can carry them.
func eventHeaders(r *http.Request) wamp.Object {
	d := make(wamp.Dict, len(r.Header)+1)
	for name, values := range r.Header {
		name = http.CanonicalHeaderKey(name)
		if credentialHeaders[name] {
			continue
		}
		l, _ := d[name].(wamp.List)
		for _, v := range values {
			l = append(l, strings.ToValidUTF8(v, "\uFFFD"))
		}
		d[name] = l
	}
	if r.Host != "" {
		d["Host"] = wamp.List{strings.ToValidUTF8(r.Host, "\uFFFD")}
	}
	return wamp.ObjectOf(d)
}
