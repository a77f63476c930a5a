package config

import (
	"reflect"
	"strings"
	"testing"
)

// archiveDoc is a document whose web path "svc" is an archive service with
// the members after "type".
func archiveDoc(members string) string {
	return bridgeDoc(`"type": "archive"`+members, "")
}

const goodHash = "f63fb912ee13ba8ccd519be5d0a99e70b18c04ef6827c78b23a73cf328e733c4"

func TestArchiveDecodes(t *testing.T) {
	c, _ := mustParse(t, archiveDoc(`, "id": "autobahn", "archive": "autobahn.zip",
		"origin": "https://github.com/crossbario/autobahn-js-browser/archive/master.zip",
		"object_prefix": "autobahn-js-browser-master", "default_object": "autobahn.min.js",
		"download": true, "cache": true, "hashes": ["`+strings.ToUpper(goodHash)+`"],
		"mime_types": {".min.js": "text/javascript", ".jgz": "text/javascript"},
		"options": {"default_file": "index.html"}`))
	got := c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["svc"]
	want := &ArchiveService{
		Archive: "autobahn.zip", Origin: "https://github.com/crossbario/autobahn-js-browser/archive/master.zip",
		Download: true, Hashes: []string{goodHash}, ObjectPrefix: "autobahn-js-browser-master",
		DefaultObject: "autobahn.min.js", DefaultFile: "index.html", Cache: true,
		MIMETypes: map[string]string{".min.js": "text/javascript", ".jgz": "text/javascript"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v,\nwant %+v", got, want)
	}
	c, _ = mustParse(t, archiveDoc(`, "archive": "a.zip"`))
	got = c.Workers[0].(*RouterWorker).Transports[0].(*WebTransport).Paths["svc"]
	if !reflect.DeepEqual(got, &ArchiveService{Archive: "a.zip"}) {
		t.Errorf("defaults: got %+v", got)
	}
}

func TestArchiveRules(t *testing.T) {
	tests := []struct {
		name, members, path, msg string
	}{
		{"archive missing", ``, bp + ".archive", "required"},
		{"archive empty", `, "archive": ""`, bp + ".archive", "must not be empty"},
		{"archive not a string", `, "archive": 1`, bp + ".archive", "must be a string"},
		{"origin scheme", `, "archive": "a.zip", "origin": "ftp://example.com/a.zip"`, bp + ".origin", "want an http or https URL"},
		{"origin relative", `, "archive": "a.zip", "origin": "a.zip"`, bp + ".origin", "want an http or https URL"},
		{"download not a boolean", `, "archive": "a.zip", "download": "yes"`, bp + ".download", "boolean"},
		{"hash short", `, "archive": "a.zip", "hashes": ["abcd"]`, bp + ".hashes[0]", "must be 64 hex digits"},
		{"hash not hex", `, "archive": "a.zip", "hashes": ["` + strings.Repeat("z", 64) + `"]`, bp + ".hashes[0]", "must be 64 hex digits"},
		{"hashes not a list", `, "archive": "a.zip", "hashes": "` + goodHash + `"`, bp + ".hashes", "array"},
		{"prefix escapes", `, "archive": "a.zip", "object_prefix": "../x"`, bp + ".object_prefix", "relative name"},
		{"default object absolute", `, "archive": "a.zip", "default_object": "/index.html"`, bp + ".default_object", "relative name"},
		{"default file escapes", `, "archive": "a.zip", "options": {"default_file": "a/../../b"}`, bp + ".options.default_file", "relative name"},
		{"mime type not a string", `, "archive": "a.zip", "mime_types": {".js": 1}`, bp + `.mime_types[".js"]`, "must be a string"},
		{"unknown key", `, "archive": "a.zip", "directory": "web"`, bp + ".directory", "unknown key"},
		{"unknown option", `, "archive": "a.zip", "options": {"listing": true}`, bp + ".options.listing", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, errs := parseTest(t, archiveDoc(tt.members), JSON)
			if len(errs) != 1 {
				t.Fatalf("got %d errors, want 1 at %q:\n%v", len(errs), tt.path, errs)
			}
			if errs[0].Path != tt.path || !strings.Contains(errs[0].Msg, tt.msg) {
				t.Errorf("got %q,\nwant %s: ...%s...", errs[0].Error(), tt.path, tt.msg)
			}
		})
	}
}
