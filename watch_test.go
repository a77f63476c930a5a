package junction

import (
	"errors"
	"testing"

	"github.com/junction-wamp/junction/client"
)

// TestStopsByItself: when the node decides to stop (a worker exited under
// a controller shutdown trigger, which takes a Python runner to cause),
// it stops, Done is closed and Err says why.
func TestStopsByItself(t *testing.T) {
	failed := errors.New("workers[1]: exit status 3")
	for _, why := range []error{nil, failed} {
		n, err := Start(t.Context(), RouterConfig(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		requested := make(chan struct{})
		close(requested)
		n.watch(requested, func() error { return why })
		<-n.Done()
		if err := n.Err(); !errors.Is(err, why) || (err == nil) != (why == nil) {
			t.Errorf("Err: %v, want %v", err, why)
		}
		if _, err := n.Join(t.Context(), client.Config{Realm: "realm1"}); !errors.Is(err, ErrNotRunning) {
			t.Errorf("Join after the stop: %v, want ErrNotRunning", err)
		}
	}
}
