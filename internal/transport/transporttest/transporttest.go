// Package transporttest holds the test doubles and checks that the
// transport packages' tests share: attachers that hand the test each
// server-side peer or echo what it receives, sample messages, the
// concurrent-send ordering check and the send/receive benchmark. It is
// imported by _test.go files only.
package transporttest

import (
	"errors"
	"io"
	"net"
	"reflect"
	"sync"
	"testing"

	"github.com/junction-wamp/junction/internal/transport/idlepoll"
	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Session is one attached server peer, handed to the test. Attach returns
// (closing the peer) once the test closes Release; Ended is closed then.
type Session struct {
	Peer    wamp.Peer
	Release chan struct{}
	Ended   chan struct{}
}

// Attacher hands every attached peer to the test on Sessions.
type Attacher struct{ Sessions chan *Session }

// NewAttacher returns an Attacher with room for 16 waiting sessions.
func NewAttacher() *Attacher { return &Attacher{Sessions: make(chan *Session, 16)} }

// Attach implements the transports' Attacher.
func (a *Attacher) Attach(p wamp.Peer) {
	s := &Session{Peer: p, Release: make(chan struct{}), Ended: make(chan struct{})}
	a.Sessions <- s
	<-s.Release
	p.Close()
	close(s.Ended)
}

// Echo sends every received message back until Recv or Send fails, then
// reports that error on Errs.
type Echo struct{ Errs chan error }

// NewEcho returns an Echo with room for 16 errors.
func NewEcho() *Echo { return &Echo{Errs: make(chan error, 16)} }

// Attach implements the transports' Attacher.
func (a *Echo) Attach(p wamp.Peer) {
	defer p.Close()
	for {
		m, err := p.Recv()
		if err == nil {
			err = p.Send(m)
		}
		if err != nil {
			a.Errs <- err
			return
		}
	}
}

// ParkingEcho is Echo over the wamp.Parker protocol, as the router reads
// such peers: it parks the peer whenever RecvOrIdle reports it idle and
// goes on when resumed. Parked receives a value for each park; once the
// session is over (Errs got why) it closes the peer, tells the transport
// with Ended if it had parked, and closes Ended.
type ParkingEcho struct {
	Errs   chan error
	Parked chan struct{}
	Ended  chan struct{}
}

// NewParkingEcho returns a ParkingEcho with room for 16 errors and parks.
func NewParkingEcho() *ParkingEcho {
	return &ParkingEcho{Errs: make(chan error, 16), Parked: make(chan struct{}, 16), Ended: make(chan struct{})}
}

// Attach implements the transports' Attacher.
func (a *ParkingEcho) Attach(p wamp.Peer) {
	pk, ok := p.(wamp.Parker)
	if !ok {
		a.Errs <- errors.New("transporttest: the peer is no wamp.Parker")
		p.Close()
		close(a.Ended)
		return
	}
	if !a.serve(p, pk) {
		p.Close()
		close(a.Ended)
	}
}

// serve echoes until the session ends (false) or the peer parked (true).
func (a *ParkingEcho) serve(p wamp.Peer, pk wamp.Parker) bool {
	for {
		m, err := pk.RecvOrIdle()
		if err == wamp.ErrIdle {
			if pk.Park(func() { a.resume(p, pk) }) {
				a.Parked <- struct{}{}
				return true
			}
			continue
		}
		if err == nil {
			err = p.Send(m)
		}
		if err != nil {
			a.Errs <- err
			return false
		}
	}
}

func (a *ParkingEcho) resume(p wamp.Peer, pk wamp.Parker) {
	if a.serve(p, pk) {
		return
	}
	p.Close()
	pk.Ended()
	close(a.Ended)
}

// SkipUnlessParkable skips the test where sessions cannot park (see
// package idlepoll: Linux only).
func SkipUnlessParkable(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !idlepoll.Parkable(c) {
		t.Skip("sessions park on Linux only")
	}
}

// EchoOnce sends m on p and checks that an echo of its type comes back.
func EchoOnce(t *testing.T, p wamp.Peer, m wamp.Message) {
	t.Helper()
	if err := p.Send(m); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Recv(); err != nil || got.Type() != m.Type() {
		t.Fatalf("echo %v, %v", got, err)
	}
}

// SampleMessages covers several message layouts, with values every codec
// decodes back to the same Go values.
func SampleMessages() []wamp.Message {
	return []wamp.Message{
		&wamp.Hello{Realm: "realm1", Details: wamp.Dict{"roles": map[string]any{"caller": map[string]any{}}}},
		&wamp.Call{Request: 1, Options: wamp.Dict{}, Procedure: "com.example.add", Args: wamp.List{"a", true, "ü€"}},
		&wamp.Publish{Request: 2, Options: wamp.Dict{"acknowledge": true}, Topic: "com.example.t", Args: wamp.List{}, Kwargs: wamp.Object{{Key: "k", Value: "v"}}},
		&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.ErrCloseNormal},
	}
}

// CheckRoundTrip sends every sample message on p to an Echo and checks
// that each comes back equal, then closes p and checks that the server's
// Recv ended with io.EOF.
func CheckRoundTrip(t *testing.T, p wamp.Peer, echo *Echo) {
	t.Helper()
	for _, want := range SampleMessages() {
		if err := p.Send(want); err != nil {
			t.Fatal(err)
		}
		got, err := p.Recv()
		if err == nil {
			got, err = wamp.Decoded(got) // a payload passed through raw, both ways
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("echo = %#v, want %#v", got, want)
		}
	}
	p.Close()
	if err := <-echo.Errs; err != io.EOF {
		t.Fatalf("server Recv after client Close = %v, want EOF", err)
	}
}

// CheckConcurrentSend sends from 8 goroutines at once on from and checks
// that to receives every message, each goroutine's in its order.
func CheckConcurrentSend(t *testing.T, from, to wamp.Peer) {
	t.Helper()
	const senders, each = 8, 200
	var wg sync.WaitGroup
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				if err := from.Send(&wamp.Published{Request: wamp.ID(g*each + i + 1), Publication: 1}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	last := make([]int, senders)
	for range senders * each {
		m, err := to.Recv()
		if err != nil {
			t.Fatal(err)
		}
		id := int(m.(*wamp.Published).Request) - 1
		if g := id / each; id%each < last[g] {
			t.Fatalf("sender %d out of order", g)
		} else {
			last[g] = id % each
		}
	}
	wg.Wait()
}

// BenchSendRecv measures Send on from -> Recv on to of a small EVENT, with
// up to 1,000 messages in flight.
func BenchSendRecv(b *testing.B, from, to wamp.Peer) {
	msg := &wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{}, Args: wamp.List{"hello", 42}}
	window := make(chan struct{}, 1000)
	done := make(chan error)
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for range b.N {
			if _, err := to.Recv(); err != nil {
				done <- err
				return
			}
			<-window
		}
		done <- nil
	}()
	for range b.N {
		window <- struct{}{}
		if err := from.Send(msg); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// CheckTraffic sends SampleMessages over p, encoded with c, to an Echo and
// checks that p's wamp.Traffic counted each message both ways, with its
// encoded size.
func CheckTraffic(t *testing.T, p wamp.Peer, c codec.Codec) {
	t.Helper()
	var want wamp.TrafficCount
	for _, m := range SampleMessages() {
		b, err := c.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		want.Messages += 2
		want.Bytes += 2 * uint64(len(b))
		want.Rated += 2 * uint64((len(b)+wamp.DefaultRatedSize-1)/wamp.DefaultRatedSize)
		if err := p.Send(m); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.(wamp.Metered).Traffic().Load(); got != want {
		t.Fatalf("traffic %+v, want %+v", got, want)
	}
}
