package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestRetryable: the errors of JetStream not being ready yet are tried
// again, among them a stream not found (asked of a bucket that exists, of
// a server that has not yet applied its creation); others are not.
func TestRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"temporarily unavailable", &jetstream.APIError{Code: 503, ErrorCode: 10008}, true},
		{"no suitable peers", &jetstream.APIError{Code: 400, ErrorCode: 10005}, true},
		{"no leader", &jetstream.APIError{Code: 503}, true},
		{"stream not found, as the API answers it", &jetstream.APIError{Code: 404, ErrorCode: jetstream.JSErrCodeStreamNotFound, Description: "stream not found"}, true},
		{"stream not found, wrapped", fmt.Errorf("bucket: %w", jetstream.ErrStreamNotFound), true},
		{"bucket not found", jetstream.ErrBucketNotFound, true},
		{"no responders", nats.ErrNoResponders, true},
		{"an attempt's deadline", context.DeadlineExceeded, true},
		{"key not found", jetstream.ErrKeyNotFound, false},
		{"key exists", jetstream.ErrKeyExists, false},
		{"bad request", &jetstream.APIError{Code: 400, ErrorCode: 10003}, false},
		{"other", errors.New("disk full"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryable(tt.err); got != tt.want {
				t.Errorf("retryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}
