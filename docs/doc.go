// Package docs is Junction's user documentation: the Markdown pages in this
// directory and the example configurations in examples/. It has no code.
//
// Its tests keep the pages and the examples honest: every examples/*.json
// and *.yaml file must load with package config, with exactly the warnings
// listed in the test (none unless listed), must start and stop with package
// node (ports rewritten to 0, directories and TLS files to temporary ones),
// and must be named by at least one page. examples/minimal.json must be the
// embedded default configuration, byte for byte.
package docs
