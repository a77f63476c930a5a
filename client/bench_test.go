package client

import (
	"context"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

// echoRouter answers every CALL with a RESULT carrying its arguments, until
// the connection closes.
func echoRouter(p *fakePeer) {
	for {
		m, err := p.Recv()
		if err != nil {
			return
		}
		if c, ok := m.(*wamp.Call); ok {
			_ = p.Send(&wamp.Result{Request: c.Request, Args: c.Args, Kwargs: c.Kwargs})
		}
	}
}

func BenchmarkCall(b *testing.B) {
	s, r := joined(b, Config{})
	go echoRouter(r.p)
	ctx := context.Background()
	args := wamp.List{1, "two"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Call(ctx, "com.echo", args, nil)
		if err != nil || len(res.Args) != 2 {
			b.Fatal(res, err)
		}
	}
}

func BenchmarkCallParallel(b *testing.B) {
	s, r := joined(b, Config{})
	go echoRouter(r.p)
	ctx := context.Background()
	args := wamp.List{1}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Call(ctx, "com.echo", args, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
