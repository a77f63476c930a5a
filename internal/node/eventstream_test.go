package node

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/browsertest"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

// eventStreamDoc is a node with WAMP at /ws, an event stream at /events
// (role "reader": may subscribe below com.example.) with more options
// (none when ""), and the static directory dir at /. Role "user" may
// subscribe below com.example.news.
func eventStreamDoc(dir, options string) string {
	if options != "" {
		options = ", " + options
	}
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true},
			{"name": "reader", "permissions": [{"uri": "com.example.", "match": "prefix", "allow": {"subscribe": true}}]},
			{"name": "user", "permissions": [{"uri": "com.example.news", "match": "prefix", "allow": {"subscribe": true}}]}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0}, "paths": {
			"/": {"type": "static", "directory": "` + dir + `"},
			"ws": {"type": "websocket"},
			"events": {"type": "eventstream", "realm": "realm1", "role": "reader", "options": {"heartbeat_interval": 0` + options + `}}}}]}]}`
}

// publishAcked publishes from s, acknowledged, and returns the ID.
func publishAcked(t *testing.T, s *client.Session, topic wamp.URI, args wamp.List, opts wamp.Dict) wamp.ID {
	t.Helper()
	d := wamp.Dict{wamp.OptAcknowledge: true}
	for k, v := range opts {
		d[k] = v
	}
	id, err := s.Publish(testCtx(t), topic, args, nil, d)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestEventStreamService: the eventstream path of a node streams the
// events of its role's topics, refuses others with 403, and its open
// streams end cleanly when the node stops (without holding Stop up).
func TestEventStreamService(t *testing.T) {
	n := start(t, parse(t, eventStreamDoc(t.TempDir(), ""), nil), t.TempDir())
	addr := address(t, n, web0)
	pub := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})

	resp, err := http.Get("http://" + addr + "/events?topic=org.other.t")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.HasPrefix(string(body), `{"error":"wamp.error.not_authorized"`) {
		t.Errorf("a topic the role may not subscribe: %d %s", resp.StatusCode, body)
	}

	req, _ := http.NewRequestWithContext(testCtx(t), "GET", "http://"+addr+"/events?topic=com.example.t", nil)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("stream: %d", resp.StatusCode)
	}
	id := publishAcked(t, pub, "com.example.t", wamp.List{"hi"}, nil)
	r := bufio.NewReader(resp.Body)
	want := "id: " + strconv.FormatUint(uint64(id), 10) + "\nevent: com.example.t\ndata: {\"args\":[\"hi\"],\"kwargs\":{}}\n\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
		t.Fatalf("got %q %v, want %q", got, err, want)
	}

	if st := streamStats(n); st == nil || st.Open != 1 {
		t.Errorf("stats %+v", st)
	}

	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := n.Stop(ctx); err != nil {
		t.Fatalf("Stop with a stream open: %v", err)
	}
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Errorf("the stream did not end cleanly: %q %v", rest, err)
	}
	if st := streamStats(n); st == nil || st.Open != 0 || st.Delivered != 1 {
		t.Errorf("stats after Stop %+v", st)
	}
}

// eventStreamPage is a page that opens an EventSource on /events and
// lists what it gets: each event as "lastEventId data", the opens.
const eventStreamPage = `<!doctype html><meta charset="utf-8"><title>events</title><link rel="icon" href="data:,">
<p id="opens">0</p><ul id="log"></ul>
<script>
let opens = 0;
const es = new EventSource("/events?topic=com.example.news&get_retained=true&access_token=k-alice");
es.onopen = () => { document.getElementById("opens").textContent = String(++opens); };
es.addEventListener("com.example.news", (e) => {
  const li = document.createElement("li");
  li.textContent = e.lastEventId + " " + e.data;
  document.getElementById("log").append(li);
});
</script>`

// TestEventStreamBrowser: a browser's EventSource, its API key as the
// access_token query parameter, gets the retained event first, then the
// live ones meant for it with their publication IDs (not one published
// for another authid), and reconnects by itself when the stream ends
// (the service's session was killed), getting the retained event again.
func TestEventStreamBrowser(t *testing.T) {
	b := browsertest.New(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(eventStreamPage), 0o644); err != nil {
		t.Fatal(err)
	}
	n := start(t, parse(t, eventStreamDoc(dir, `"allow_query_token": true,
		"auth": {"api_keys": {"k-alice": {"authid": "alice", "authrole": "user"}}}`), nil), t.TempDir())
	addr := address(t, n, web0)
	pub := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	first := publishAcked(t, pub, "com.example.news", wamp.List{"first"}, wamp.Dict{wamp.OptRetain: true})

	b.Navigate(t, "http://"+addr+"/")
	b.WaitText(t, "#opens", "1")
	b.WaitText(t, "#log li:nth-child(1)", strconv.FormatUint(uint64(first), 10)+` {"args":["first"],"kwargs":{}}`)
	publishAcked(t, pub, "com.example.news", wamp.List{"for bob"}, wamp.Dict{wamp.OptEligibleAuthID: []any{"bob"}})
	second := publishAcked(t, pub, "com.example.news", wamp.List{"second"}, nil)
	b.WaitText(t, "#log li:nth-child(2)", strconv.FormatUint(uint64(second), 10)+` {"args":["second"],"kwargs":{}}`)

	killStreamSession(t, pub)
	b.WaitText(t, "#opens", "2")
	b.WaitText(t, "#log li:nth-child(3)", strconv.FormatUint(uint64(first), 10)+` {"args":["first"],"kwargs":{}}`)
	if errs := b.ConsoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// killStreamSession kills the event stream service's session (the one
// with role "reader") through the meta API.
func killStreamSession(t *testing.T, s *client.Session) {
	t.Helper()
	res, err := s.Call(testCtx(t), "wamp.session.kill_by_authrole", wamp.List{"reader"}, nil)
	if err != nil || len(res.Args) != 1 {
		t.Fatalf("kill: %v %v", res, err)
	}
}

// streamStats are the node's event stream service's stream counters, nil
// when it has none.
func streamStats(n *Node) *metrics.StreamStats {
	for _, s := range n.Stats().Services {
		if s.Type == metrics.ServiceEventStream {
			return s.Streams
		}
	}
	return nil
}
