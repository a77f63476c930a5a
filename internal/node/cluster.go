package node

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/cluster"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/router"
)

// clusterPath is the JSON path of the cluster's config.
const clusterPath = "controller.cluster"

// buildCluster makes the node's member of its cluster, when the config
// has controller.cluster: its TLS files are read now, so that check
// reports them; nothing reaches the network before Start.
func (b *builder) buildCluster(cfg *config.Config) {
	c := cfg.Controller.Cluster
	if c == nil {
		return
	}
	cc, err := b.clusterConfig(c, cfg)
	if err != nil {
		b.fail(err)
		return
	}
	n, err := cluster.New(cc, b.log)
	if err != nil {
		b.fail(fieldError(clusterPath, err))
		return
	}
	b.node.cluster = n
	b.node.fabric = cluster.NewFabric(n, b.log)
	b.node.replays = cluster.NewReplays(n)
}

// clusterHost is the node whose cluster the units built use: the node
// built, or the running node a reload builds for.
func (b *builder) clusterHost() *Node {
	if b.owner != nil {
		return b.owner
	}
	return b.node
}

// sharedNonces is the cluster's replay table for signed bridge requests,
// nil (one node) without controller.cluster. (A nil *cluster.Replays must
// not become a non-nil bridge.SharedNonces.)
func (b *builder) sharedNonces() bridge.SharedNonces {
	if r := b.clusterHost().replays; r != nil {
		return r
	}
	return nil
}

// fabric is the routers' link to the cluster; nil (one node) without
// controller.cluster. (A nil *cluster.Fabric must not become a non-nil
// router.Fabric.)
func (b *builder) fabric() router.Fabric {
	if b.node.fabric == nil {
		return nil
	}
	return b.node.fabric
}

// clusterConfig translates c.
func (b *builder) clusterConfig(c *config.Cluster, cfg *config.Config) (cluster.Config, error) {
	cc := cluster.Config{Name: c.Name, Node: c.Node, Lease: c.Lease, ConfigHash: configHash(cfg)}
	if c.OnIsolation == config.IsolationServe {
		cc.OnIsolation = cluster.Serve
	}
	if cc.Node == "" {
		host, err := os.Hostname()
		if err != nil {
			return cc, fieldError(clusterPath+".node", fmt.Errorf("no node name, and no host name: %w", err))
		}
		cc.Node = host
	}
	if e := c.NATS.Embedded; e != nil {
		cc.Embedded = &cluster.Embedded{Listen: e.Listen, Routes: e.Routes, RouteUser: e.RouteUser, RoutePassword: e.RoutePassword}
		if e.TLS != nil {
			t, err := b.routeTLS(e.TLS)
			if err != nil {
				return cc, fieldError(clusterPath+".nats.embedded.tls", err)
			}
			cc.Embedded.TLS = t
		}
		return cc, nil
	}
	x := c.NATS.Servers
	cc.External = &cluster.External{Servers: x.URLs, Credentials: x.Credentials, Token: x.Token, User: x.User, Password: x.Password}
	if x.Credentials != "" {
		cc.External.Credentials = b.resolve(x.Credentials)
	}
	if x.TLS != nil {
		t, err := clientTLSConfig(x.TLS, "", b.resolve)
		if err != nil {
			return cc, fieldError(clusterPath+".nats.tls", err)
		}
		cc.External.TLS = t
	}
	return cc, nil
}

// routeTLS is the TLS of the embedded server's routes, both ways: this
// node's certificate (read again on reload, as a listener's), and its CAs
// to verify the other nodes' certificates, then required, or the
// system's roots.
func (b *builder) routeTLS(t *config.ServerTLS) (*tls.Config, error) {
	cfg, err := b.serverTLS(t).Load()
	if err != nil {
		return nil, err
	}
	cert, err := cfg.GetCertificate(nil)
	if err != nil {
		return nil, err
	}
	cfg.Certificates = []tls.Certificate{*cert}
	get := cfg.GetCertificate
	cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return get(nil) }
	if cfg.ClientCAs != nil {
		cfg.RootCAs, cfg.ClientAuth = cfg.ClientCAs, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// configHash is a digest of what every member must configure alike: the
// router workers' realms (roles and permissions) and transports (their
// authentication and paths), endpoints left out (each node listens on its
// own), so that a member whose differ is logged.
func configHash(cfg *config.Config) string {
	h := sha256.New()
	for _, w := range cfg.Workers {
		if r, ok := w.(*config.RouterWorker); ok && !r.Options.Disabled {
			writeJSON(h, r.Realms)
			for _, t := range r.Transports {
				writeJSON(h, t)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// writeJSON writes v as JSON to w, without its "Endpoint" members at any
// depth.
func writeJSON(w io.Writer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	var tree any
	json.Unmarshal(b, &tree)
	json.NewEncoder(w).Encode(dropKey(tree, "Endpoint"))
}

func dropKey(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, key)
		for k, e := range v {
			v[k] = dropKey(e, key)
		}
	case []any:
		for i, e := range v {
			v[i] = dropKey(e, key)
		}
	}
	return v
}
