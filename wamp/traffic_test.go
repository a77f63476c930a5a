package wamp

import "testing"

func TestTrafficRated(t *testing.T) {
	tests := []struct {
		size  int
		sizes []int
		want  TrafficCount
	}{
		{0, []int{1, 512, 513}, TrafficCount{Messages: 3, Bytes: 1026, Rated: 1 + 1 + 2}},
		{256, []int{0, 256, 257, 1000}, TrafficCount{Messages: 4, Bytes: 1513, Rated: 1 + 1 + 2 + 4}},
	}
	for _, tt := range tests {
		var tr Traffic
		tr.SetRatedSize(tt.size)
		for _, n := range tt.sizes {
			tr.Count(n)
		}
		if got := tr.Load(); got != tt.want {
			t.Errorf("size %d, %v: %+v, want %+v", tt.size, tt.sizes, got, tt.want)
		}
	}
}

func TestTrafficWatchFiresOnce(t *testing.T) {
	var tr Traffic
	fired := 0
	tr.Watch(&TrafficWatch{At: 3, Fn: func() { fired++ }})
	for range 2 {
		tr.Count(10)
	}
	if fired != 0 {
		t.Fatalf("fired at 2 rated messages, watch at 3")
	}
	for range 3 {
		tr.Count(10)
	}
	if fired != 1 {
		t.Fatalf("fired %d times, want once", fired)
	}
	tr.Watch(nil)
	tr.Count(10)
	var nilTraffic *Traffic
	nilTraffic.Count(10)
	if got := nilTraffic.Load(); got != (TrafficCount{}) {
		t.Fatalf("nil traffic counted %+v", got)
	}
}

// Add never fires the watch (senders may hold a lock); Check does.
func TestTrafficAddThenCheck(t *testing.T) {
	var tr Traffic
	fired := 0
	if (*Traffic)(nil).Due() || tr.Due() {
		t.Fatal("Due without a watch")
	}
	tr.Watch(&TrafficWatch{At: 2, Fn: func() { fired++ }})
	tr.Add(10)
	if fired != 0 || tr.Due() {
		t.Fatalf("after one message: fired %d, Due %v; want neither", fired, tr.Due())
	}
	tr.Add(10)
	if fired != 0 || !tr.Due() {
		t.Fatalf("after two messages: fired %d, Due %v; want Due only", fired, tr.Due())
	}
	tr.Check()
	tr.Check()
	if fired != 1 || tr.Due() {
		t.Fatalf("Check fired %d times, want once; Due %v after", fired, tr.Due())
	}
}
