package config

import (
	"slices"
	"strings"
	"testing"
)

const limitsPath = r0 + ".options.limits"

// limitsDoc is a document with a realm whose "options.limits" is limits.
func limitsDoc(limits string) string { return realmOptionsDoc(`"limits": ` + limits) }

func TestRealmLimitsErrors(t *testing.T) {
	tests := []struct {
		name, doc, path, msg string
	}{
		{"not an object", limitsDoc(`[]`), limitsPath, "must be an object, not an array"},
		{"unknown key", limitsDoc(`{"subscriptions_per_sesion": 5}`), limitsPath + ".subscriptions_per_sesion", `did you mean "subscriptions_per_session"?`},
		{"zero", limitsDoc(`{"subscriptions_per_session": 0}`), limitsPath + ".subscriptions_per_session", "must be -1 (no limit) or >= 1, not 0"},
		{"below -1", limitsDoc(`{"retained_bytes_per_realm": -2}`), limitsPath + ".retained_bytes_per_realm", "must be -1 (no limit) or >= 1, not -2"},
		{"string", limitsDoc(`{"testaments_per_session": "10"}`), limitsPath + ".testaments_per_session", "must be an integer, not a string"},
		{"fraction", limitsDoc(`{"testament_bytes_per_session": 1.5}`), limitsPath + ".testament_bytes_per_session", `must be an integer, not "1.5"`},
		{"env not a number", limitsDoc(`{"calls_in_flight_per_session": "${NOT_A_NUMBER}"}`), limitsPath + ".calls_in_flight_per_session", `must be an integer, not "eighty"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1 at %q:\n%v", len(errs), tt.path, errs)
			}
			if errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", errs[0].Error(), tt.path, tt.msg)
			}
		})
	}
}

// TestRealmLimitsErrorsAll: every bad key is reported, each at its path.
func TestRealmLimitsErrorsAll(t *testing.T) {
	_, _, errs := parseTest(t, limitsDoc(`{"subscriptions_per_session": 0, "registrations_per_session": -3, "testaments_per_realm": true}`), JSON)
	var paths []string
	for _, e := range errs {
		paths = append(paths, e.Path)
	}
	want := []string{limitsPath + ".registrations_per_session", limitsPath + ".subscriptions_per_session", limitsPath + ".testaments_per_realm"}
	slices.Sort(paths)
	if !slices.Equal(paths, want) {
		t.Errorf("errors at %v, want %v:\n%v", paths, want, errs)
	}
}

func TestRealmLimitsDecode(t *testing.T) {
	all := `{"subscriptions_per_session": 1, "registrations_per_session": 2, "calls_in_flight_per_session": 3,
		"retained_events_per_realm": 4, "retained_bytes_per_realm": 5, "retained_events_per_session": 6, "retained_bytes_per_session": 7,
		"testaments_per_realm": 8, "testament_bytes_per_realm": 9, "testaments_per_session": 10, "testament_bytes_per_session": 11}`
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
			TestamentsPerRealm: 8, TestamentBytesPerRealm: 9, TestamentsPerSession: 10, TestamentBytesPerSession: 11}, ""},
		{"big bytes", limitsDoc(`{"retained_bytes_per_realm": 17179869184}`), RealmLimits{RetainedBytesPerRealm: 16 << 30}, ""},
		{"from env", limitsDoc(`{"registrations_per_session": "${PORT}"}`), RealmLimits{RegistrationsPerSession: 9090}, ""},
		{"no limit", limitsDoc(`{"retained_events_per_realm": -1}`), RealmLimits{RetainedEventsPerRealm: NoLimit}, limitsPath + ".retained_events_per_realm"},
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
