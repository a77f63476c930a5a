package web

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// TLSOptions are the PEM files of a TLS listener (Crossbar's endpoint
// "tls": key, certificate, ca_certificates).
type TLSOptions struct {
	// CertFile holds the server certificate, optionally followed by its
	// chain; KeyFile its private key. Both required.
	CertFile, KeyFile string
	// ClientCAFiles, when non-empty, are the CAs that client certificates
	// must chain to. Client certificates stay optional
	// (tls.VerifyClientCertIfGiven, as Crossbar verifies them only when
	// presented): a client without one still connects, a client with a
	// certificate from another CA is refused at the handshake. Services
	// read r.TLS.PeerCertificates to use them.
	ClientCAFiles []string
}

// config loads the files into a tls.Config (TLS 1.2 or later).
func (o *TLSOptions) config() (*tls.Config, error) {
	if o.CertFile == "" || o.KeyFile == "" {
		return nil, fmt.Errorf("%w: tls: certificate and key are required", ErrBadOption)
	}
	cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("web: tls: %w", err)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"http/1.1"},
	}
	if len(o.ClientCAFiles) > 0 {
		pool, err := loadCAs(o.ClientCAFiles)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	return cfg, nil
}

// loadCAs reads PEM certificates from files into a pool; a file without
// any certificate is an error.
func loadCAs(files []string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	for _, f := range files {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("web: tls: ca_certificates: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%w: tls: ca_certificates %q: no PEM certificate", ErrBadOption, f)
		}
	}
	return pool, nil
}
