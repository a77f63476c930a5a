package node

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/web"
)

// serverTLS translates a listening endpoint's "tls", with the file names
// resolved against the node directory: web.NewServer loads the files, and
// the RawSocket transport calls Load itself (the same checks and
// client-certificate policy). The node keeps it to read the certificate
// again on Reload.
func (b *builder) serverTLS(t *config.ServerTLS) *web.TLSOptions {
	o := &web.TLSOptions{CertFile: b.resolve(t.Certificate), KeyFile: b.resolve(t.Key)}
	for _, f := range t.ChainCertificates {
		o.ChainFiles = append(o.ChainFiles, b.resolve(f))
	}
	for _, f := range t.CACertificates {
		o.ClientCAFiles = append(o.ClientCAFiles, b.resolve(f))
	}
	b.node.certs = append(b.node.certs, o)
	return o
}

// clientTLSConfig translates a connecting endpoint's "tls"; host is the
// server name to verify when t gives none.
func clientTLSConfig(t *config.ClientTLS, host string, resolve func(string) string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if t.Hostname != "" {
		cfg.ServerName = t.Hostname
	}
	var err error
	if len(t.CACertificates) > 0 {
		if cfg.RootCAs, err = certPool(t.CACertificates, resolve); err != nil {
			return nil, err
		}
	}
	if t.Certificate != "" || t.Key != "" {
		cert, err := web.LoadKeyPair(resolve(t.Certificate), resolve(t.Key))
		if err != nil {
			return nil, fmt.Errorf("node: tls: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// certPool reads PEM certificate files into a pool.
func certPool(files []string, resolve func(string) string) (*x509.CertPool, error) {
	resolved := make([]string, len(files))
	for i, f := range files {
		resolved[i] = resolve(f)
	}
	pool, err := web.LoadCAs(resolved)
	if err != nil {
		return nil, fmt.Errorf("node: tls: %w", err)
	}
	return pool, nil
}
