//go:build !linux

package web

// loopEngines is empty: the loop engine runs on Linux only.
var loopEngines []string
