package config

import (
	"strings"
	"testing"
	"time"
)

// TestWebBodyOptions: "body_timeout" and "body_buffer_limit" of a web
// transport, absent, given, and at their bounds.
func TestWebBodyOptions(t *testing.T) {
	tests := []struct {
		name    string
		options string
		timeout time.Duration
		buffer  int64
	}{
		{"absent", `"access_log": false`, DefaultBodyTimeout, DefaultBodyBufferLimit},
		{"given", `"body_timeout": 5, "body_buffer_limit": 1048576`, 5 * time.Second, 1 << 20},
		{"bounds", `"body_timeout": 86400, "body_buffer_limit": 1`, 86400 * time.Second, 1},
		{"unbounded", `"body_buffer_limit": 0`, DefaultBodyTimeout, NoBodyBufferLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, webOptions(tt.options))
			o := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Options
			if o.BodyTimeout != tt.timeout || o.BodyBufferLimit != tt.buffer {
				t.Errorf("body_timeout %v, body_buffer_limit %d; want %v, %d", o.BodyTimeout, o.BodyBufferLimit, tt.timeout, tt.buffer)
			}
		})
	}
	c, _ := mustParse(t, web(`{}`))
	if o := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Options; o.BodyTimeout != DefaultBodyTimeout || o.BodyBufferLimit != DefaultBodyBufferLimit {
		t.Errorf("without options: %+v", o)
	}
}

// TestWebBodyOptionChecks: each rule and warning of the body options, at
// its path, a bridge service's limit over the buffer included (nested).
func TestWebBodyOptionChecks(t *testing.T) {
	nested := func(options string) string {
		return transports(`{"type": "web", "endpoint": {"type": "tcp", "port": 80}, "options": {` + options + `},
			"paths": {"api": {"type": "path", "paths": {"svc": {"type": "webhook", "realm": "realm1", "role": "anonymous",
				"options": {"topic": "com.example.hook"}}}}}}`)
	}
	const svcLimit = t0 + ".paths.api.paths.svc.options.post_body_limit"
	tests := []struct {
		name, doc, path, msg string
		warning              bool
	}{
		{"timeout 0", webOptions(`"body_timeout": 0`), t0 + ".options.body_timeout", "must be in 1..86400, not 0", false},
		{"timeout too long", webOptions(`"body_timeout": 86401`), t0 + ".options.body_timeout", "must be in 1..86400, not 86401", false},
		{"timeout string", webOptions(`"body_timeout": "30"`), t0 + ".options.body_timeout", "must be an integer", false},
		{"buffer negative", webOptions(`"body_buffer_limit": -1`), t0 + ".options.body_buffer_limit", "must be >= 0, not -1", false},
		{"buffer unbounded", webOptions(`"body_buffer_limit": 0`), t0 + ".options.body_buffer_limit", "unbounded: concurrent request bodies can make the node buffer any amount", true},
		{"service over the buffer", nested(`"body_buffer_limit": 1000000`), svcLimit, "26214400 exceeds the web transport's options.body_buffer_limit 1000000: larger bodies get 413", true},
		{"service within the buffer", nested(`"body_buffer_limit": 26214400`), "", "", true},
		{"service, buffer unbounded", nested(`"body_buffer_limit": 0`), t0 + ".options.body_buffer_limit", "unbounded", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantProblem(t, tt.doc, tt.path, tt.msg, tt.warning)
		})
	}
}

// TestJSONOptions: a json service's "options", absent (Crossbar's
// behaviour: compact, CORS, no caching header) and each given.
func TestJSONOptions(t *testing.T) {
	tests := []struct {
		name, options string
		want          JSONOptions
	}{
		{"absent", ``, JSONOptions{AllowCrossOrigin: true}},
		{"empty", `, "options": {}`, JSONOptions{AllowCrossOrigin: true}},
		{"all", `, "options": {"prettify": true, "allow_cross_origin": false, "discourage_caching": true}`,
			JSONOptions{Prettify: true, DiscourageCaching: true}},
		{"corpus", `, "options": {"prettify": false, "allow_cross_origin": true, "discourage_caching": true}`,
			JSONOptions{AllowCrossOrigin: true, DiscourageCaching: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, web(`{"config": {"type": "json", "value": {"a": 1}`+tt.options+`}}`))
			s := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["config"].(*JSONService)
			if s.Options != tt.want || len(warns) != 0 {
				t.Errorf("options %+v, warnings %v; want %+v and none", s.Options, warns, tt.want)
			}
		})
	}
}

// TestWebHTTPEngine: "http_engine", absent, each engine, and a wrong one
// at its path.
func TestWebHTTPEngine(t *testing.T) {
	for _, tt := range []struct{ options, want string }{
		{`"access_log": false`, ""},
		{`"http_engine": "stdlib"`, HTTPEngineStdlib},
		{`"http_engine": "junction"`, HTTPEngineJunction},
		{`"http_engine": "loop"`, HTTPEngineLoop}, // the tests run on Linux
	} {
		c, _ := mustParse(t, webOptions(tt.options))
		if got := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Options.HTTPEngine; got != tt.want {
			t.Errorf("%s: http_engine %q, want %q", tt.options, got, tt.want)
		}
	}
	for _, bad := range []string{`"http_engine": "nginx"`, `"http_engine": 1`} {
		_, _, errs := parseTest(t, webOptions(bad), JSON)
		if errs == nil || !strings.Contains(errs.Error(), t0+".options.http_engine") {
			t.Errorf("%s: error %v, want one at %s.options.http_engine", bad, errs, t0)
		}
	}
}
