package node

import (
	"encoding/json"
	"net/http"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/metrics"
	"github.com/junction-wamp/junction/wamp"
)

// buildAPI builds an "api" service on an embedded session.
func buildAPI(env *pathEnv, path, url string, svc config.PathService) (http.Handler, error) {
	s := svc.(*config.APIService)
	common, cerr := env.common(path, url, &s.BridgeService)
	access, aerr := env.access(path, url, &s.Access)
	security, optional := apiSecurity(s.Auth)
	h, err := bridge.NewAPI(env.sessionFor(path, &s.BridgeService, s.Auth != nil), bridge.APIOptions{
		Common:           common,
		Access:           access,
		Routes:           apiRoutes(s.Routes),
		CallTimeout:      callTimeout(s.CallTimeout),
		CancelMode:       s.CancelMode,
		Base:             url,
		Title:            s.Title,
		Version:          s.Version,
		Security:         security,
		SecurityOptional: optional,
	})
	if err == nil {
		env.addService(metrics.ServiceAPI, path, url, h)
	}
	return serviceResult(path, h, joinErrors(cerr, aerr), err)
}

// apiSecurity describes options.auth's credentials for the OpenAPI
// document.
func apiSecurity(a *config.HTTPAuth) (kinds []string, optional bool) {
	if a == nil {
		return nil, false
	}
	if a.JWT != nil || len(a.APIKeys) > 0 {
		kinds = append(kinds, bridge.SecurityBearer)
	}
	if len(a.APIKeys) > 0 && a.APIKeyHeader != "" {
		kinds = append(kinds, bridge.SecurityHeader+a.APIKeyHeader)
	}
	if a.BasicFrom != "" {
		kinds = append(kinds, bridge.SecurityBasic)
	}
	return kinds, !a.Required
}

// apiRoutes translates an api service's routes; their JSON numbers
// become int64 or float64, as a WAMP session's values are.
func apiRoutes(rs []config.APIRoute) []bridge.APIRoute {
	out := make([]bridge.APIRoute, len(rs))
	for i, r := range rs {
		out[i] = bridge.APIRoute{Method: r.Method, Path: r.Path, Procedure: wamp.URI(r.Procedure),
			Status: r.Status, Result: r.Result, Summary: r.Summary, BodySchema: r.BodySchema, ResultSchema: r.ResultSchema}
		for _, a := range r.Args {
			out[i].Args = append(out[i].Args, plainNumbers(a))
		}
		if r.Kwargs != nil {
			out[i].Kwargs = plainNumbers(r.Kwargs).(map[string]any)
		}
	}
	return out
}

// plainNumbers is v with each json.Number an int64 when it is an
// integer, else a float64.
func plainNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plainNumbers(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = plainNumbers(e)
		}
		return out
	}
	return v
}
