package config

import (
	"reflect"
	"strings"
	"testing"
)

// rlinkDoc is a document whose realm has the router links rlinks.
func rlinkDoc(rlinks string) string {
	return top(`{"type": "router", "realms": [{"name": "realm1", "rlinks": ` + rlinks + `}]}`)
}

const rlinkTransport = `"transport": {"type": "rawsocket", "endpoint": {"type": "tcp", "host": "localhost", "port": 5082},
	"url": "rs://localhost:5082", "serializer": "cbor"}`

func TestRouterLinkDecode(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []*RouterLink // Transport not compared
	}{
		{"defaults", rlinkDoc(`[{"realm": "realm2", ` + rlinkTransport + `}, {"realm": "realm3", ` + rlinkTransport + `}]`),
			[]*RouterLink{
				{ID: "rlink000", Realm: "realm2", ForwardLocalEvents: true, ForwardRemoteEvents: true, ForwardLocalInvocations: true, ForwardRemoteInvocations: true},
				{ID: "rlink001", Realm: "realm3", ForwardLocalEvents: true, ForwardRemoteEvents: true, ForwardLocalInvocations: true, ForwardRemoteInvocations: true}}},
		{"every key", rlinkDoc(`[{"id": "rlink_1_2", "realm": "realm1", ` + rlinkTransport + `, "authid": "node1",
			"exclude_authid": ["a", "b"], "forward_local_events": false, "forward_remote_events": true,
			"forward_local_invocations": false, "forward_remote_invocations": true}]`),
			[]*RouterLink{{ID: "rlink_1_2", Realm: "realm1", AuthID: "node1", ExcludeAuthID: []string{"a", "b"},
				ForwardRemoteEvents: true, ForwardRemoteInvocations: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			got := c.Workers[0].(*RouterWorker).Realms[0].RLinks
			for _, l := range got {
				if l.Transport == nil || l.Transport.Type != "rawsocket" || l.Transport.Endpoint.Port != 5082 || l.Transport.Serializers[0] != "cbor" {
					t.Errorf("transport %+v", l.Transport)
				}
				l.Transport = nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rlinks %+v, want %+v", got, tt.want)
			}
			if len(warns) != 0 {
				t.Errorf("warnings:\n%s", warningsText(warns))
			}
		})
	}
}

func TestRouterLinkErrors(t *testing.T) {
	const l0 = r0 + ".rlinks[0]"
	tests := []struct {
		name, doc, path, msg string
	}{
		{"not a list", rlinkDoc(`{}`), r0 + ".rlinks", "array"},
		{"no realm", rlinkDoc(`[{` + rlinkTransport + `}]`), l0 + ".realm", "required"},
		{"bad realm", rlinkDoc(`[{"realm": "a b", ` + rlinkTransport + `}]`), l0 + ".realm", "invalid realm URI"},
		{"no transport", rlinkDoc(`[{"realm": "realm2"}]`), l0 + ".transport", "required"},
		{"listening transport type", rlinkDoc(`[{"realm": "realm2", "transport": {"type": "web"}}]`), l0 + ".transport.type", "unknown component transport type"},
		{"no endpoint", rlinkDoc(`[{"realm": "realm2", "transport": {"type": "rawsocket"}}]`), l0 + ".transport.endpoint", "required"},
		{"exclude_authid not strings", rlinkDoc(`[{"realm": "realm2", ` + rlinkTransport + `, "exclude_authid": [1]}]`), l0 + ".exclude_authid[0]", "string"},
		{"forward not a boolean", rlinkDoc(`[{"realm": "realm2", ` + rlinkTransport + `, "forward_local_events": "no"}]`), l0 + ".forward_local_events", "boolean"},
		{"unknown key", rlinkDoc(`[{"realm": "realm2", ` + rlinkTransport + `, "forward_everything": true}]`), l0 + ".forward_everything", "unknown"},
		{"bad id", rlinkDoc(`[{"id": "X", "realm": "realm2", ` + rlinkTransport + `}]`), l0 + ".id", "invalid id"},
		{"duplicate id", rlinkDoc(`[{"id": "link", "realm": "realm2", ` + rlinkTransport + `}, {"id": "link", "realm": "realm3", ` + rlinkTransport + `}]`),
			r0 + ".rlinks[1].id", "duplicate router link id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, tt.doc, JSON)
			if len(errs) == 0 {
				t.Fatal("no error")
			}
			if errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", errs.Error(), tt.path, tt.msg)
			}
		})
	}
}
