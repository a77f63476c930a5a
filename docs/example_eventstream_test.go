package docs

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// TestBridgeExampleEventStream runs eventstream.md's commands: a stream
// of /events, a publication through /publish that it shows with the
// Publisher's ID, and a topic the role may not follow.
func TestBridgeExampleEventStream(t *testing.T) {
	ex := startBridgeExample(t)
	page := readPage(t, "eventstream.md")
	const open = `curl -sN 'http://127.0.0.1:8080/events?topic=com.example.news&get_retained=true'`
	if !strings.Contains(page, open+"\n") {
		t.Fatalf("eventstream.md does not show %s", open)
	}
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Do(curlRequest(t, open, ex.base))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	_, body := curlCase{`curl -s http://127.0.0.1:8080/publish -H 'Content-Type: application/json' -d '{"topic":"com.example.news","args":["hello"],"kwargs":{"from":"curl","n":1}}'`,
		200, ""}.run(t, "eventstream.md", ex.base)
	var published struct{ ID uint64 }
	if err := json.Unmarshal([]byte(body), &published); err != nil {
		t.Fatalf("publish answer %s: %v", body, err)
	}
	shown := "id: 4870315522719742\nevent: com.example.news\ndata: {\"args\":[\"hello\"],\"kwargs\":{\"from\":\"curl\",\"n\":1}}\n"
	if !strings.Contains(page, "```text\n"+shown+"```") {
		t.Errorf("eventstream.md does not show the event as\n%s", shown)
	}
	want := strings.Replace(shown, "4870315522719742", strconv.FormatUint(published.ID, 10), 1) + "\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(bufio.NewReader(resp.Body), got); err != nil || string(got) != want {
		t.Errorf("stream: got %q %v,\nwant %q", got, err, want)
	}

	curlCase{`curl -s 'http://127.0.0.1:8080/events?topic=com.example.orders'`,
		403, `{"error":"wamp.error.not_authorized","args":["session is not authorized to subscribe to \"com.example.orders\""],"kwargs":{}}`,
	}.run(t, "eventstream.md", ex.base)
}

// countdown is caller.md's com.example.countdown: args[0] down to 1 as
// progressive results, then "liftoff".
func countdown(_ context.Context, inv *client.Invocation) (*client.Result, error) {
	n, _ := wamp.AsInt(inv.Args[0])
	for i := n; i > 0; i-- {
		if err := inv.SendProgress(&client.Result{Args: wamp.List{i}}); err != nil {
			return nil, err
		}
	}
	return &client.Result{Args: wamp.List{"liftoff"}}, nil
}

// TestBridgeExampleCallerStream runs caller.md's call with progressive
// results as an event stream.
func TestBridgeExampleCallerStream(t *testing.T) {
	ex := startBridgeExample(t)
	if _, err := ex.session.Register(testCtx(t), "com.example.countdown", countdown, nil); err != nil {
		t.Fatal(err)
	}
	const cmd = `curl -sN http://127.0.0.1:8080/call -H 'Accept: text/event-stream' -H 'Content-Type: application/json' -d '{"procedure":"com.example.countdown","args":[3]}'`
	want := "event: progress\ndata: {\"args\":[3],\"kwargs\":{}}\n\n" +
		"event: progress\ndata: {\"args\":[2],\"kwargs\":{}}\n\n" +
		"event: progress\ndata: {\"args\":[1],\"kwargs\":{}}\n\n" +
		"event: result\ndata: {\"args\":[\"liftoff\"]}\n"
	page := readPage(t, "caller.md")
	if !strings.Contains(page, cmd+"\n```\n\n"+"```text\n"+want+"```") {
		t.Errorf("caller.md does not show %s and its answer", cmd)
	}
	resp, body := send(t, curlRequest(t, cmd, ex.base))
	if resp.StatusCode != 200 || body != want+"\n" {
		t.Errorf("got %d %q,\nwant %q", resp.StatusCode, body, want+"\n")
	}
}
