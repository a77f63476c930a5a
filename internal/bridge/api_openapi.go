package bridge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/junction-wamp/junction/internal/apiroute"
)

// OpenAPIVersion is the version of the API's OpenAPI documents.
const OpenAPIVersion = "3.1.0"

// errorSchema is the JSON Schema of every error answer.
var errorSchema = map[string]any{
	"type":     "object",
	"required": []string{"error", "args", "kwargs"},
	"properties": map[string]any{
		"error":  map[string]any{"type": "string", "description": "The WAMP error URI, or the bridge's refusal."},
		"args":   map[string]any{"type": "array"},
		"kwargs": map[string]any{"type": "object"},
	},
}

// openAPIDocument is the OpenAPI 3.1 document of the routes: each route
// an operation with its path and query parameters, its request body when
// it reads one, its success answer and the error body.
func openAPIDocument(o *APIOptions, t *apiroute.Table) ([]byte, error) {
	paths := map[string]map[string]any{}
	for _, rt := range t.Routes() {
		p := rt.Path.OpenAPI()
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		paths[p][strings.ToLower(rt.Method)] = operation(&o.Routes[rt.Index], rt)
	}
	server := o.Base
	if server == "" {
		server = "/"
	}
	doc := map[string]any{
		"openapi": OpenAPIVersion,
		"info":    map[string]any{"title": orDefault(o.Title, "API"), "version": orDefault(o.Version, "1.0.0")},
		"servers": []any{map[string]any{"url": server}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": map[string]any{"Error": errorSchema},
		},
	}
	if len(o.Security) > 0 {
		schemes, security, err := securitySchemes(o.Security, o.SecurityOptional)
		if err != nil {
			return nil, err
		}
		doc["components"].(map[string]any)["securitySchemes"] = schemes
		doc["security"] = security
	}
	return json.Marshal(doc)
}

// securitySchemes are the document's security schemes and its security
// requirement: any one of them (or none, when optional).
func securitySchemes(kinds []string, optional bool) (map[string]any, []any, error) {
	schemes := map[string]any{}
	var security []any
	for _, k := range kinds {
		name, scheme := k, map[string]any{"type": "http", "scheme": k}
		switch {
		case k == SecurityBearer || k == SecurityBasic:
		case strings.HasPrefix(k, SecurityHeader) && len(k) > len(SecurityHeader):
			name = "apiKeyHeader"
			scheme = map[string]any{"type": "apiKey", "in": "header", "name": k[len(SecurityHeader):]}
		default:
			return nil, nil, fmt.Errorf("bridge: security: unknown credentials %q", k)
		}
		schemes[name] = scheme
		security = append(security, map[string]any{name: []any{}})
	}
	if optional {
		security = append(security, map[string]any{})
	}
	return schemes, security, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// operation is the OpenAPI operation of a route.
func operation(r *APIRoute, rt *apiroute.Route) map[string]any {
	op := map[string]any{
		"operationId":      "routes_" + strconv.Itoa(rt.Index),
		"summary":          orDefault(r.Summary, rt.Method+" "+rt.Path.String()),
		"description":      "Calls the WAMP procedure " + string(r.Procedure) + ".",
		"x-wamp-procedure": string(r.Procedure),
		"responses":        responses(r),
	}
	if params := parameters(rt); len(params) > 0 {
		op["parameters"] = params
	}
	if rt.UsesBody() {
		op["requestBody"] = map[string]any{
			"content": map[string]any{"application/json": map[string]any{"schema": schemaOr(r.BodySchema)}},
		}
	}
	return op
}

// parameters are the path parameters (required) and the query
// parameters the route's templates use (optional), as strings.
func parameters(rt *apiroute.Route) []any {
	var out []any
	str := map[string]any{"type": "string"}
	for _, name := range rt.Path.Params() {
		out = append(out, map[string]any{"name": name, "in": "path", "required": true, "schema": str})
	}
	seen := map[string]bool{}
	for _, ref := range rt.Refs() {
		if ref.Kind == apiroute.QueryParam && !seen[ref.Name] {
			seen[ref.Name] = true
			out = append(out, map[string]any{"name": ref.Name, "in": "query", "required": false, "schema": str})
		}
	}
	return out
}

// responses are the route's success answer and the error body.
func responses(r *APIRoute) map[string]any {
	status := r.Status
	if status == 0 {
		status = http.StatusOK
	}
	ok := map[string]any{"description": "The procedure's result."}
	switch {
	case r.Result == ResultResponse:
		ok["description"] = "The response the procedure returns ({code, headers, content}); its code may be another."
	case status != http.StatusNoContent:
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": schemaOr(r.ResultSchema)}}
	}
	errRef := map[string]any{"$ref": "#/components/schemas/Error"}
	return map[string]any{
		strconv.Itoa(status): ok,
		"default": map[string]any{
			"description": "A refusal or a WAMP error: its URI, args and kwargs.",
			"content":     map[string]any{"application/json": map[string]any{"schema": errRef}},
		},
	}
}

// schemaOr is a declared schema, or the schema of any JSON value.
func schemaOr(s map[string]any) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	return s
}
