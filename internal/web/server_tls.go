package web

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
)

// TLSOptions are the PEM files of a TLS listener (Crossbar's endpoint
// "tls": key, certificate, chain_certificates, ca_certificates).
type TLSOptions struct {
	// CertFile holds the server certificate, optionally followed by its
	// chain; KeyFile its private key. Both required.
	CertFile, KeyFile string
	// ChainFiles hold more intermediate certificates, sent after those of
	// CertFile, in order. Each must hold at least one PEM certificate.
	ChainFiles []string
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
	if err := AppendChain(&cert, o.ChainFiles); err != nil {
		return nil, err
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

// AppendChain appends the PEM certificates of files, in order, to cert's
// chain (Crossbar's "chain_certificates"). A file without any certificate
// is an error.
func AppendChain(cert *tls.Certificate, files []string) error {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("web: tls: chain_certificates: %w", err)
		}
		n := len(cert.Certificate)
		for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
			if block.Type == "CERTIFICATE" {
				cert.Certificate = append(cert.Certificate, block.Bytes)
			}
		}
		if len(cert.Certificate) == n {
			return fmt.Errorf("%w: tls: chain_certificates %q: no PEM certificate", ErrBadOption, f)
		}
	}
	return nil
}
