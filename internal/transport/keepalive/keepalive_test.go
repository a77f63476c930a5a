package keepalive

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestPingThenExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pinged, expired := make(chan time.Time, 4), make(chan time.Time, 1)
		start := time.Now()
		k := New(10*time.Second, 5*time.Second, func() { pinged <- time.Now() }, func() { expired <- time.Now() })
		k.Start()
		if at := (<-pinged).Sub(start); at != 10*time.Second {
			t.Fatalf("ping after %v, want 10s", at)
		}
		if at := (<-expired).Sub(start); at != 15*time.Second {
			t.Fatalf("expired after %v, want 15s", at)
		}
		time.Sleep(time.Minute)
		if len(pinged) != 0 || len(expired) != 0 {
			t.Fatal("timer still running after expiry")
		}
	})
}

func TestTrafficDefersPing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pinged := make(chan time.Time, 4)
		start := time.Now()
		k := New(10*time.Second, 0, func() { pinged <- time.Now() }, func() { t.Error("expired") })
		k.Start()
		time.Sleep(5 * time.Second)
		k.Seen() // the tick at 10s sees traffic; the next at 20s pings
		if at := (<-pinged).Sub(start); at != 20*time.Second {
			t.Fatalf("ping after %v, want 20s", at)
		}
		k.Seen() // the pong; the timeout tick at 30s re-arms
		time.Sleep(15 * time.Second)
		k.Stop()
		time.Sleep(time.Minute)
	})
}

func TestNilTimer(t *testing.T) {
	var k *Timer
	k.Start()
	k.Seen()
	k.Stop()
}
