package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/meter"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Response bytes read per delivery: debugBody are logged, the rest up to
// drainLimit are read so that the connection can be reused.
const (
	debugBody  = 2048
	drainLimit = 64 << 10
)

// eventBody is the forwarded body, exactly {"args":[...],"kwargs":{...}}
// with [] and {} for absent parts, keys in the order the event has them;
// HTML characters are not escaped.
func eventBody(args wamp.List, kwargs wamp.Object) ([]byte, error) {
	b, err := codec.AppendPlainJSON(append(make([]byte, 0, 64), `{"args":`...), orEmpty(args))
	if err == nil {
		b = append(b, `,"kwargs":`...)
		if len(kwargs) == 0 {
			b = append(b, "{}"...)
		} else {
			b, err = codec.AppendPlainJSON(b, kwargs)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("rest: event not representable as JSON: %w", err)
	}
	return append(b, '}'), nil
}

// orEmpty is l, or an empty list for nil (written [] rather than null).
func orEmpty(l wamp.List) wamp.List {
	if l == nil {
		return wamp.List{}
	}
	return l
}

// send makes one delivery attempt. It returns nil when the target
// accepted the event, else the failure and whether it is worth a retry.
func (f *forwarder) send(ctx context.Context, ev *client.Event, body []byte) (retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, f.s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, f.s.opts.Method, f.sub.URL, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header["Content-Type"] = []string{"application/json"}
	req.Header["X-Wamp-Topic"] = []string{headerSafe(string(ev.Topic))}
	req.Header["X-Wamp-Publication"] = []string{strconv.FormatUint(uint64(ev.Publication), 10)}
	start := time.Now()
	resp, err := f.s.http.Do(req)
	if err != nil {
		f.s.requests.Observe(meter.NoResponse, time.Since(start))
		return true, err
	}
	defer resp.Body.Close()
	f.readBody(resp, ev)
	f.s.requests.Observe(resp.StatusCode, time.Since(start))
	return f.judge(resp.StatusCode)
}

// readBody reads (and with Debug logs) the start of the response body.
func (f *forwarder) readBody(resp *http.Response, ev *client.Event) {
	if f.s.opts.Debug {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, debugBody+1))
		truncated := len(b) > debugBody
		b = b[:min(len(b), debugBody)]
		f.log.Debug("rest: subscriber response", "publication", ev.Publication, "status", resp.StatusCode,
			"body", decodeContent(b, resp.Header.Get("Content-Type")), "truncated", truncated)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, drainLimit))
}

// errStatus is wrapped by the error of an unwanted status.
var errStatus = errors.New("rest: unexpected status")

// judge says whether status is a success, and if not whether to retry.
func (f *forwarder) judge(status int) (retry bool, err error) {
	want := f.s.opts.ExpectedCode
	if want != 0 {
		if status == want {
			return false, nil
		}
		return true, fmt.Errorf("%w %d, expected %d", errStatus, status, want)
	}
	if status >= 200 && status < 300 {
		return false, nil
	}
	retry = status >= 500 || status == http.StatusRequestTimeout || status == http.StatusTooManyRequests
	return retry, fmt.Errorf("%w %d", errStatus, status)
}

// headerSafe returns s, or its URL escape when it holds control characters.
func headerSafe(s string) string {
	if validHeaderValue(s) {
		return s
	}
	return url.PathEscape(s)
}

// forwardClient returns a copy of c (nil: a client on a new pooled
// transport) that follows only 307 and 308 redirects to http(s) URLs:
// the others would turn the POST into a GET and lose the event.
func forwardClient(c *http.Client) *http.Client {
	return withRedirectPolicy(c, func(req *http.Request, via []*http.Request) error {
		code := req.Response.StatusCode
		if code != http.StatusTemporaryRedirect && code != http.StatusPermanentRedirect || !isHTTP(req.URL) {
			return http.ErrUseLastResponse
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("rest: stopped after %d redirects", maxRedirects)
		}
		return nil
	})
}
