package longpoll

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// ErrTransportGone: the server no longer knows the transport (404), as
// after its session ended; the client's Recv returns io.EOF for it.
var ErrTransportGone = errors.New("longpoll: transport gone")

// Client is the client end of a long-poll transport, a wamp.Peer: Send
// queues, one goroutine posts the queue (in one request with a batched
// protocol, else one request per message, in order) and another polls.
// Send, Close and Info are safe for concurrent use; Recv is called by one
// goroutine.
type Client struct {
	base    string // URL of the transport: <service>/<id>
	http    *http.Client
	codec   codec.Codec
	batched bool
	info    wamp.PeerInfo

	inbox chan wamp.Message
	kick  chan struct{} // cap 1: the queue has messages
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex // guards queue and err
	queue [][]byte
	err   error
}

var _ wamp.Peer = (*Client)(nil)

// Dial opens a transport at the service URL url speaking protocol (such
// as "wamp.2.json.batched"); hc nil means http.DefaultClient.
func Dial(ctx context.Context, url, protocol string, hc *http.Client) (*Client, error) {
	c, batched, ok := codec.Lookup(protocol)
	if !ok {
		return nil, fmt.Errorf("longpoll: unknown protocol %q", protocol)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	body, _ := json.Marshal(map[string][]string{"protocols": {protocol}})
	resp, err := post(ctx, hc, url+"/open", body)
	if err != nil {
		return nil, err
	}
	var open struct{ Transport, Protocol string }
	if err := json.Unmarshal(resp, &open); err != nil || open.Transport == "" || open.Protocol != protocol {
		return nil, fmt.Errorf("longpoll: open: unexpected answer %q", resp)
	}
	cl := &Client{base: url + "/" + open.Transport, http: hc, codec: codec.Eager(c), batched: batched,
		info:  wamp.PeerInfo{Transport: "longpoll", Serializer: c.Name(), RemoteAddr: url, TLS: strings.HasPrefix(url, "https:")},
		inbox: make(chan wamp.Message, 64), kick: make(chan struct{}, 1), done: make(chan struct{})}
	go cl.sendLoop()
	go cl.receiveLoop()
	return cl, nil
}

// post POSTs body to url and returns the answer's body: an error for a
// status other than 200 and 204, wrapping ErrTransportGone for 404.
func post(ctx context.Context, hc *http.Client, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("longpoll: %w", err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("longpoll: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	switch {
	case err != nil:
		return nil, fmt.Errorf("longpoll: %w", err)
	case resp.StatusCode == http.StatusNotFound:
		return nil, ErrTransportGone
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent:
		return nil, fmt.Errorf("longpoll: %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return b, nil
}

// Send queues msg for the send goroutine.
func (c *Client) Send(msg wamp.Message) error {
	b, err := c.codec.Encode(msg)
	if err != nil {
		return fmt.Errorf("longpoll: %w", err)
	}
	if c.batched {
		b = codec.AppendBatch(c.codec, nil, b)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return wamp.ErrClosed
	}
	c.queue = append(c.queue, b)
	select {
	case c.kick <- struct{}{}:
	default:
	}
	return nil
}

// Recv returns the next message from the server; io.EOF once the
// transport is closed or gone.
func (c *Client) Recv() (wamp.Message, error) {
	select {
	case m := <-c.inbox:
		return m, nil
	case <-c.done:
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err == wamp.ErrClosed || errors.Is(c.err, ErrTransportGone) {
			return nil, io.EOF
		}
		return nil, c.err
	}
}

// Close posts close (bounded by the HTTP client's timeout) and stops the
// goroutines. Safe to call more than once.
func (c *Client) Close() error {
	c.fail(wamp.ErrClosed)
	return nil
}

// Info describes the transport.
func (c *Client) Info() wamp.PeerInfo { return c.info }

func (c *Client) fail(err error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
		close(c.done)
		if !errors.Is(err, ErrTransportGone) {
			_, _ = post(context.Background(), c.http, c.base+"/close", nil)
		}
	})
}

func (c *Client) sendLoop() {
	for {
		select {
		case <-c.kick:
		case <-c.done:
			return
		}
		c.mu.Lock()
		q := c.queue
		c.queue = nil
		c.mu.Unlock()
		if err := c.postAll(q); err != nil {
			c.fail(err)
			return
		}
	}
}

// postAll posts the queued messages: in one body when batched.
func (c *Client) postAll(q [][]byte) error {
	if c.batched {
		q = [][]byte{bytes.Join(q, nil)}
	}
	for _, b := range q {
		if _, err := post(context.Background(), c.http, c.base+"/send", b); err != nil {
			return err
		}
	}
	return nil
}

func (c *Client) receiveLoop() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-c.done
		cancel()
	}()
	for {
		b, err := post(ctx, c.http, c.base+"/receive", nil)
		if err == nil {
			err = c.deliver(b)
		}
		if err != nil {
			c.fail(err)
			return
		}
	}
}

// deliver decodes a receive answer (empty: nothing) onto the inbox.
func (c *Client) deliver(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	frames := [][]byte{b}
	if c.batched {
		var err error
		if frames, err = codec.SplitBatch(c.codec, b); err != nil {
			return err
		}
	}
	for _, f := range frames {
		m, err := c.codec.Decode(f)
		if err != nil {
			return err
		}
		select {
		case c.inbox <- m:
		case <-c.done:
			return wamp.ErrClosed
		}
	}
	return nil
}
