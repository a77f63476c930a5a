package mqtt

import (
	"errors"
	"testing"

	"github.com/junction-wamp/junction/wamp"
)

func TestFilterToURI(t *testing.T) {
	for _, tc := range []struct {
		filter string
		uri    wamp.URI
		match  string
		bad    bool
	}{
		{filter: "a/b", uri: "a.b", match: wamp.MatchExact},
		{filter: "a/+/c", uri: "a..c", match: wamp.MatchWildcard},
		{filter: "+", uri: "", match: wamp.MatchWildcard},
		{filter: "a/#", uri: "a.", match: wamp.MatchPrefix},
		{filter: "#", uri: "", match: wamp.MatchPrefix},
		{filter: "a/+/#", bad: true},
		{filter: "a+/b", bad: true},
		{filter: "a/#/b", bad: true},
		{filter: "a#", bad: true},
		{filter: "a//b", bad: true},
		{filter: "a b", bad: true},
		{filter: "", bad: true},
	} {
		u, m, err := filterToURI(tc.filter)
		if tc.bad {
			if !errors.Is(err, errTopic) {
				t.Errorf("%q: err %v, want errTopic", tc.filter, err)
			}
			continue
		}
		if err != nil || u != tc.uri || m != tc.match {
			t.Errorf("%q: %q %s %v, want %q %s", tc.filter, u, m, err, tc.uri, tc.match)
		}
	}
}

func TestTopicToURI(t *testing.T) {
	if u, err := topicToURI("com/example/x"); err != nil || u != "com.example.x" {
		t.Fatalf("%q %v", u, err)
	}
	for _, bad := range []string{"a/+", "a/#", "a//b", "/a", "a b"} {
		if _, err := topicToURI(bad); !errors.Is(err, errTopic) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	if got := uriToTopic("com.example.x"); got != "com/example/x" {
		t.Errorf("uriToTopic: %q", got)
	}
}
