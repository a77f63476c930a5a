package config

import _ "embed"

// DefaultJSON is the configuration a node runs without a configuration
// file, and what "junction init" writes: realm "realm1" where role
// "anonymous" may call, register, publish and subscribe on every URI, and
// one web transport on 127.0.0.1:8080 (loopback only) with a node info page
// at "/", WAMP over WebSocket at "/ws", and the HTTP bridge: a caller at
// "/call", a publisher at "/publish" and a webhook at "/webhook" (topic
// com.example.webhook), all as role "anonymous" on realm1.
//
//go:embed default.json
var DefaultJSON []byte

// Default returns a new copy of the decoded DefaultJSON.
func Default() *Config {
	c, _, err := Loader{LookupEnv: noEnv}.Parse(DefaultJSON, JSON)
	if err != nil {
		panic("config: the embedded default configuration is invalid: " + err.Error())
	}
	return c
}

func noEnv(string) (string, bool) { return "", false }
