package web

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"path"
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

// readListing returns the entries of directory name, sorted by name:
// those listEntry keeps.
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
		if e, ok := listEntry(root, name, de.Name()); ok {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b listingEntry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// listEntry returns the listing entry of the entry base of directory dir,
// or false for what the listing leaves out: dotfiles (".env", ".git"),
// names a request could not fetch, symlinks that leave the directory or
// lead nowhere, and anything but regular files and directories. An entry
// is shown as what a request gets (root.Stat follows a symlink inside the
// directory): a link's size is its target's, never the link's own length.
func listEntry(root *os.Root, dir, base string) (listingEntry, bool) {
	if strings.HasPrefix(base, ".") || !safeSegment(base) {
		return listingEntry{}, false
	}
	fi, err := root.Stat(path.Join(dir, base))
	if err != nil || !fi.IsDir() && !fi.Mode().IsRegular() {
		return listingEntry{}, false
	}
	e := listingEntry{Name: base, Dir: fi.IsDir(), Href: "./" + url.PathEscape(base)}
	if e.Dir {
		e.Name += "/"
		e.Href += "/"
	} else {
		e.Size = fi.Size()
	}
	return e, true
}
