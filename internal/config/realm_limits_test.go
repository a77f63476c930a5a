package config

import (
	"slices"
	"strings"
	"testing"
)

const limitsPath = r0 + ".options.limits"

// limitsDoc is a document with a realm whose "options.limits" is limits.
// ruleTests has a row per rule of "options.limits".
func limitsDoc(limits string) string { return realmOptionsDoc(`"limits": ` + limits) }

// TestRealmLimitsErrorsAll: every bad key is reported, each at its path.
func TestRealmLimitsErrorsAll(t *testing.T) {
	_, _, errs := parseTest(t, limitsDoc(`{"subscriptions_per_session": 0, "registrations_per_session": -3, "testaments_per_realm": true,
		"subscriptions_per_realm": 0, "registrations_per_realm": "many", "calls_in_flight_per_realm": 1.5, "uri_bytes_per_pattern": 0}`), JSON)
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path)
	}
	want := []string{limitsPath + ".calls_in_flight_per_realm", limitsPath + ".registrations_per_realm", limitsPath + ".registrations_per_session",
		limitsPath + ".subscriptions_per_realm", limitsPath + ".subscriptions_per_session", limitsPath + ".testaments_per_realm",
		limitsPath + ".uri_bytes_per_pattern"}
	slices.Sort(paths)
	if !slices.Equal(paths, want) {
		t.Errorf("errors at %v, want %v:\n%v", paths, want, errs)
	}
}

func TestRealmLimitsDecode(t *testing.T) {
	all := `{"subscriptions_per_session": 1, "registrations_per_session": 2, "calls_in_flight_per_session": 3,
		"retained_events_per_realm": 4, "retained_bytes_per_realm": 5, "retained_events_per_session": 6, "retained_bytes_per_session": 7,
		"testaments_per_realm": 8, "testament_bytes_per_realm": 9, "testaments_per_session": 10, "testament_bytes_per_session": 11,
		"subscriptions_per_realm": 12, "registrations_per_realm": 13, "calls_in_flight_per_realm": 14, "uri_bytes_per_pattern": 15,
		"history_bytes_per_realm": 16}`
	tests := []struct {
		name     string
		doc      string
		want     RealmLimits
		warnPath string // the one warning expected, if any
	}{
		{"no options", top(`{"type": "router", "realms": [{"name": "r"}]}`), RealmLimits{}, ""},
		{"no limits", realmOptionsDoc(`"uri_check": "strict"`), RealmLimits{}, ""},
		{"empty", limitsDoc(`{}`), RealmLimits{}, ""},
		{"null", limitsDoc(`null`), RealmLimits{}, ""},
		{"every key", limitsDoc(all), RealmLimits{
			SubscriptionsPerSession: 1, RegistrationsPerSession: 2, CallsInFlightPerSession: 3,
			RetainedEventsPerRealm: 4, RetainedBytesPerRealm: 5, RetainedEventsPerSession: 6, RetainedBytesPerSession: 7,
			TestamentsPerRealm: 8, TestamentBytesPerRealm: 9, TestamentsPerSession: 10, TestamentBytesPerSession: 11,
			SubscriptionsPerRealm: 12, RegistrationsPerRealm: 13, CallsInFlightPerRealm: 14, URIBytesPerPattern: 15,
			HistoryBytesPerRealm: 16}, ""},
		{"big bytes", limitsDoc(`{"retained_bytes_per_realm": 17179869184}`), RealmLimits{RetainedBytesPerRealm: 16 << 30}, ""},
		{"from env", limitsDoc(`{"registrations_per_session": "${PORT}"}`), RealmLimits{RegistrationsPerSession: 9090}, ""},
		{"no limit", limitsDoc(`{"retained_events_per_realm": -1}`), RealmLimits{RetainedEventsPerRealm: NoLimit}, limitsPath + ".retained_events_per_realm"},
		{"no realm limit on calls", limitsDoc(`{"calls_in_flight_per_realm": -1}`), RealmLimits{CallsInFlightPerRealm: NoLimit}, limitsPath + ".calls_in_flight_per_realm"},
		{"no cap on URIs", limitsDoc(`{"uri_bytes_per_pattern": -1}`), RealmLimits{URIBytesPerPattern: NoLimit}, limitsPath + ".uri_bytes_per_pattern"},
		{"a million subscriptions", limitsDoc(`{"subscriptions_per_realm": 1000000, "registrations_per_realm": 1}`),
			RealmLimits{SubscriptionsPerRealm: 1_000_000, RegistrationsPerRealm: 1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			if got := c.Workers[0].(*RouterWorker).Realms[0].Options.Limits; got != tt.want {
				t.Errorf("limits %+v, want %+v", got, tt.want)
			}
			switch {
			case tt.warnPath == "" && len(warns) != 0:
				t.Errorf("warnings, want none:\n%s", warningsText(warns))
			case tt.warnPath != "" && (len(warns) != 1 || warns[0].Path != tt.warnPath || !strings.Contains(warns[0].Msg, "no limit")):
				t.Errorf("warnings:\n%s\nwant one at %s: no limit...", warningsText(warns), tt.warnPath)
			}
		})
	}
}
