package config

import (
	"slices"
	"strings"
)

// Paths are a web transport's (or a "path" service's) "paths": the service
// for each URL path segment. The key "/" is the root; every other key is one
// segment, without '/'.
type Paths map[string]PathService

// PathService is the service at a web path: a *WebSocketService,
// *StaticService, *RedirectService, *JSONService, *NodeInfoService,
// *DashboardService,
// *CallerService, *PublisherService, *WebhookService, *EventStreamService,
// *APIService,
// *ReverseProxyService, *WebSocketProxyService, *LongPollService,
// *ArchiveService, *MetricsService, *HealthService, *ReadyService,
// *WSGIService, *ResourceService, *WAPService or *PathTree.
type PathService interface {
	// PathType is the service's "type".
	PathType() string
}

// pathTypes is the table of path service types: each decodes the keys of
// its type (other than "type") from o. The "path" type, which nests paths,
// is handled by pathService itself (a table entry would refer to the table).
var pathTypes = map[string]func(d *decoder, o *object) PathService{
	"websocket":    func(d *decoder, o *object) PathService { return d.webSocketService(o) },
	"static":       func(d *decoder, o *object) PathService { return d.staticService(o) },
	"redirect":     func(d *decoder, o *object) PathService { return d.redirectService(o) },
	"json":         func(d *decoder, o *object) PathService { return d.jsonService(o) },
	"nodeinfo":     func(d *decoder, o *object) PathService { return d.nodeInfoService(o) },
	"dashboard":    func(d *decoder, o *object) PathService { return d.dashboardService(o) },
	"caller":       func(d *decoder, o *object) PathService { return d.callerService(o) },
	"publisher":    func(d *decoder, o *object) PathService { return d.publisherService(o) },
	"webhook":      func(d *decoder, o *object) PathService { return d.webhookService(o) },
	"eventstream":  func(d *decoder, o *object) PathService { return d.eventStreamService(o) },
	"api":          func(d *decoder, o *object) PathService { return d.apiService(o) },
	"reverseproxy": func(d *decoder, o *object) PathService { return d.reverseProxyService(o) },
	"longpoll":     func(d *decoder, o *object) PathService { return d.longPollService(o) },
	"archive":      func(d *decoder, o *object) PathService { return d.archiveService(o) },
	"metrics":      func(d *decoder, o *object) PathService { return d.metricsService(o) },
	"health":       func(*decoder, *object) PathService { return &HealthService{} },
	"ready":        func(*decoder, *object) PathService { return &ReadyService{} },
	"wsgi":         func(d *decoder, o *object) PathService { return d.wsgiService(o) },
	"resource":     func(d *decoder, o *object) PathService { return d.resourceService(o) },
	"wap":          func(d *decoder, o *object) PathService { return d.wapService(o) },
	"websocket-reverseproxy": func(d *decoder, o *object) PathService {
		return d.webSocketProxyService(o)
	},
}

// pathTypesUnsupported are Crossbar's other path types, with what they are.
var pathTypesUnsupported = map[string]string{
	"cgi":        "CGI scripts",
	"fileupload": "file uploads",
	"upload":     "file uploads",
	"schemadoc":  "WAMP API schema documentation",
	"mqtt":       "the MQTT bridge",
	"none":       "a path that answers 404 to everything: leave the path out, or serve an empty \"static\" directory there",
}

// paths decodes the "paths" of o.
func (d *decoder) paths(o *object) Paths {
	ps := Paths{}
	o.each("paths", func(p, key string, v any) {
		if !d.pathKey(p, key) {
			return
		}
		if s := d.pathService(p, v); s != nil {
			ps[key] = s
		}
	})
	return ps
}

// pathKey checks a key of "paths".
func (d *decoder) pathKey(path, key string) bool {
	switch {
	case key == "":
		d.errorf(path, "empty path key (use \"/\" for the root)")
	case key != "/" && strings.Contains(key, "/"):
		d.errorf(path, "path key %q must be one URL segment (nest with \"type\": \"path\")", key)
	default:
		return true
	}
	return false
}

// pathService decodes one path service, by its "type".
func (d *decoder) pathService(path string, v any) PathService {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	var s PathService
	typ := o.reqStr("type")
	if fn, ok := pathTypes[typ]; ok {
		s = fn(d, o)
	} else if typ == "path" {
		s = &PathTree{Paths: d.nestedPaths(o)}
	} else {
		d.unknownPathType(o, typ)
	}
	o.done()
	return s
}

func (d *decoder) unknownPathType(o *object, typ string) {
	switch {
	case typ == "":
	case pathTypesUnsupported[typ] != "":
		d.errorf(o.at("type"), "not supported: path type %q (%s)", typ, pathTypesUnsupported[typ])
	default:
		d.errorf(o.at("type"), "unknown path type %q (want %s)", typ, strings.Join(knownPathTypes(), ", "))
	}
	o.skip()
}

func knownPathTypes() []string {
	names := append(sortedKeysOf(pathTypes), "path")
	slices.Sort(names)
	return names
}

// PathTree is a path service of "type": "path": more paths below this one.
type PathTree struct {
	// Paths is "paths" (required), like a web transport's.
	Paths Paths
}

// PathType returns "path".
func (*PathTree) PathType() string { return "path" }

func (d *decoder) nestedPaths(o *object) Paths {
	if !o.has("paths") {
		o.get("paths")
		o.required("paths")
		return nil
	}
	return d.paths(o)
}
