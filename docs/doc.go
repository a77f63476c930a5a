// Package docs is Junction's user documentation: the Markdown pages in this
// directory and the example configurations in examples/. It has no code.
//
// Its tests keep the pages and the examples honest: every examples/*.json
// and *.yaml file must load with package config, with exactly the warnings
// listed in the test (none unless listed), must start and stop with package
// node (ports rewritten to 0, directories and TLS files to temporary ones),
// and must be named by at least one page. examples/minimal.json must be the
// embedded default configuration, byte for byte.
//
// The HTTP bridge pages (caller.md ... reverseproxy.md) and the README's
// tour show curl commands with their answers: the tests check that the
// pages show them, send them to the started example (examples/bridge.json,
// its upstreams pointed at test servers, or the embedded default) and
// compare the answers byte for byte.
//
// library.md and the README show Go programs that test/publicapi (a module
// of its own, run by make test) runs as examples: the tests check that the
// pages show them byte for byte, and that library.md lists every exported
// name of package junction as stable.
package docs
