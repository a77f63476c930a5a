//go:build !race

package interop_test

// raceEnabled: this test binary was built with -race, and so is junction.
const raceEnabled = false
