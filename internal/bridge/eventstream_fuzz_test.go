package bridge

import (
	"errors"
	"net/url"
	"slices"
	"testing"
)

// FuzzStreamQuery: any query parses to an error with a 400 or to a stream
// of 1..MaxStreamTopics distinct non-empty topics and a known match; and
// every non-empty topic the standard library's parser reads (which
// splits on '&' alone) is one of them when the query has no ';' or '%'.
func FuzzStreamQuery(f *testing.F) {
	for _, seed := range []string{
		"topic=com.example.t", "topic=a&topic=b&topic=a", "topic=a;topic=b", "topic=a%2Eb&match=prefix",
		"topic=a&match=wildcard&get_retained=true", "topic=&match=exact", "topic=a&match=regex",
		"topic=a&get_retained=1", "match=prefix", "topic=a+b&access_token=x", "topic=%zz", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		sq, err := parseStreamQuery(raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("%q: error %v is not a 400", raw, err)
			}
			return
		}
		if len(sq.topics) == 0 || len(sq.topics) > MaxStreamTopics {
			t.Fatalf("%q: %d topics", raw, len(sq.topics))
		}
		for i, topic := range sq.topics {
			if topic == "" || slices.Contains(sq.topics[:i], topic) {
				t.Fatalf("%q: topics %q", raw, sq.topics)
			}
		}
		if sq.match != "" && sq.match != "prefix" && sq.match != "wildcard" {
			t.Fatalf("%q: match %q", raw, sq.match)
		}
		std, stdErr := url.ParseQuery(raw)
		if stdErr != nil || slices.ContainsFunc([]byte(raw), func(c byte) bool { return c == ';' || c == '%' }) {
			return
		}
		for _, topic := range std["topic"] {
			// An item without '=' is a blank value there, dropped here.
			if topic != "" && !slices.Contains(sq.topics, wampURI(topic)) {
				t.Fatalf("%q: topic %q missing from %q", raw, topic, sq.topics)
			}
		}
	})
}
