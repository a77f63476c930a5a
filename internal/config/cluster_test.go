package config

import (
	"reflect"
	"testing"
	"time"
)

// clusterDoc is a document whose controller.cluster is c.
func clusterDoc(c string) string {
	return `{"version": 2, "controller": {"cluster": ` + c + `}, "workers": [` + router() + `]}`
}

// embeddedDoc is a cluster "prod" with the given embedded NATS.
func embeddedDoc(emb string) string {
	return clusterDoc(`{"name": "prod", "nats": {"embedded": ` + emb + `}}`)
}

const (
	cl  = "controller.cluster"
	emb = "controller.cluster.nats.embedded"
)

const goodEmbedded = `{"listen": "127.0.0.1:6222", "routes": ["nats://127.0.0.1:6223"]}`

func TestClusterGood(t *testing.T) {
	tests := []struct {
		name, doc string
		want      *Cluster
	}{
		{"embedded, defaults", embeddedDoc(goodEmbedded), &Cluster{Name: "prod", Lease: 3 * time.Second, OnIsolation: "fence",
			NATS: ClusterNATS{Embedded: &EmbeddedNATS{Listen: "127.0.0.1:6222", Routes: []string{"nats://127.0.0.1:6223"}}}}},
		{"every key", clusterDoc(`{"name": "a-b_1", "node": "node-1.example.com", "lease": 5, "on_isolation": "serve",
			"nats": {"embedded": {"listen": "0.0.0.0:6222", "routes": ["nats://10.0.0.2:6222", "tls://10.0.0.3:6222"],
			"route_user": "${SECRET}", "route_password": "${SECRET}"}}}`),
			&Cluster{Name: "a-b_1", Node: "node-1.example.com", Lease: 5 * time.Second, OnIsolation: "serve",
				NATS: ClusterNATS{Embedded: &EmbeddedNATS{Listen: "0.0.0.0:6222", Routes: []string{"nats://10.0.0.2:6222", "tls://10.0.0.3:6222"},
					RouteUser: "s3cr3t", RoutePassword: "s3cr3t"}}}},
		{"listen on all with TLS", embeddedDoc(`{"listen": ":6222", "routes": ["nats://n2:6222"], "tls": {"key": "k.pem", "certificate": "c.pem", "ca_certificates": ["ca.pem"]}}`),
			&Cluster{Name: "prod", Lease: 3 * time.Second, OnIsolation: "fence",
				NATS: ClusterNATS{Embedded: &EmbeddedNATS{Listen: ":6222", Routes: []string{"nats://n2:6222"},
					TLS: &ServerTLS{Key: "k.pem", Certificate: "c.pem", CACertificates: []string{"ca.pem"}}}}}},
		{"localhost", embeddedDoc(`{"listen": "localhost:6222", "routes": ["nats://localhost:6223"]}`),
			&Cluster{Name: "prod", Lease: 3 * time.Second, OnIsolation: "fence",
				NATS: ClusterNATS{Embedded: &EmbeddedNATS{Listen: "localhost:6222", Routes: []string{"nats://localhost:6223"}}}}},
		{"external", clusterDoc(`{"name": "prod", "nats": {"servers": ["nats://n1:4222", "tls://n2:4222"], "user": "u", "password": "${SECRET}",
			"tls": {"ca_certificates": ["ca.pem"], "certificate": "c.pem", "key": "k.pem"}}}`),
			&Cluster{Name: "prod", Lease: 3 * time.Second, OnIsolation: "fence",
				NATS: ClusterNATS{Servers: &ExternalNATS{URLs: []string{"nats://n1:4222", "tls://n2:4222"}, User: "u", Password: "s3cr3t",
					TLS: &ClientTLS{CACertificates: []string{"ca.pem"}, Certificate: "c.pem", Key: "k.pem"}}}}},
		{"external creds", clusterDoc(`{"name": "prod", "nats": {"servers": ["nats://n1:4222"], "credentials": "x.creds"}}`),
			&Cluster{Name: "prod", Lease: 3 * time.Second, OnIsolation: "fence",
				NATS: ClusterNATS{Servers: &ExternalNATS{URLs: []string{"nats://n1:4222"}, Credentials: "x.creds"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warns := mustParse(t, tt.doc)
			if len(warns) != 0 {
				t.Errorf("warnings %v", warns)
			}
			if !reflect.DeepEqual(c.Controller.Cluster, tt.want) {
				t.Errorf("got  %+v\nwant %+v", c.Controller.Cluster, tt.want)
			}
		})
	}
}

func TestClusterNone(t *testing.T) {
	c, _ := mustParse(t, top(router()))
	if c.Controller.Cluster != nil {
		t.Errorf("cluster %+v, want nil", c.Controller.Cluster)
	}
	if !c.Workers[0].(*RouterWorker).Realms[0].Options.Cluster {
		t.Error("a realm is clustered by default")
	}
}

func TestRealmClusterFalse(t *testing.T) {
	doc := top(`{"type": "router", "realms": [{"name": "r", "options": {"cluster": false}, "roles": [{"name": "anonymous", "allow-by-default": true}]}]}`)
	c, _ := mustParse(t, doc)
	if c.Workers[0].(*RouterWorker).Realms[0].Options.Cluster {
		t.Error(`"cluster": false not read`)
	}
	wantProblem(t, top(`{"type": "router", "realms": [{"name": "r", "options": {"cluster": "no"}}]}`),
		"workers[0].realms[0].options.cluster", "must be a boolean", false)
}

func TestClusterRules(t *testing.T) {
	tests := []ruleTest{
		{"not an object", clusterDoc(`[]`), cl, "must be an object"},
		{"name missing", clusterDoc(`{"nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".name", "required"},
		{"name with a dot", clusterDoc(`{"name": "a.b", "nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".name", `invalid cluster name "a.b"`},
		{"name empty", clusterDoc(`{"name": "", "nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".name", "invalid cluster name"},
		{"node with a space", clusterDoc(`{"name": "p", "node": "a b", "nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".node", `invalid node name "a b"`},
		{"lease 1", clusterDoc(`{"name": "p", "lease": 1, "nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".lease", "2"},
		{"lease string", clusterDoc(`{"name": "p", "lease": "3s", "nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".lease", "must be an integer"},
		{"on_isolation", clusterDoc(`{"name": "p", "on_isolation": "die", "nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".on_isolation", `unknown isolation mode "die" (want fence, serve)`},
		{"unknown key", clusterDoc(`{"name": "p", "leese": 3, "nats": {"embedded": ` + goodEmbedded + `}}`), cl + ".leese", `did you mean "lease"?`},
		{"nats missing", clusterDoc(`{"name": "p"}`), cl + ".nats", "required"},
		{"nats empty", clusterDoc(`{"name": "p", "nats": {}}`), cl + ".nats", `want "embedded" or "servers"`},
		{"both", clusterDoc(`{"name": "p", "nats": {"embedded": ` + goodEmbedded + `, "servers": ["nats://a:4222"]}}`), cl + ".nats.servers", "exclude each other"},
		{"listen missing", embeddedDoc(`{"routes": ["nats://a:6222"]}`), emb + ".listen", "required"},
		{"listen no port", embeddedDoc(`{"listen": "127.0.0.1", "routes": ["nats://a:6222"]}`), emb + ".listen", `invalid listen address "127.0.0.1"`},
		{"listen port 0", embeddedDoc(`{"listen": "127.0.0.1:0", "routes": ["nats://a:6222"]}`), emb + ".listen", "port 1..65535"},
		{"listen open, no security", embeddedDoc(`{"listen": "0.0.0.0:6222", "routes": ["nats://a:6222"]}`), emb + ".listen", "reachable from other hosts"},
		{"listen all, no security", embeddedDoc(`{"listen": ":6222", "routes": ["nats://a:6222"]}`), emb + ".listen", "secure the routes"},
		{"listen host name, no security", embeddedDoc(`{"listen": "node1.example.com:6222", "routes": ["nats://a:6222"]}`), emb + ".listen", "reachable from other hosts"},
		{"routes missing", embeddedDoc(`{"listen": "127.0.0.1:6222"}`), emb + ".routes", "required"},
		{"routes empty", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": []}`), emb + ".routes", "at least one"},
		{"route scheme", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": ["http://a:6222"]}`), emb + ".routes[0]", "want nats://host:port"},
		{"route no port", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": ["nats://a"]}`), emb + ".routes[0]", "want nats://host:port"},
		{"route credentials", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": ["nats://u:p@a:6222"]}`), emb + ".routes[0]", `"route_user"`},
		{"route user alone", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": ["nats://a:6222"], "route_user": "u"}`), emb, "go together"},
		{"route password env missing", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": ["nats://a:6222"], "route_user": "u", "route_password": "${NOPE}"}`), emb + ".route_password", "NOPE is not set"},
		{"tls key missing", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": ["nats://a:6222"], "tls": {"certificate": "c.pem"}}`), emb + ".tls.key", "required"},
		{"embedded unknown key", embeddedDoc(`{"listen": "127.0.0.1:6222", "routes": ["nats://a:6222"], "rotues": []}`), emb + ".rotues", `did you mean "routes"?`},
		{"servers empty", clusterDoc(`{"name": "p", "nats": {"servers": []}}`), cl + ".nats.servers", "at least one server"},
		{"server scheme", clusterDoc(`{"name": "p", "nats": {"servers": ["ws://a:4222"]}}`), cl + ".nats.servers[0]", "want nats://host:port"},
		{"server credentials in URL", clusterDoc(`{"name": "p", "nats": {"servers": ["nats://u:p@a:4222"]}}`), cl + ".nats.servers[0]", "not in the address"},
		{"two ways to log in", clusterDoc(`{"name": "p", "nats": {"servers": ["nats://a:4222"], "token": "t", "user": "u"}}`), cl + ".nats", `one of "credentials", "token" and "user"`},
		{"password without user", clusterDoc(`{"name": "p", "nats": {"servers": ["nats://a:4222"], "password": "x"}}`), cl + ".nats.password", `needs "user"`},
		{"client tls half", clusterDoc(`{"name": "p", "nats": {"servers": ["nats://a:4222"], "tls": {"certificate": "c.pem"}}}`), cl + ".nats.tls", "go together"},
		{"servers unknown key", clusterDoc(`{"name": "p", "nats": {"servers": ["nats://a:4222"], "tokn": "t"}}`), cl + ".nats.tokn", `did you mean "token"?`},
		{"embedded beside credentials", clusterDoc(`{"name": "p", "nats": {"embedded": ` + goodEmbedded + `, "token": "t"}}`), cl + ".nats.token", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantProblem(t, tt.doc, tt.path, tt.msg, false) })
	}
}
