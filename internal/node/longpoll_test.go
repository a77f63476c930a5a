package node

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/transport/longpoll"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// longPollDoc is a node with WebSocket at /ws and long-poll at /lp with
// the given options.
func longPollDoc(options string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"ws": {"type": "websocket"}, "lp": {"type": "longpoll", "options": {` + options + `}}}}]}]}`
}

// startLongPoll starts the node of longPollDoc and returns the base URL
// of its web transport and a WebSocket session on it.
func startLongPoll(t *testing.T, options string) (string, *client.Session, *syncBuffer) {
	t.Helper()
	n, log := startLogged(t, longPollDoc(options))
	base := "http://" + address(t, n, "workers[0].transports[0]")
	ws := mustWS(t, "ws"+strings.TrimPrefix(base, "http")+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	return base, ws, log
}

// TestLongPollSession: a long-poll client, each serializer plain and
// batched, joins, calls a procedure a WebSocket client registered,
// receives an event it published, and leaves.
func TestLongPollSession(t *testing.T) {
	base, ws, _ := startLongPoll(t, ``)
	echo(t, ws, "com.lp.echo")
	for _, proto := range []string{"wamp.2.json", "wamp.2.json.batched", "wamp.2.msgpack", "wamp.2.msgpack.batched", "wamp.2.cbor.batched", "wamp.2.ubjson"} {
		t.Run(proto, func(t *testing.T) {
			p, err := longpoll.Dial(testCtx(t), base+"/lp", proto, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := client.Join(testCtx(t), p, client.Config{Realm: "realm1"})
			if err != nil {
				t.Fatalf("join: %v", err)
			}
			callEcho(t, s, "com.lp.echo")
			events := make(chan *client.Event, 1)
			if _, err := s.Subscribe(testCtx(t), "com.lp.topic", func(ev *client.Event) { events <- ev }, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ws.Publish(testCtx(t), "com.lp.topic", wamp.List{"hello", proto}, nil, wamp.Dict{"acknowledge": true}); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-events:
				if len(ev.Args) != 2 || ev.Args[1] != proto {
					t.Errorf("event %v", ev.Args)
				}
			case <-testCtx(t).Done():
				t.Fatal("no event")
			}
			if err := s.Close(); err != nil {
				t.Errorf("leave: %v", err)
			}
		})
	}
}

// lpPost POSTs body to url and returns the status and the answer.
func lpPost(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// lpJoin opens a JSON transport by hand, joins realm1 and returns the
// transport's URL and the session ID.
func lpJoin(t *testing.T, base string) (string, wamp.ID) {
	t.Helper()
	_, ans := lpPost(t, base+"/lp/open", `{"protocols": ["wamp.2.json"]}`)
	var open struct{ Transport string }
	json.Unmarshal([]byte(ans), &open)
	url := base + "/lp/" + open.Transport
	if code, _ := lpPost(t, url+"/send", `[1, "realm1", {"roles": {"subscriber": {}}}]`); code != 204 {
		t.Fatalf("send HELLO: %d", code)
	}
	_, welcome := lpPost(t, url+"/receive", "")
	var msg []any
	if err := json.Unmarshal([]byte(welcome), &msg); err != nil || msg[0] != 2.0 {
		t.Fatalf("WELCOME: %q", welcome)
	}
	return url, wamp.ID(msg[1].(float64))
}

// leaves subscribes ws to wamp.session.on_leave and returns the IDs of
// the sessions that leave.
func leaves(t *testing.T, ws *client.Session) chan string {
	ch := make(chan string, 16)
	_, err := ws.Subscribe(testCtx(t), "wamp.session.on_leave", func(ev *client.Event) {
		ch <- fmt.Sprint(ev.Args[0])
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func waitLeave(t *testing.T, ch chan string, id wamp.ID) {
	t.Helper()
	for {
		select {
		case got := <-ch:
			if got == fmt.Sprint(uint64(id)) {
				return
			}
		case <-testCtx(t).Done():
			t.Fatalf("session %d did not leave", id)
		}
	}
}

// TestLongPollTimeouts: an idle receive answers empty after
// request_timeout; a transport nobody polls is closed after
// session_timeout, its session leaving the realm, and is then unknown.
func TestLongPollTimeouts(t *testing.T) {
	base, ws, _ := startLongPoll(t, `"request_timeout": 1, "session_timeout": 1`)
	left := leaves(t, ws)
	url, id := lpJoin(t, base)
	if code, body := lpPost(t, url+"/receive", ""); code != 200 || body != "" {
		t.Errorf("idle receive: %d %q", code, body)
	}
	waitLeave(t, left, id)
	if code, _ := lpPost(t, url+"/receive", ""); code != 404 {
		t.Errorf("receive after session timeout: %d", code)
	}
}

// TestLongPollQueueLimit: a subscriber that does not poll is closed as a
// slow consumer past queue_limit_messages, with a log line.
func TestLongPollQueueLimit(t *testing.T) {
	base, ws, log := startLongPoll(t, `"queue_limit_messages": 5`)
	left := leaves(t, ws)
	url, id := lpJoin(t, base)
	if code, _ := lpPost(t, url+"/send", `[32, 1, {}, "com.lp.flood"]`); code != 204 {
		t.Fatalf("SUBSCRIBE: %d", code)
	}
	// The subscription is in place once SUBSCRIBED is queued: taken now,
	// so that every publication below reaches the queue.
	if _, body := lpPost(t, url+"/receive", ""); !strings.HasPrefix(body, "[33,1,") {
		t.Fatalf("first message %q, want SUBSCRIBED", body)
	}
	for range 10 {
		if _, err := ws.Publish(testCtx(t), "com.lp.flood", wamp.List{1}, nil, wamp.Dict{"acknowledge": true}); err != nil {
			t.Fatal(err)
		}
	}
	waitLeave(t, left, id)
	if !strings.Contains(log.String(), "slow consumer") {
		t.Errorf("no slow consumer log line in:\n%s", log)
	}
	_, body := lpPost(t, url+"/receive", "")
	if !strings.HasPrefix(body, "[36,") {
		t.Errorf("first queued message %q, want an EVENT", body)
	}
}
