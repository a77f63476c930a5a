package longpoll

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/junction-wamp/junction/internal/transport/transporttest"
)

// BenchmarkLongPollSendRecv measures server Send -> client Recv of a
// small EVENT over long-poll on loopback, with up to 1,000 messages in
// flight (queue limits off), as the WebSocket and RawSocket packages'
// BenchmarkSendRecv do: one message per receive with a plain protocol,
// every queued one with a batched protocol.
func BenchmarkLongPollSendRecv(b *testing.B) {
	for _, proto := range []string{"wamp.2.msgpack", "wamp.2.msgpack.batched", "wamp.2.json"} {
		b.Run(proto, func(b *testing.B) {
			a := transporttest.NewAttacher()
			h, err := NewHandler(Options{Attacher: a, QueueLimitMessages: -1, QueueLimitBytes: -1})
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			c, err := Dial(context.Background(), srv.URL, proto, srv.Client())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			s := <-a.Sessions
			defer close(s.Release)
			transporttest.BenchSendRecv(b, s.Peer, c)
		})
	}
}
