package web

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"time"
)

// NodeInfo is what the "nodeinfo" page shows; the node fills it on every
// request through the function given to NodeInfoHandler.
type NodeInfo struct {
	Version   string         `json:"version"`
	Started   time.Time      `json:"started"`
	Realms    []RealmInfo    `json:"realms"`
	Listeners []ListenerInfo `json:"listeners"`
}

// RealmInfo is one realm and its number of live sessions.
type RealmInfo struct {
	Name     string `json:"name"`
	Sessions int    `json:"sessions"`
}

// ListenerInfo is one listening transport: its type ("web", "websocket",
// "rawsocket") and its real address ("127.0.0.1:8080", "unix:/path").
type ListenerInfo struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

// nodeInfoJSON is the JSON form: NodeInfo plus the uptime.
type nodeInfoJSON struct {
	NodeInfo
	UptimeSeconds int64 `json:"uptime_seconds"`
}

var nodeInfoTemplate = template.Must(template.New("nodeinfo").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Junction {{.Version}}</title></head>
<body><h1>Junction {{.Version}}</h1>
<p>Started {{.Started.UTC.Format "2006-01-02 15:04:05 MST"}}, up {{.Uptime}}.</p>
<h2>Realms</h2>
<table><tr><th>Realm</th><th>Sessions</th></tr>
{{range .Realms}}<tr><td>{{.Name}}</td><td>{{.Sessions}}</td></tr>
{{end}}</table>
<h2>Listeners</h2>
<ul>
{{range .Listeners}}<li>{{.Type}} on {{.Address}}</li>
{{end}}</ul>
</body></html>
`))

// nodeInfoService renders fn's NodeInfo; see NodeInfoHandler.
type nodeInfoService struct {
	info func() NodeInfo
	now  func() time.Time
}

// NodeInfoHandler returns the handler of a "nodeinfo" path service: an HTML
// page (every value escaped by html/template) with the node's version,
// start time and uptime, realms with live session counts, and listeners;
// a request preferring application/json in its Accept header gets the
// same as JSON. fn is called once per request, from the request's
// goroutine, so it must be safe for concurrent use; nil shows an empty
// NodeInfo. GET and HEAD only, at its mount point only: any other path
// under it is 404 (see OnlyMountPath).
func NodeInfoHandler(fn func() NodeInfo) http.Handler {
	if fn == nil {
		fn = func() NodeInfo { return NodeInfo{} }
	}
	return &nodeInfoService{info: fn, now: time.Now}
}

func (h *nodeInfoService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !atMountPath(w, r) || !readOnly(w, r) {
		return
	}
	info := h.info()
	uptime := h.now().Sub(info.Started).Truncate(time.Second)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Vary", "Accept")
	if prefersJSON(r.Header.Values("Accept")) {
		body, err := json.Marshal(nodeInfoJSON{info, int64(uptime / time.Second)})
		if err != nil {
			http.Error(w, "web: nodeinfo: encoding failed", http.StatusInternalServerError)
			return
		}
		writeBody(w, r, http.StatusOK, "application/json", append(body, '\n'))
		return
	}
	var buf bytes.Buffer
	data := struct {
		NodeInfo
		Uptime time.Duration
	}{info, uptime}
	if err := nodeInfoTemplate.Execute(&buf, data); err != nil {
		http.Error(w, "web: nodeinfo: rendering failed", http.StatusInternalServerError)
		return
	}
	writeBody(w, r, http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
}
