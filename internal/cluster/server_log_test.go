package cluster

import "testing"

func TestPeerGone(t *testing.T) {
	tests := []struct {
		msg  string
		want bool
	}{
		{"127.0.0.1:59968 - rid:8 - Error flushing: writev tcp 127.0.0.1:44391->127.0.0.1:59968: writev: broken pipe", true},
		{"127.0.0.1:6222 - rid:3 - read: connection reset by peer", true},
		{"Error trying to connect to route (attempt 4): dial tcp 127.0.0.1:6223: connect: connection refused", true},
		{"Error listening on router port: 6222 - listen tcp 127.0.0.1:6222: bind: address already in use", false},
		{"JetStream failed to store a msg", false},
	}
	for _, tt := range tests {
		if got := peerGone(tt.msg); got != tt.want {
			t.Errorf("peerGone(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
