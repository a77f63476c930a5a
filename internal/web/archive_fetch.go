package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// Bounds of FetchArchive when FetchOptions leaves them zero.
const (
	DefaultFetchTimeout  = 2 * time.Minute
	DefaultFetchMaxBytes = 512 << 20
)

// ErrFetchTooLarge: the download is larger than FetchOptions.MaxBytes.
var ErrFetchTooLarge = errors.New("web: archive download too large")

// FetchOptions configures FetchArchive. Zero bounds mean the defaults.
type FetchOptions struct {
	// URL is the origin, http or https (redirects are followed).
	URL string
	// Dest is the file written, created or replaced only when the whole
	// download succeeded and matches Hashes.
	Dest string
	// Hashes are the SHA-256 hex digests (either case) the download must
	// match one of; none: not checked.
	Hashes []string
	// Timeout bounds the whole download (DefaultFetchTimeout).
	Timeout time.Duration
	// MaxBytes bounds its size (DefaultFetchMaxBytes).
	MaxBytes int64
	// Client makes the request (nil: http.DefaultClient).
	Client *http.Client
}

// FetchArchive downloads opts.URL to opts.Dest, atomically: into a
// temporary file in Dest's directory, renamed to Dest once complete and
// checked, removed otherwise. A hash mismatch wraps ErrArchiveHash.
func FetchArchive(ctx context.Context, opts FetchOptions) error {
	if err := checkOrigin(opts.URL); err != nil {
		return err
	}
	opts = fetchDefaults(opts)
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	body, err := getBody(ctx, opts)
	if err != nil {
		return err
	}
	defer body.Close()
	return writeChecked(body, opts)
}

// checkOrigin refuses a URL that is not absolute http or https.
func checkOrigin(origin string) error {
	u, err := url.Parse(origin)
	if err != nil {
		return fmt.Errorf("web: archive origin: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: archive origin %q: want an http or https URL", ErrBadOption, origin)
	}
	return nil
}

func fetchDefaults(opts FetchOptions) FetchOptions {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultFetchTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultFetchMaxBytes
	}
	if opts.Client == nil {
		opts.Client = http.DefaultClient
	}
	return opts
}

// getBody makes the request and returns the body of a 200 answer.
func getBody(ctx context.Context, opts FetchOptions) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, opts.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("web: archive download: %w", err)
	}
	resp, err := opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("web: archive download: %w", err)
	}
	switch {
	case resp.StatusCode != http.StatusOK:
		resp.Body.Close()
		return nil, fmt.Errorf("web: archive download %s: status %s", opts.URL, resp.Status)
	case resp.ContentLength > opts.MaxBytes:
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrFetchTooLarge, opts.URL, resp.ContentLength, opts.MaxBytes)
	}
	return resp.Body, nil
}

// writeChecked copies body into a temporary file beside opts.Dest, checks
// its size and hash, and renames it to opts.Dest.
func writeChecked(body io.Reader, opts FetchOptions) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(opts.Dest), "."+filepath.Base(opts.Dest)+".download-*")
	if err != nil {
		return fmt.Errorf("web: archive download: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(body, opts.MaxBytes+1))
	switch {
	case err != nil:
		return fmt.Errorf("web: archive download %s: %w", opts.URL, err)
	case n > opts.MaxBytes:
		return fmt.Errorf("%w: %s sends more than %d bytes", ErrFetchTooLarge, opts.URL, opts.MaxBytes)
	}
	if len(opts.Hashes) > 0 {
		if err = matchHash(hex.EncodeToString(h.Sum(nil)), opts.Hashes); err != nil {
			return fmt.Errorf("web: archive download %s: %w", opts.URL, err)
		}
	}
	return commitFile(tmp, opts.Dest)
}

// commitFile syncs and closes tmp and renames it to dest.
func commitFile(tmp *os.File, dest string) error {
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("web: archive download: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("web: archive download: %w", err)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("web: archive download: %w", err)
	}
	return nil
}
