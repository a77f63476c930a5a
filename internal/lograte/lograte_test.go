package lograte

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := Limit{Interval: time.Second}
		steps := []struct {
			wait time.Duration // fake time passed before the event
			ok   bool
			held int
		}{
			{0, true, 0}, // the first one goes through
			{0, false, 0},
			{500 * time.Millisecond, false, 0},
			{499 * time.Millisecond, false, 0},
			{time.Millisecond, true, 3}, // one interval after the last logged
			{0, false, 0},
			{5 * time.Second, true, 1},
			{time.Second, true, 0},
		}
		for i, s := range steps {
			time.Sleep(s.wait)
			if ok, held := l.Allow(); ok != s.ok || held != s.held {
				t.Errorf("step %d: Allow() = %v, %d; want %v, %d", i, ok, held, s.ok, s.held)
			}
		}
	})
}
