//go:build race

package nodeproc

// RaceEnabled says whether this test binary was built with -race; pass it
// to [Build] so that junction is built the same way.
const RaceEnabled = true
