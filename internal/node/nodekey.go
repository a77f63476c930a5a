package node

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The node key files in the node directory (Crossbar's cbdir), in
// Crossbar's format (crossbar/common/key.py): a title line, a blank line,
// then "tag: value" lines.
const (
	nodeKeyPriv = "key.priv"
	nodeKeyPub  = "key.pub"

	tagPublic  = "public-key-ed25519"
	tagPrivate = "private-key-ed25519"
)

// nodeKeyTags are the tags Crossbar writes, in its order; a private key
// file has tagPrivate last.
var nodeKeyTags = []string{"creator", "created-at", "machine-id", "node-authid", tagPublic}

// loadNodeKey returns the node's Ed25519 key from dir/key.priv, as
// Crossbar does: it generates the pair (key.priv 0600, key.pub 0644) when
// key.priv is absent, re-creates key.pub from key.priv when only that is
// missing, checks that both agree, and fixes their permissions.
func loadNodeKey(dir string, log *slog.Logger) (ed25519.PrivateKey, error) {
	privPath, pubPath := filepath.Join(dir, nodeKeyPriv), filepath.Join(dir, nodeKeyPub)
	tags, err := readKeyFile(privPath, true)
	if errors.Is(err, fs.ErrNotExist) {
		return generateNodeKey(privPath, pubPath, log)
	}
	if err != nil {
		return nil, err
	}
	priv, err := privateFromTags(privPath, tags)
	if err != nil {
		return nil, err
	}
	if err := checkPublicFile(pubPath, tags, log); err != nil {
		return nil, err
	}
	if err := fixModes(privPath, pubPath); err != nil {
		return nil, err
	}
	log.Info("node key loaded", "file", privPath, "pubkey", tags[tagPublic])
	return priv, nil
}

// readKeyFile parses a node key file into its tags; private says whether
// tagPrivate may appear.
func readKeyFile(path string, private bool) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("node: node key: %w", err)
	}
	allowed := slices.Clone(nodeKeyTags)
	if private {
		allowed = append(allowed, tagPrivate)
	}
	tags := map[string]string{}
	blank := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			blank = true
		case blank:
			if err := addTag(tags, line, allowed); err != nil {
				return nil, fmt.Errorf("node: node key file %s: %w", path, err)
			}
		}
	}
	return tags, nil
}

func addTag(tags map[string]string, line string, allowed []string) error {
	tag, value, ok := strings.Cut(line, ":")
	tag = strings.ToLower(strings.TrimSpace(tag))
	if !ok || !slices.Contains(allowed, tag) {
		return fmt.Errorf("invalid tag %q", tag)
	}
	if _, dup := tags[tag]; dup {
		return fmt.Errorf("duplicate tag %q", tag)
	}
	tags[tag] = strings.TrimSpace(value)
	return nil
}

// privateFromTags checks a private key file's tags and returns its key.
func privateFromTags(path string, tags map[string]string) (ed25519.PrivateKey, error) {
	for _, t := range []string{"creator", "created-at", "machine-id", tagPublic, tagPrivate} {
		if _, ok := tags[t]; !ok {
			return nil, fmt.Errorf("node: corrupt node private key file %s: no %s tag", path, t)
		}
	}
	seed, err := hex.DecodeString(tags[tagPrivate])
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("node: corrupt node private key file %s: %s is not 64 hex digits", path, tagPrivate)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	if hex.EncodeToString(priv.Public().(ed25519.PublicKey)) != strings.ToLower(tags[tagPublic]) {
		return nil, fmt.Errorf("node: inconsistent node private key file %s: %s does not match %s", path, tagPublic, tagPrivate)
	}
	return priv, nil
}

// checkPublicFile checks key.pub against the private key's tags, or
// writes it from them when it is missing.
func checkPublicFile(path string, priv map[string]string, log *slog.Logger) error {
	tags, err := readKeyFile(path, false)
	if errors.Is(err, fs.ErrNotExist) {
		log.Info("node public key file not found: re-created from the private key file", "file", path)
		return writeKeyFile(path, "Crossbar.io node public key", priv, false, 0o644)
	}
	if err != nil {
		return err
	}
	for _, t := range []string{"creator", "created-at", "machine-id", tagPublic} {
		if _, ok := tags[t]; !ok {
			return fmt.Errorf("node: corrupt node public key file %s: no %s tag", path, t)
		}
	}
	if !strings.EqualFold(tags[tagPublic], priv[tagPublic]) {
		return fmt.Errorf("node: inconsistent node public key file %s: it does not match the private key file", path)
	}
	return nil
}

// generateNodeKey makes a new node key pair and writes both files.
func generateNodeKey(privPath, pubPath string, log *slog.Logger) (ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("node: node key: %w", err)
	}
	host, _ := os.Hostname()
	tags := map[string]string{
		"creator":     creator(host),
		"created-at":  time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"machine-id":  machineID(host),
		"node-authid": host,
		tagPublic:     hex.EncodeToString(pub),
		tagPrivate:    hex.EncodeToString(priv.Seed()),
	}
	if err := writeKeyFile(pubPath, "Crossbar.io node public key", tags, false, 0o644); err != nil {
		return nil, err
	}
	if err := writeKeyFile(privPath, "Crossbar.io node private key - KEEP THIS SAFE!", tags, true, 0o600); err != nil {
		return nil, err
	}
	log.Info("new node key pair generated", "file", privPath, "pubkey", tags[tagPublic])
	return priv, nil
}

// writeKeyFile writes a key file with the given mode (the file is created
// with it, so a private key is never readable by others).
func writeKeyFile(path, title string, tags map[string]string, private bool, mode os.FileMode) error {
	var b strings.Builder
	b.WriteString(title + "\n\n")
	order := nodeKeyTags
	if private {
		order = append(slices.Clone(nodeKeyTags), tagPrivate)
	}
	for _, t := range order {
		v := tags[t]
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(&b, "%s: %s\n", t, v)
	}
	if err := os.WriteFile(path, []byte(b.String()), mode); err != nil {
		return fmt.Errorf("node: node key: %w", err)
	}
	return os.Chmod(path, mode) // WriteFile keeps an existing file's mode
}

// fixModes sets the modes Crossbar wants: key.pub 0644, key.priv 0600.
func fixModes(privPath, pubPath string) error {
	for path, mode := range map[string]os.FileMode{privPath: 0o600, pubPath: 0o644} {
		if err := os.Chmod(path, mode); err != nil {
			return fmt.Errorf("node: node key: %w", err)
		}
	}
	return nil
}

// creator is user@host, for information.
func creator(host string) string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.Username + "@" + host
}

// machineID is /var/lib/dbus/machine-id, or the host name.
func machineID(host string) string {
	if b, err := os.ReadFile("/var/lib/dbus/machine-id"); err == nil {
		return strings.TrimSpace(string(b))
	}
	return host
}
