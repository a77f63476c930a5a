package bridge

import (
	"github.com/junction-wamp/junction/wamp"
)

// MaxStreamTopics is the most topics one event stream subscribes to.
const MaxStreamTopics = 32

// Texts of an event stream's refusals.
const (
	textStreamMethod    = "Method not accepted by the event stream. (%s not allowed, only GET)"
	textNoTopic         = "Missing query parameter 'topic'."
	textTooManyTopics   = "Too many topics. (%d, at most %d)"
	textEmptyTopic      = "Query parameter 'topic' must not be empty."
	textBadMatch        = "Query parameter 'match' must be exact, prefix or wildcard, not '%s'."
	textBadGetRetained  = "Query parameter 'get_retained' must be true or false, not '%s'."
	textStreamsShutdown = "The event stream is shutting down, retry later."
)

// streamQuery is an event stream's request: GET
// ?topic=URI[&topic=URI...][&match=exact|prefix|wildcard][&get_retained=true].
type streamQuery struct {
	topics      []wamp.URI // in the query's order, without repeats
	match       string     // "" for exact
	getRetained bool
}

// parseStreamQuery reads an event stream's query, parsed as the other
// services' (queryItems). "topic" may repeat, the one parameter that does:
// the stream subscribes to each; of any other repeated name the first
// value wins. Unknown parameters are ignored (the credential of a later
// identity option, cache busters).
func parseStreamQuery(raw string) (sq streamQuery, err error) {
	var match, retained *string
	for name, value := range queryItems(raw) {
		switch name {
		case "topic":
			err = sq.addTopic(value)
		case "match":
			if match == nil {
				match = &value
			}
		case "get_retained":
			if retained == nil {
				retained = &value
			}
		}
		if err != nil {
			return sq, err
		}
	}
	if len(sq.topics) == 0 {
		return sq, badRequest(textNoTopic)
	}
	if sq.match, err = matchParam(match); err != nil {
		return sq, err
	}
	sq.getRetained, err = retainedParam(retained)
	return sq, err
}

// addTopic adds a topic, unless it is there already.
func (sq *streamQuery) addTopic(v string) error {
	if v == "" {
		return badRequest(textEmptyTopic)
	}
	for _, t := range sq.topics {
		if string(t) == v {
			return nil
		}
	}
	if len(sq.topics) == MaxStreamTopics {
		return badRequest(textTooManyTopics, len(sq.topics)+1, MaxStreamTopics)
	}
	sq.topics = append(sq.topics, wamp.URI(v))
	return nil
}

// matchParam is the match policy: "" (exact) when absent.
func matchParam(v *string) (string, error) {
	if v == nil {
		return "", nil
	}
	switch *v {
	case "exact", "":
		return "", nil
	case wamp.MatchPrefix, wamp.MatchWildcard:
		return *v, nil
	}
	return "", badRequest(textBadMatch, echo(*v))
}

// retainedParam reads get_retained: true or false (absent: false).
func retainedParam(v *string) (bool, error) {
	if v == nil {
		return false, nil
	}
	switch *v {
	case "true":
		return true, nil
	case "false", "":
		return false, nil
	}
	return false, badRequest(textBadGetRetained, echo(*v))
}

// options are the SUBSCRIBE options of the query.
func (sq *streamQuery) options() wamp.Dict {
	if sq.match == "" && !sq.getRetained {
		return nil
	}
	d := wamp.Dict{}
	if sq.match != "" {
		d[wamp.OptMatch] = sq.match
	}
	if sq.getRetained {
		d[wamp.OptGetRetained] = true
	}
	return d
}
