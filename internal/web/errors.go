package web

import "errors"

// Sentinel errors returned (wrapped) by the builders of this package.
var (
	// ErrBadKey: a path key that is not one URL segment or "/".
	ErrBadKey = errors.New("web: bad path key")
	// ErrDuplicateKey: a second service for a key already mounted.
	ErrDuplicateKey = errors.New("web: duplicate path key")
	// ErrBadOption: an invalid service option.
	ErrBadOption = errors.New("web: bad option")
)
