package client

import (
	"errors"
	"testing"
)

// FuzzParseTarget: any URL and serializer is either a target or an error
// wrapping ErrDialOptions, never a panic.
func FuzzParseTarget(f *testing.F) {
	for _, seed := range []string{"ws://127.0.0.1:8080/ws", "wss://example.com", "ws+unix:///tmp/s.sock:/ws",
		"rs://h:1", "tcp://[::1]:80", "rss://h:1/", "tls://h:0", "unix:///tmp/s.sock", "unix:rel.sock",
		"ws://", "unix://h/p", "http://x", "%zz", "", "ws+unix://:", "rs://:1"} {
		f.Add(seed, "")
	}
	f.Add("ws://h/", "json")
	f.Add("rs://h:1", "xml")
	f.Fuzz(func(t *testing.T, url, serializer string) {
		dial, err := parseTarget(url, &DialOptions{Serializer: serializer})
		if (dial == nil) == (err == nil) {
			t.Fatalf("dialer %v, err %v", dial != nil, err)
		}
		if err != nil && !errors.Is(err, ErrDialOptions) {
			t.Fatalf("err %v does not wrap ErrDialOptions", err)
		}
	})
}
