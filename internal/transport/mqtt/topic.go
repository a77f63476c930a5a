package mqtt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/junction-wamp/junction/wamp"
)

// errTopic is wrapped by the errors of the topic conversions.
var errTopic = errors.New("mqtt: topic cannot be mapped to WAMP")

// topicToURI maps an MQTT topic name (of a PUBLISH) to a WAMP URI: the
// level separator "/" becomes ".".
func topicToURI(topic string) (wamp.URI, error) {
	if strings.ContainsAny(topic, "+#") {
		return "", fmt.Errorf("%w: topic name %q has a wildcard", errTopic, topic)
	}
	u := wamp.URI(strings.ReplaceAll(topic, "/", "."))
	if !wamp.ValidURI(u, false, wamp.MatchExact) {
		return "", fmt.Errorf("%w: %q is not a valid URI", errTopic, u)
	}
	return u, nil
}

// uriToTopic maps a WAMP URI to an MQTT topic name.
func uriToTopic(u wamp.URI) string { return strings.ReplaceAll(string(u), ".", "/") }

// filterToURI maps an MQTT topic filter (of a SUBSCRIBE) to a WAMP URI and
// match policy: "+" levels make a wildcard subscription (the level left
// empty), a final "#" a prefix subscription; WAMP cannot have both.
func filterToURI(filter string) (wamp.URI, string, error) {
	match, topic := wamp.MatchExact, filter
	switch {
	case strings.Contains(filter, "+"):
		if strings.Contains(filter, "#") {
			return "", "", fmt.Errorf("%w: filter %q has both + and #", errTopic, filter)
		}
		for _, level := range strings.Split(filter, "/") {
			if level != "+" && strings.Contains(level, "+") {
				return "", "", fmt.Errorf("%w: filter %q: + must stand alone in its level", errTopic, filter)
			}
		}
		match, topic = wamp.MatchWildcard, strings.ReplaceAll(filter, "+", "")
	case strings.Contains(filter, "#"):
		if strings.Index(filter, "#") != len(filter)-1 || len(filter) > 1 && filter[len(filter)-2] != '/' {
			return "", "", fmt.Errorf("%w: filter %q: # must be the last level", errTopic, filter)
		}
		match, topic = wamp.MatchPrefix, filter[:len(filter)-1]
	}
	u := wamp.URI(strings.ReplaceAll(topic, "/", "."))
	if !wamp.ValidURI(u, false, match) {
		return "", "", fmt.Errorf("%w: %q (match %s) is not a valid URI", errTopic, u, match)
	}
	return u, match, nil
}
