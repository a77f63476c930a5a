package web

// loopEngines are the engines of onEngines beyond net/http's and h1:
// the loop engine, on Linux.
var loopEngines = []string{EngineLoop}
