package webhooksig

import (
	"errors"
	"strings"
)

// Sentinel errors; every error returned by Verify wraps exactly one of them.
var (
	ErrMissing = errors.New("webhooksig: signature missing")
	ErrInvalid = errors.New("webhooksig: signature invalid")
	ErrExpired = errors.New("webhooksig: timestamp outside tolerance")
)

// sigError says which scheme and header failed, and how. Its text is built
// from constants, header names and integers only: never from the secret,
// the expected MAC or the received value.
type sigError struct {
	scheme Scheme
	header string
	reason string
	kind   error // ErrMissing, ErrInvalid or ErrExpired
}

func (e *sigError) Error() string {
	var b strings.Builder
	b.WriteString("webhooksig: ")
	if e.scheme != "" {
		b.WriteString(string(e.scheme))
		b.WriteString(": ")
	}
	if e.header != "" {
		b.WriteString(e.header)
		b.WriteString(": ")
	}
	b.WriteString(e.reason)
	return b.String()
}

func (e *sigError) Unwrap() error { return e.kind }

func fail(s Scheme, header string, kind error, reason string) error {
	return &sigError{scheme: s, header: header, reason: reason, kind: kind}
}

func missing(s Scheme, header string) error {
	return fail(s, header, ErrMissing, "header missing")
}

func mismatch(s Scheme, header string) error {
	return fail(s, header, ErrInvalid, "signature does not match")
}
