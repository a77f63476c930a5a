package node

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/web"
)

// pathEnv is what a path builder may use: the node directory, the router
// of the worker, the listener being built (for its start log) and the body
// buffer its bridge services share.
type pathEnv struct {
	b        *builder
	types    map[string]pathBuilder // pathTypes
	router   *routerUnit
	listener *listenerUnit
	bodies   *bridge.BodyBuffer
	top      config.Paths // the transport's paths (options.auth.basic.principals_from names one)
}

// pathBuilder builds the handler of one path service. path is the JSON
// path of the service ("workers[0].transports[0].paths.ws"), url its URL
// path ("/ws").
type pathBuilder func(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error)

// pathTypes are the web path services, by "type". Adding a service is one
// line here and its builder. (Builders reach the table through
// pathEnv.types, which breaks the initialization cycle of "path".)
var pathTypes = map[string]pathBuilder{
	"websocket":              buildWebSocket,
	"static":                 buildStatic,
	"redirect":               buildRedirect,
	"json":                   buildJSON,
	"nodeinfo":               buildNodeInfo,
	"dashboard":              buildDashboard,
	"path":                   buildTree,
	"caller":                 buildCaller,
	"publisher":              buildPublisher,
	"webhook":                buildWebhook,
	"eventstream":            buildEventStream,
	"api":                    buildAPI,
	"reverseproxy":           buildReverseProxy,
	"websocket-reverseproxy": buildWebSocketProxy,
	"longpoll":               buildLongPoll,
	"archive":                buildArchive,
	"metrics":                buildMetrics,
	"health":                 buildHealth,
	"ready":                  buildReady,
	"wsgi":                   buildWSGI,
	"wap":                    buildWAP,
	"resource":               buildResource,
}

// tree builds the web.Tree of paths, mounted at URL prefix url. The tree
// is returned even with an error (the problems of every path that could
// not be built, a config.Errors), so that the rest of the transport can be
// checked too.
func (b *builder) tree(env *pathEnv, path, url string, paths config.Paths) (*web.Tree, error) {
	t := web.NewTree()
	var errs config.Errors
	for _, key := range slices.Sorted(maps.Keys(paths)) {
		errs = appendError(errs, mountPath(env, t, config.ChildPath(path, key), url, key, paths[key]))
	}
	if len(errs) > 0 {
		return t, errs
	}
	return t, nil
}

// mountPath builds the service svc at key of the tree t, whose JSON path
// is path.
func mountPath(env *pathEnv, t *web.Tree, path, url, key string, svc config.PathService) error {
	if svc == nil {
		return fieldError(path, errors.New("node: missing path service"))
	}
	su := url + "/" + strings.TrimPrefix(key, "/")
	h, err := buildPath(env, path, su, svc)
	if err != nil {
		return err
	}
	if err := t.Mount(key, h); err != nil {
		return fieldError(path, err)
	}
	if svc.PathType() != "path" {
		env.listener.services = append(env.listener.services,
			serviceLog{"path service", []any{"url", su, "type", svc.PathType()}})
	}
	return nil
}

// buildPath builds one service through pathTypes. Its error may be a
// config.Errors (a nested "path" tree, a bridge service with several
// problems).
func buildPath(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	build, ok := env.types[svc.PathType()]
	if !ok {
		return nil, fieldError(path+".type", fmt.Errorf("node: path type %q is not implemented yet", svc.PathType()))
	}
	return build(env, path, url, svc)
}

func buildTree(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	t, err := env.b.tree(env, path+".paths", url, svc.(*config.PathTree).Paths)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func buildWebSocket(env *pathEnv, path, _ string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.WebSocketService)
	env.listener.boundHandshake(s.Options.OpenHandshakeTimeout)
	return env.b.webSocketHandler(path, env.router, s.Serializers, s.Auth, s.Options, s.Cookie)
}

// buildStatic serves "directory", relative to the node directory (as
// Crossbar resolves it against the .crossbar directory). A directory that
// does not exist is a warning, as Crossbar starts such a node and answers
// 404 there.
func buildStatic(env *pathEnv, path, _ string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.StaticService)
	dir := env.b.resolve(s.Directory)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		env.b.warn(path+".directory", fmt.Sprintf("%s does not exist: every request here gets 404 until it does", dir))
	}
	h, err := web.Static(web.StaticOptions{
		AllowMissing:           true,
		Directory:              dir,
		EnableDirectoryListing: s.Options.EnableDirectoryListing,
		DefaultFile:            s.Options.DefaultFile,
		CacheTimeout:           int(s.Options.CacheTimeout.Seconds()),
		MIMETypes:              s.Options.MIMETypes,
	})
	if err != nil {
		return nil, fieldError(path, err)
	}
	return h, nil
}

func buildRedirect(_ *pathEnv, path, _ string, svc config.PathService) (http.Handler, error) {
	h, err := web.Redirect(svc.(*config.RedirectService).URL, 0)
	if err != nil {
		return nil, fieldError(path+".url", err)
	}
	return h, nil
}

func buildJSON(_ *pathEnv, path, _ string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.JSONService)
	h, err := web.JSON(s.Value, web.JSONOptions(s.Options))
	if err != nil {
		return nil, fieldError(path+".value", err)
	}
	return h, nil
}

func buildNodeInfo(env *pathEnv, _, _ string, _ config.PathService) (http.Handler, error) {
	return web.NodeInfoHandler(env.b.infoNode().Info), nil
}
