package config

import (
	"testing"
	"time"
)

// lpPath is a document with one longpoll path "lp" holding members.
func lpPath(members string) string {
	if members != "" {
		members = ", " + members
	}
	return web(`{"lp": {"type": "longpoll"` + members + `}}`)
}

const lp0 = t0 + ".paths.lp"

// TestLongPollOptions: the options of a longpoll service, absent, given
// and 0 (none).
func TestLongPollOptions(t *testing.T) {
	tests := []struct {
		name, members string
		want          LongPollOptions
	}{
		{"absent", ``, LongPollOptions{RequestTimeout: 10 * time.Second, SessionTimeout: 30 * time.Second,
			QueueLimitBytes: 131072, QueueLimitMessages: 100}},
		{"given", `"id": "lp1", "options": {"request_timeout": 5, "session_timeout": 60, "queue_limit_bytes": 1000,
			"queue_limit_messages": 7, "debug": true, "debug_transport_id": "kjmd3sBLOUnb3Fyr"}`,
			LongPollOptions{RequestTimeout: 5 * time.Second, SessionTimeout: time.Minute, QueueLimitBytes: 1000,
				QueueLimitMessages: 7, Debug: true, DebugTransportID: "kjmd3sBLOUnb3Fyr"}},
		{"zero is none", `"options": {"request_timeout": 0, "session_timeout": 0, "queue_limit_bytes": 0, "queue_limit_messages": 0}`,
			LongPollOptions{RequestTimeout: -1, SessionTimeout: -1, QueueLimitBytes: -1, QueueLimitMessages: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := mustParse(t, lpPath(tt.members))
			s, ok := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["lp"].(*LongPollService)
			if !ok {
				t.Fatalf("lp is not a *LongPollService")
			}
			if s.Options != tt.want {
				t.Errorf("options %+v, want %+v", s.Options, tt.want)
			}
		})
	}
}

// TestLongPollChecks: each rule of a longpoll service, at its path; the
// zero queue limits are warnings.
func TestLongPollChecks(t *testing.T) {
	tests := []struct {
		name, members, path, msg string
		warning                  bool
	}{
		{"auth", `"auth": {"anonymous": {"type": "static", "role": "public"}}`, lp0 + ".auth", "unknown key", false},
		{"unknown option", `"options": {"queue_limit": 1}`, lp0 + ".options.queue_limit", "unknown key", false},
		{"negative timeout", `"options": {"request_timeout": -1}`, lp0 + ".options.request_timeout", "must be in 0..", false},
		{"string timeout", `"options": {"session_timeout": "30"}`, lp0 + ".options.session_timeout", "must be an integer", false},
		{"negative bytes", `"options": {"queue_limit_bytes": -5}`, lp0 + ".options.queue_limit_bytes", "must be >= 0", false},
		{"debug not bool", `"options": {"debug": "yes"}`, lp0 + ".options.debug", "boolean", false},
		{"options not object", `"options": []`, lp0 + ".options", "must be an object", false},
		{"unbounded bytes", `"options": {"queue_limit_bytes": 0}`, lp0 + ".options.queue_limit_bytes", "no bound", true},
		{"unbounded messages", `"options": {"queue_limit_messages": 0}`, lp0 + ".options.queue_limit_messages", "no bound", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantProblem(t, lpPath(tt.members), tt.path, tt.msg, tt.warning)
		})
	}
}
