package config

// WSGIService is a path service of "type": "wsgi": a Python WSGI
// application, which the node serves from a Python process of its own
// (the worker's interpreter, "options.python", with its "pythonpath"
// and "env"), as Crossbar serves it from the router worker. The config
// is checked without importing the module: a module or object that is
// not there fails the start.
type WSGIService struct {
	// Module is "module" (required): the Python module imported, such as
	// "myapp" or "django_project.wsgi".
	Module string
	// Object is "object" (required): the module's attribute that is the
	// WSGI application, such as "app" or "application".
	Object string
	// MinThreads is "minthreads" (>= 0, default 0): Crossbar's thread
	// pool's lower bound, accepted and checked (<= MaxThreads); the Python
	// process makes a thread per upstream connection and keeps none idle.
	MinThreads int
	// MaxThreads is "maxthreads" (>= 1, default 20): how many requests
	// the application runs at once; more wait for a turn.
	MaxThreads int
}

// ResourceService is a path service of "type": "resource": a Twisted Web
// resource, "classname" instantiated with "extra", served from a Python
// process of the node's (as WSGIService is).
type ResourceService struct {
	// Classname is "classname" (required): the resource's class, as
	// "package.module.Class".
	Classname string
	// Extra is "extra": the class's one argument, any JSON value
	// ("${NAME}" substituted in its strings; default {}).
	Extra any
}

// Defaults of a WSGIService.
const (
	DefaultWSGIMaxThreads = 20
	DefaultWSGIMinThreads = 0
)

// PathType returns "wsgi".
func (*WSGIService) PathType() string { return "wsgi" }

// PathType returns "resource".
func (*ResourceService) PathType() string { return "resource" }

func (d *decoder) wsgiService(o *object) *WSGIService {
	d.id(o)
	s := &WSGIService{
		Module:     o.reqValidStr("module", pythonModuleName, "invalid Python module name %q (want package.module)"),
		Object:     o.reqValidStr("object", pythonIdentifier, "invalid Python name %q (want an identifier)"),
		MinThreads: int(o.integer("minthreads", DefaultWSGIMinThreads, 0, maxInt32)),
		MaxThreads: int(o.integer("maxthreads", DefaultWSGIMaxThreads, 1, maxInt32)),
	}
	if s.MinThreads > s.MaxThreads {
		d.errorf(o.at("minthreads"), "must be <= maxthreads (%d), not %d", s.MaxThreads, s.MinThreads)
	}
	return s
}

func (d *decoder) resourceService(o *object) *ResourceService {
	d.id(o)
	s := &ResourceService{
		Classname: o.reqValidStr("classname", pythonClassname, "invalid Python class name %q (want package.module.Class)"),
		Extra:     map[string]any{},
	}
	if v, ok := o.get("extra"); ok {
		s.Extra = d.resolveDeep(o.at("extra"), v)
	}
	return s
}

// pythonModuleName reports whether s names a module: dotted Python
// identifiers, one or more.
func pythonModuleName(s string) bool {
	return pythonIdentifier(s) || pythonClassname(s)
}

// hasPythonWebPath reports whether t serves a "wsgi", "resource" or "wap" path,
// which runs in a Python process of the worker's interpreter.
func hasPythonWebPath(t Transport) bool {
	switch t := t.(type) {
	case *WebTransport:
		return pathsHavePython(t.Paths)
	case *UniversalTransport:
		return t.Web != nil && pathsHavePython(t.Web.Paths)
	}
	return false
}

func pathsHavePython(ps Paths) bool {
	for _, p := range ps {
		switch s := p.(type) {
		case *WSGIService, *ResourceService, *WAPService:
			return true
		case *PathTree:
			if pathsHavePython(s.Paths) {
				return true
			}
		}
	}
	return false
}
