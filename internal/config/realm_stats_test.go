package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// statsDoc is a document with a realm whose "stats" is stats.
func statsDoc(stats string) string {
	return top(`{"type": "router", "realms": [{"name": "r", "stats": ` + stats + `}]}`)
}

func TestRealmStatsDecode(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want *RealmStats
		warn string // the one warning expected (its path), if any
	}{
		{"none", top(`{"type": "router", "realms": [{"name": "r"}]}`), nil, ""},
		{"defaults", statsDoc(`{"trigger_after_rated_messages": 10}`),
			&RealmStats{RatedMessageSize: 512, TriggerAfterRatedMessages: 10, TriggerOnLeave: true}, ""},
		{"Crossbar's example", statsDoc(`{"rated_message_size": 256, "trigger_after_rated_messages": 10,
			"trigger_after_duration": 0, "trigger_on_join": true, "trigger_on_leave": true}`),
			&RealmStats{RatedMessageSize: 256, TriggerAfterRatedMessages: 10, TriggerOnJoin: true, TriggerOnLeave: true}, ""},
		{"duration in seconds", statsDoc(`{"trigger_after_duration": 30}`),
			&RealmStats{RatedMessageSize: 512, TriggerAfterDuration: 30 * time.Second, TriggerOnLeave: true}, ""},
		{"trigger_on_leave false", statsDoc(`{"trigger_after_duration": 5, "trigger_on_leave": false}`),
			&RealmStats{RatedMessageSize: 512, TriggerAfterDuration: 5 * time.Second}, r0 + ".stats.trigger_on_leave"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			if got := c.Workers[0].(*RouterWorker).Realms[0].Stats; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stats %+v, want %+v", got, tt.want)
			}
			switch {
			case tt.warn == "" && len(warns) != 0:
				t.Errorf("warnings, want none:\n%s", warningsText(warns))
			case tt.warn != "" && (len(warns) != 1 || warns[0].Path != tt.warn || !strings.Contains(warns[0].Msg, "last statistics")):
				t.Errorf("warnings:\n%s\nwant one at %s", warningsText(warns), tt.warn)
			}
		})
	}
}
