package node

import (
	"errors"
	"strings"

	"github.com/junction-wamp/junction/internal/config"
)

// New reports every problem it finds: each builder returns its problems
// as a *config.FieldError, or a config.Errors when it found several, and
// the builder gathers them (builder.fail). The text of a problem is "path:
// message", so a build error reads like a load error.

// fieldError is a build problem at a JSON path.
func fieldError(path string, err error) *config.FieldError {
	return &config.FieldError{Path: path, Msg: err.Error()}
}

// relError is a problem reported by a parser that names the field relative
// to the object at path ("require_ip[1]: invalid prefix length"): the
// field joins the path, so that the problem sorts at its own place.
func relError(path string, err error) *config.FieldError {
	rel, msg, ok := strings.Cut(err.Error(), ": ")
	if !ok || rel == "" {
		return fieldError(path, err)
	}
	return &config.FieldError{Path: path + "." + rel, Msg: msg}
}

// appendError appends the problems of err to es: the *config.FieldError
// of a config.Errors or err itself; any other error is kept at no path.
func appendError(es config.Errors, err error) config.Errors {
	var list config.Errors
	var fe *config.FieldError
	switch {
	case err == nil:
		return es
	case errors.As(err, &list):
		return append(es, list...)
	case errors.As(err, &fe):
		return append(es, fe)
	}
	return append(es, &config.FieldError{Msg: err.Error()})
}

// joinErrors gathers the problems of errs into one config.Errors; nil when
// there is none.
func joinErrors(errs ...error) error {
	var es config.Errors
	for _, err := range errs {
		es = appendError(es, err)
	}
	if len(es) == 0 {
		return nil
	}
	return es
}
