package web

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
)

// listingTemplate renders a directory listing; html/template escapes every
// name, and hrefs start with "./" so no name can become a URL scheme.
var listingTemplate = template.Must(template.New("listing").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Index of {{.Path}}</title></head>
<body><h1>Index of {{.Path}}</h1>
<ul>
<li><a href="../">../</a></li>
{{range .Entries}}<li><a href="{{.Href}}">{{.Name}}</a>{{if not .Dir}} ({{.Size}} bytes){{end}}</li>
{{end}}</ul>
</body></html>
`))

type listingEntry struct {
	Name, Href string
	Dir        bool
	Size       int64
}

// serveListing renders the directory name of root as HTML.
func (s *static) serveListing(w http.ResponseWriter, r *http.Request, root *os.Root, name string) {
	entries, err := readListing(root, name)
	if err != nil {
		NotFound(w, r)
		return
	}
	shown, err := url.PathUnescape(MountPath(r) + r.URL.EscapedPath())
	if err != nil {
		shown = r.URL.Path
	}
	var buf bytes.Buffer
	data := struct {
		Path    string
		Entries []listingEntry
	}{shown, entries}
	if err := listingTemplate.Execute(&buf, data); err != nil {
		NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	writeBody(w, r, http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
}

// readListing returns the entries of directory name, sorted by name.
func readListing(root *os.Root, name string) ([]listingEntry, error) {
	d, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	des, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := make([]listingEntry, 0, len(des))
	for _, de := range des {
		e := listingEntry{Name: de.Name(), Dir: de.IsDir(), Href: "./" + url.PathEscape(de.Name())}
		if e.Dir {
			e.Name += "/"
			e.Href += "/"
		}
		if fi, err := de.Info(); err == nil {
			e.Size = fi.Size()
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b listingEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
