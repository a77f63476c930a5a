package web

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
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

	// cert is the certificate the config of Load serves, which Reload
	// replaces; nil before Load.
	cert atomic.Pointer[tls.Certificate]
	// clientCAs is the pool of ClientCAFiles that handshakes verify
	// client certificates against, which Reload replaces when the files'
	// certificates changed; nil without ClientCAFiles.
	clientCAs atomic.Pointer[x509.CertPool]
}

// Load reads the files into a tls.Config for a listener (TLS 1.2 or
// later, client certificates as ClientCAFiles says). Every error wraps
// ErrTLS. Server adds its ALPN protocol; transports that do the handshake
// themselves (RawSocket) use the config as it is.
func (o *TLSOptions) Load() (*tls.Config, error) {
	cfg, err := o.load()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTLS, err)
	}
	return cfg, nil
}

// ErrTLS is wrapped by the errors of TLSOptions.Load, and so by those of
// NewServer that come from its TLS files.
var ErrTLS = errors.New("web: tls")

// Reload reads the certificate, key, chain and client CA files again:
// the handshakes that start afterwards, on the configs Load returned,
// present the new certificate (tls.Config.GetCertificate) and verify
// client certificates against the new CAs (tls.Config.GetConfigForClient),
// and connections already open keep what they were verified with. On an
// error (a file missing, a key that does not match, a CA file without a
// certificate) the certificate and the CAs in use both stay, and the
// error names the file. Safe for concurrent use with handshakes; no-op
// before Load.
func (o *TLSOptions) Reload() error {
	if o.cert.Load() == nil {
		return nil
	}
	cert, err := o.loadCert()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTLS, err)
	}
	var pool *x509.CertPool
	if len(o.ClientCAFiles) > 0 {
		if pool, err = LoadCAs(o.ClientCAFiles); err != nil {
			return fmt.Errorf("%w: %w", ErrTLS, err)
		}
	}
	o.cert.Store(cert)
	if pool != nil && !pool.Equal(o.clientCAs.Load()) {
		o.clientCAs.Store(pool)
	}
	return nil
}

// loadCert reads the certificate with its chain.
func (o *TLSOptions) loadCert() (*tls.Certificate, error) {
	if o.CertFile == "" || o.KeyFile == "" {
		return nil, errors.New("certificate and key are required")
	}
	cert, err := LoadKeyPair(o.CertFile, o.KeyFile)
	if err != nil {
		return nil, err
	}
	if err := appendChain(&cert, o.ChainFiles); err != nil {
		return nil, err
	}
	return &cert, nil
}

func (o *TLSOptions) load() (*tls.Config, error) {
	cert, err := o.loadCert()
	if err != nil {
		return nil, err
	}
	o.cert.Store(cert)
	cfg := &tls.Config{
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return o.cert.Load(), nil },
		MinVersion:     tls.VersionTLS12,
	}
	if len(o.ClientCAFiles) > 0 {
		pool, err := LoadCAs(o.ClientCAFiles)
		if err != nil {
			return nil, err
		}
		o.clientCAs.Store(pool)
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
		cfg.GetConfigForClient = o.reloadedCAs(cfg)
	}
	return cfg, nil
}

// reloadedCAs is the GetConfigForClient of base, a config of Load with
// client CAs: nil (base as it is) while the CAs are those of base, else
// a copy of base with the CAs Reload read last. The copy is made at the
// first handshake after a Reload changed the CAs, and so has what was
// added to base after Load (Server's ALPN protocol).
func (o *TLSOptions) reloadedCAs(base *tls.Config) func(*tls.ClientHelloInfo) (*tls.Config, error) {
	var reloaded atomic.Pointer[tls.Config]
	return func(*tls.ClientHelloInfo) (*tls.Config, error) {
		pool := o.clientCAs.Load()
		if pool == base.ClientCAs {
			return nil, nil
		}
		if c := reloaded.Load(); c != nil && c.ClientCAs == pool {
			return c, nil
		}
		c := base.Clone()
		c.ClientCAs = pool
		c.GetConfigForClient = nil
		reloaded.Store(c)
		return c, nil
	}
}

// LoadKeyPair reads a PEM certificate (and its chain) and its private
// key, as tls.LoadX509KeyPair does, with errors that name the file at
// fault: a file that does not read or holds no PEM block of its kind, or
// both when the key does not match the certificate.
func LoadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := readPEM(certFile, "certificate")
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := readPEM(keyFile, "key")
	if err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate %s and key %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// readPEM reads file, the kind ("certificate" or "key") of a key pair,
// and checks that it holds a PEM block.
func readPEM(file, kind string) ([]byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	if block, _ := pem.Decode(data); block == nil {
		return nil, fmt.Errorf("%s %s: no PEM data", kind, file)
	}
	return data, nil
}

// LoadCAs reads the PEM certificates of files into a pool (Crossbar's
// "ca_certificates"); a file without any certificate is an error.
func LoadCAs(files []string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	for _, f := range files {
		pem, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("ca_certificates: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_certificates %q: no PEM certificate", f)
		}
	}
	return pool, nil
}

// appendChain appends the PEM certificates of files, in order, to cert's
// chain (Crossbar's "chain_certificates"). A file without any certificate
// is an error.
func appendChain(cert *tls.Certificate, files []string) error {
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("chain_certificates: %w", err)
		}
		n := len(cert.Certificate)
		for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
			if block.Type == "CERTIFICATE" {
				cert.Certificate = append(cert.Certificate, block.Bytes)
			}
		}
		if len(cert.Certificate) == n {
			return fmt.Errorf("chain_certificates %q: no PEM certificate", f)
		}
	}
	return nil
}
