package node

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// zipBytes is a ZIP archive holding site/index.html.
func zipBytes(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("site/index.html")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "<p>from the archive</p>")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// archiveNode is a node whose web transport serves the archive service
// with members at /app.
func archiveNode(members string) string {
	return `{"version": 2, "workers": [{"type": "router",
		"realms": [{"name": "realm1", "roles": [{"name": "anonymous", "allow-by-default": true}]}],
		"transports": [{"type": "web", "endpoint": {"type": "tcp", "interface": "127.0.0.1", "port": 0},
			"paths": {"app": {"type": "archive", "object_prefix": "site", "default_object": "index.html", ` + members + `}}}]}]}`
}

const archivePath = "workers[0].transports[0].paths.app"

// originServer serves raw at /a.zip (404 elsewhere) and counts the
// requests.
func originServer(t *testing.T, raw []byte) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/a.zip" {
			http.NotFound(w, r)
			return
		}
		w.Write(raw)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// fetchApp GETs /app/ from n's web transport.
func fetchApp(t *testing.T, n *Node) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + address(t, n, "workers[0].transports[0]") + "/app/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestArchiveLocalFile(t *testing.T) {
	raw := zipBytes(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.zip"), raw, 0o644)
	srv, hits := originServer(t, []byte("never fetched"))
	n := start(t, parse(t, archiveNode(`"archive": "a.zip", "download": true, "origin": "`+srv.URL+`/a.zip", "hashes": ["`+hexSHA256(raw)+`"]`), nil), dir)
	if status, body := fetchApp(t, n); status != 200 || body != "<p>from the archive</p>" {
		t.Errorf("GET /app/: %d %q", status, body)
	}
	if hits.Load() != 0 {
		t.Errorf("the origin was fetched %d times, although the file exists", hits.Load())
	}
}

func TestArchiveDownload(t *testing.T) {
	raw := zipBytes(t)
	srv, hits := originServer(t, raw)
	dir := t.TempDir()
	cfg := parse(t, archiveNode(`"archive": "a.zip", "download": true, "origin": "`+srv.URL+`/a.zip", "hashes": ["`+hexSHA256(raw)+`"]`), nil)
	n, err := New(cfg, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 0 { // New (and junction check) never downloads
		t.Fatalf("New fetched the origin")
	}
	startNode(t, n)
	if status, body := fetchApp(t, n); status != 200 || body != "<p>from the archive</p>" {
		t.Errorf("GET /app/: %d %q", status, body)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.zip")); !bytes.Equal(got, raw) {
		t.Errorf("the download is not kept in the node directory")
	}
}

func TestArchiveStartFails(t *testing.T) {
	raw := zipBytes(t)
	srv, _ := originServer(t, raw)
	bad := strings.Repeat("0", 64)
	tests := []struct {
		name, members, want string
		local               []byte // the file in the node directory, nil for none
	}{
		{"download with a bad hash", `"archive": "a.zip", "download": true, "origin": "` + srv.URL + `/a.zip", "hashes": ["` + bad + `"]`,
			archivePath + ".hashes: web: archive download", nil},
		{"local file with a bad hash", `"archive": "a.zip", "hashes": ["` + bad + `"]`, archivePath + ".hashes: web: archive", raw},
		{"origin answers 404", `"archive": "a.zip", "download": true, "origin": "` + srv.URL + `/b.zip"`,
			archivePath + ".origin: web: archive download " + srv.URL + "/b.zip: status 404", nil},
		{"local file not a zip", `"archive": "a.zip"`, archivePath + ".archive: web: archive", []byte("not a zip")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.local != nil {
				os.WriteFile(filepath.Join(dir, "a.zip"), tt.local, 0o644)
			}
			n, err := New(parse(t, archiveNode(tt.members), nil), Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			err = n.Start(testCtx(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start: %v, want %q", err, tt.want)
			}
			if tt.local == nil {
				if files, _ := os.ReadDir(dir); len(files) != 0 {
					t.Errorf("a failed download left %v", files)
				}
			}
		})
	}
}

// TestArchiveMissing: a missing file is a warning at New (Crossbar's check
// passes it); the start decides: no origin fails it, "download" false
// serves 404 without fetching.
func TestArchiveMissing(t *testing.T) {
	dir := t.TempDir()
	n, err := New(parse(t, archiveNode(`"archive": "a.zip"`), nil), Options{Dir: dir})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if ws := n.Warnings(); len(ws) != 1 || ws[0].Path != archivePath+".archive" || !strings.Contains(ws[0].Msg, "the start fails unless it is there by then") {
		t.Errorf("warnings %v", ws)
	}
	want := archivePath + `.archive: node: ` + filepath.Join(dir, "a.zip") + ` does not exist and there is no "origin"`
	if err := n.Start(testCtx(t)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Start without origin: %v, want %q", err, want)
	}
	os.Mkdir(filepath.Join(dir, "d.zip"), 0o755)
	_, err = New(parse(t, archiveNode(`"archive": "d.zip"`), nil), Options{Dir: dir})
	if want := archivePath + `.archive: node: ` + filepath.Join(dir, "d.zip") + ` exists but is not a file`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a directory: %v, want %q", err, want)
	}
	srv, hits := originServer(t, zipBytes(t))
	n = start(t, parse(t, archiveNode(`"archive": "a.zip", "origin": "`+srv.URL+`/a.zip"`), nil), dir)
	if ws := n.Warnings(); len(ws) != 1 || ws[0].Path != archivePath+".download" || !strings.Contains(ws[0].Msg, "every request here gets 404") {
		t.Errorf("warnings %v", ws)
	}
	if status, _ := fetchApp(t, n); status != 404 || hits.Load() != 0 {
		t.Errorf("missing with download false: %d, origin hits %d; want 404 and none", status, hits.Load())
	}
}

// TestArchiveAppearsBeforeStart: the start looks at the file as it is
// then, as Crossbar's does: one put there after New is served.
func TestArchiveAppearsBeforeStart(t *testing.T) {
	dir := t.TempDir()
	n, err := New(parse(t, archiveNode(`"archive": "a.zip"`), nil), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.zip"), zipBytes(t), 0o644)
	startNode(t, n)
	if status, body := fetchApp(t, n); status != 200 || body != "<p>from the archive</p>" {
		t.Errorf("GET /app/: %d %q", status, body)
	}
}
