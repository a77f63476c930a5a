package node

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/wamp"
)

// BenchmarkScrapeMetrics measures one scrape of /metrics (collecting the
// routers' counters, summing, encoding the text format, the Go runtime
// and process collectors included) on a node with many sessions joined:
// sessions over in-memory pairs, each subscribed to a topic of its own.
func BenchmarkScrapeMetrics(b *testing.B) {
	for _, sessions := range []int{100, 10000} {
		b.Run("sessions="+strconv.Itoa(sessions), func(b *testing.B) {
			benchScrape(b, sessions)
		})
	}
}

func benchScrape(b *testing.B, sessions int) {
	n, err := New(parse(b, `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}, {"name": "realm2"}]}]}`, nil), Options{})
	if err != nil {
		b.Fatal(err)
	}
	startNode(b, n)
	dial := localDialer(n.routers[0].router.Gate())
	for i := range sessions {
		p, err := dial(testCtx(b))
		if err != nil {
			b.Fatal(err)
		}
		s, err := client.Join(testCtx(b), p, client.Config{Realm: "realm1"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		if _, err := s.Subscribe(testCtx(b), wamp.URI("com.bench.t"+strconv.Itoa(i)), func(*client.Event) {}, nil); err != nil {
			b.Fatal(err)
		}
	}
	srv := httptest.NewServer(metrics.Handler(n.Stats))
	defer srv.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Get(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
