package main

import (
	"context"
	"errors"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/wamp"
)

// The program of docs/library.md, run as it is.
func Example() {
	main()
	// Output:
	// 2 + 3 = 5
	// event: 5
}

// TestAdd2Refuses: add2 answers wamp.error.invalid_argument for anything
// but two integers.
func TestAdd2Refuses(t *testing.T) {
	for _, args := range []wamp.List{nil, {1}, {1, "2"}, {1.5, 2}, {1, 2, 3}} {
		_, err := add2(nil)(context.Background(), &client.Invocation{Args: args})
		var re *wamp.RequestError
		if !errors.As(err, &re) || re.URI != wamp.ErrInvalidArgument {
			t.Errorf("add2%v: %v, want %s", args, err, wamp.ErrInvalidArgument)
		}
	}
}
