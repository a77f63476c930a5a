package node

import (
	"net/http"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/client"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
	"github.com/junction-wamp/junction/internal/transport/websocket"
	"github.com/junction-wamp/junction/wamp"
)

func TestRealmLimitsTranslated(t *testing.T) {
	tests := []struct {
		name string
		in   config.RealmLimits
		want router.Limits
	}{
		{"absent: the router's defaults", config.RealmLimits{}, router.Limits{}},
		{"every key", config.RealmLimits{
			SubscriptionsPerSession: 1, RegistrationsPerSession: 2, CallsInFlightPerSession: 3,
			RetainedEventsPerRealm: 4, RetainedBytesPerRealm: 5, RetainedEventsPerSession: 6, RetainedBytesPerSession: 7,
			TestamentsPerRealm: 8, TestamentBytesPerRealm: 9, TestamentsPerSession: 10, TestamentBytesPerSession: 11,
			SubscriptionsPerRealm: 12, RegistrationsPerRealm: 13, CallsInFlightPerRealm: 14}, router.Limits{
			SubscriptionsPerSession: 1, RegistrationsPerSession: 2, CallsInFlightPerSession: 3,
			RetainedEventsPerRealm: 4, RetainedBytesPerRealm: 5, RetainedEventsPerSession: 6, RetainedBytesPerSession: 7,
			TestamentsPerRealm: 8, TestamentBytesPerRealm: 9, TestamentsPerSession: 10, TestamentBytesPerSession: 11,
			SubscriptionsPerRealm: 12, RegistrationsPerRealm: 13, CallsInFlightPerRealm: 14}},
		{"no limit", config.RealmLimits{CallsInFlightPerSession: config.NoLimit}, router.Limits{CallsInFlightPerSession: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := &config.Realm{Name: "r", Options: config.RealmOptions{Limits: tt.in}}
			if got := realmOption(rm).Limits; got != tt.want {
				t.Errorf("Limits = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRealmLimitsApplied: a realm's options.limits reach its router: an
// outside client is refused a topic longer than the realm's cap and its
// third subscription, another the realm's fourth, and the HTTP
// Publisher (one of the node's own sessions, exempt from the limits on
// subscriptions but not from those on retained events) its second
// retained event.
func TestRealmLimitsApplied(t *testing.T) {
	cfg := zeroPorts(config.Default())
	rw := cfg.Workers[0].(*config.RouterWorker)
	rw.Realms[0].Options.Limits = config.RealmLimits{SubscriptionsPerSession: 2, SubscriptionsPerRealm: 3, RetainedEventsPerRealm: 1,
		URIBytesPerPattern: 16}
	addr := address(t, start(t, cfg, t.TempDir()), web0)

	c := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	_, err := c.Subscribe(testCtx(t), "com.example.long", func(*client.Event) {}, nil) // 16 bytes
	if err != nil {
		t.Errorf("subscription to a topic of 16 bytes: %v", err)
	}
	_, err = c.Subscribe(testCtx(t), "com.example.long1", func(*client.Event) {}, nil)
	if err == nil || !strings.Contains(err.Error(), "at most 16 bytes of URI per subscription") {
		t.Errorf("subscription to a topic of 17 bytes: %v, want the cap on URIs exceeded", err)
	}
	for i, topic := range []wamp.URI{"com.b", "com.c"} {
		_, err := c.Subscribe(testCtx(t), topic, func(*client.Event) {}, nil)
		if want := i == 1; (wampURIOf(err) == wamp.ErrLimitExceeded) != want {
			t.Errorf("subscription %d: %v, want limit exceeded: %v", i+2, err, want)
		}
	}
	other := mustWS(t, "ws://"+addr+"/ws", websocket.DialOptions{}, client.Config{Realm: "realm1"})
	for i, topic := range []wamp.URI{"com.d", "com.e"} {
		_, err := other.Subscribe(testCtx(t), topic, func(*client.Event) {}, nil)
		if want := i == 1; want != (err != nil && strings.Contains(err.Error(), "3 subscriptions per realm")) {
			t.Errorf("other's subscription %d: %v, want the realm's limit exceeded: %v", i+1, err, want)
		}
	}

	publish := func(topic string) string {
		code, body := post(t, "http://"+addr+"/publish", `{"topic": "`+topic+`", "options": {"retain": true}}`, nil)
		if code != http.StatusOK {
			t.Errorf("POST /publish %s = %d %s", topic, code, body)
		}
		return body
	}
	if body := publish("com.r1"); !strings.HasPrefix(body, `{"id":`) {
		t.Errorf("first retained publication: %s", body)
	}
	if body := publish("com.r2"); !strings.Contains(body, string(wamp.ErrLimitExceeded)) {
		t.Errorf("second retained publication: %s, want %s", body, wamp.ErrLimitExceeded)
	}
}
