package ctxwait

import (
	"context"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		d    time.Duration
		want bool
	}{
		{"d passes", context.Background(), time.Millisecond, true},
		{"no wait", context.Background(), 0, true},
		{"ctx ended", ended, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sleep(tt.ctx, tt.d); got != tt.want {
				t.Errorf("Sleep = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSleepCancelled: a context cancelled during the wait ends it.
func TestSleepCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool)
	go func() { done <- Sleep(ctx, time.Hour) }()
	cancel()
	if <-done {
		t.Error("Sleep reported d passed after its context was cancelled")
	}
}
