// Package config is Junction's node configuration: Crossbar.io's node
// configuration format (version 2), read from JSON or YAML.
//
// It is data and validation only. Parse and Load decode a document strictly
// (unknown keys are errors, with the key probably meant), pick each object's
// Go type by its "type" key, substitute ${NAME} environment variables, fill
// in defaults and check every value, and report every problem at once, each
// at its JSON path (see FieldError). Nothing here starts anything: package
// node translates a Config into the runtime packages' own options.
//
// The field comments of the exported types are the configuration manual:
// each says the JSON key, what it means and its default.
package config
