//go:build race

package e2e_test

// raceEnabled: this test binary was built with -race, and so is junction.
const raceEnabled = true
