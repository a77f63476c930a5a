package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/junction-wamp/junction/internal/uriindex"
)

// storeDoc is a document with a realm whose "store" is store.
func storeDoc(store string) string {
	return top(`{"type": "router", "realms": [{"name": "r", "store": ` + store + `}]}`)
}

func TestRealmStoreDecode(t *testing.T) {
	tests := []struct {
		name     string
		doc      string
		want     *RealmStore
		warnPath string // the one warning expected, if any
	}{
		{"none", top(`{"type": "router", "realms": [{"name": "r"}]}`), nil, ""},
		{"empty memory store", storeDoc(`{"type": "memory"}`), &RealmStore{Type: "memory", Limit: 100}, ""},
		{"defaults", storeDoc(`{"type": "memory", "event-history": [{"uri": "com.a"}]}`),
			&RealmStore{Type: "memory", Limit: 100, EventHistory: []*EventHistory{{URI: "com.a", Match: uriindex.Exact, Limit: 100}}}, ""},
		{"store limit is the default", storeDoc(`{"type": "memory", "limit": 7, "event-history": [
			{"uri": "com.", "match": "prefix"}, {"uri": "com..b", "match": "wildcard", "limit": 1000}]}`),
			&RealmStore{Type: "memory", Limit: 7, EventHistory: []*EventHistory{
				{URI: "com.", Match: uriindex.Prefix, Limit: 7}, {URI: "com..b", Match: uriindex.Wildcard, Limit: 1000}}}, ""},
		{"every topic", storeDoc(`{"type": "memory", "event-history": [{"uri": "", "match": "prefix"}]}`),
			&RealmStore{Type: "memory", Limit: 100, EventHistory: []*EventHistory{{URI: "", Match: uriindex.Prefix, Limit: 100}}}, ""},
		{"call-queue", storeDoc(`{"type": "memory", "call-queue": [{"uri": "com.c", "match": "exact", "limit": 10}]}`),
			&RealmStore{Type: "memory", Limit: 100}, r0 + ".store.call-queue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			if got := c.Workers[0].(*RouterWorker).Realms[0].Store; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("store %+v, want %+v", got, tt.want)
			}
			switch {
			case tt.warnPath == "" && len(warns) != 0:
				t.Errorf("warnings, want none:\n%s", warningsText(warns))
			case tt.warnPath != "" && (len(warns) != 1 || warns[0].Path != tt.warnPath || !strings.Contains(warns[0].Msg, "never queued")):
				t.Errorf("warnings:\n%s\nwant one at %s: ...never queued...", warningsText(warns), tt.warnPath)
			}
		})
	}
}
