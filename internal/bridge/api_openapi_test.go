package bridge

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// openAPISchemaID is the $id of testdata/openapi/schema.json, the
// official OpenAPI 3.1 schema (see the README beside it).
const openAPISchemaID = "https://spec.openapis.org/oas/3.1/schema/2022-10-07"

// openAPISchema compiles the official schema.
func openAPISchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/openapi/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(openAPISchemaID, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(openAPISchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validOpenAPI reports whether doc is valid against the schema.
func validOpenAPI(t *testing.T, s *jsonschema.Schema, doc []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestAPIOpenAPIValid: the document of the test routes (path and query
// parameters, bodies, declared schemas, 201, 204 and response results)
// validates against the official OpenAPI 3.1 schema, and so does the
// document of a single root route; a document with its info removed, or
// an operation with an unknown member, does not (the check can fail).
func TestAPIOpenAPIValid(t *testing.T) {
	s := openAPISchema(t)
	routes := append([]APIRoute{{Method: "PATCH", Path: "/users/{id}", Procedure: "com.example.echo", Summary: "Rename a user",
		Args: []any{"{body.name}"}, BodySchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		ResultSchema: map[string]any{"type": "string"}}}, apiRoutes...)
	for _, o := range []APIOptions{
		{Routes: routes, Base: "/api", Title: "Users", Version: "2.1"},
		{Routes: routes, Security: []string{SecurityBearer, SecurityBasic, SecurityHeader + "X-API-Key"}, SecurityOptional: true},
		{Routes: []APIRoute{{Method: "GET", Path: "/", Procedure: "com.example.echo"}}},
	} {
		a := newAPI(t, newFake(t), o)
		w := serveAPI(a, "GET", "/openapi.json", "", nil)
		if w.Code != 200 || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("openapi.json: %d %v", w.Code, w.Header())
		}
		if err := validOpenAPI(t, s, w.Body.Bytes()); err != nil {
			t.Errorf("the document is not valid OpenAPI 3.1: %v\n%s", err, w.Body)
		}
	}
	a := newAPI(t, newFake(t), APIOptions{})
	for _, breakIt := range []func(d map[string]any){
		func(d map[string]any) { delete(d, "info") },
		func(d map[string]any) {
			d["paths"].(map[string]any)["/users/me"].(map[string]any)["get"].(map[string]any)["bogus"] = 1
		},
	} {
		var d map[string]any
		if err := json.Unmarshal(a.doc, &d); err != nil {
			t.Fatal(err)
		}
		breakIt(d)
		b, _ := json.Marshal(d)
		if validOpenAPI(t, s, b) == nil {
			t.Errorf("a broken document validates: %s", b)
		}
	}
}

// TestAPIOpenAPIContent: what the document says of the routes.
func TestAPIOpenAPIContent(t *testing.T) {
	a := newAPI(t, newFake(t), APIOptions{Base: "/api"})
	var d struct {
		OpenAPI string
		Servers []struct{ URL string }
		Paths   map[string]map[string]struct {
			Parameters []struct {
				Name, In string
				Required bool
			}
			RequestBody *struct{}
			Responses   map[string]struct {
				Content map[string]any
			}
			Procedure string `json:"x-wamp-procedure"`
		}
	}
	if err := json.Unmarshal(a.doc, &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenAPI != "3.1.0" || len(d.Servers) != 1 || d.Servers[0].URL != "/api" {
		t.Errorf("openapi %q servers %v", d.OpenAPI, d.Servers)
	}
	get := d.Paths["/users/{id}"]["get"]
	if len(get.Parameters) != 2 || get.Parameters[0].Name != "id" || get.Parameters[0].In != "path" || !get.Parameters[0].Required ||
		get.Parameters[1].Name != "fields" || get.Parameters[1].In != "query" || get.Parameters[1].Required {
		t.Errorf("GET /users/{id} parameters: %+v", get.Parameters)
	}
	if get.RequestBody != nil || get.Procedure != "com.example.echo" || get.Responses["200"].Content == nil || get.Responses["default"].Content == nil {
		t.Errorf("GET /users/{id}: %+v", get)
	}
	if post := d.Paths["/users"]["post"]; post.RequestBody == nil || post.Responses["201"].Content == nil {
		t.Errorf("POST /users: %+v", post)
	}
	if del := d.Paths["/users/{id}"]["delete"]; del.Responses["204"].Content != nil {
		t.Errorf("DELETE answers no content: %+v", del)
	}
	if page := d.Paths["/page/{id}"]["get"]; page.Responses["200"].Content != nil {
		t.Errorf("a response result has no declared content: %+v", page)
	}
}

// TestAPIOpenAPISecurity: the credentials of options.auth as security
// schemes, any one of them required (or none, when optional).
func TestAPIOpenAPISecurity(t *testing.T) {
	a := newAPI(t, newFake(t), APIOptions{Security: []string{SecurityBearer, SecurityHeader + "X-API-Key"}})
	var d struct {
		Security   []map[string][]string
		Components struct{ SecuritySchemes map[string]map[string]string }
	}
	if err := json.Unmarshal(a.doc, &d); err != nil {
		t.Fatal(err)
	}
	s := d.Components.SecuritySchemes
	if len(d.Security) != 2 || s["bearer"]["scheme"] != "bearer" || s["apiKeyHeader"]["name"] != "X-API-Key" || s["apiKeyHeader"]["in"] != "header" {
		t.Errorf("security %v, schemes %v", d.Security, s)
	}
	if _, err := NewAPI(newFake(t), APIOptions{Routes: apiRoutes, Security: []string{"digest"}}); err == nil {
		t.Error("unknown credentials accepted")
	}
}

// HEAD of the document answers its head without the body (it has no side
// effects, unlike a route's call); its preflight lists HEAD.
func TestAPIDocumentHead(t *testing.T) {
	a := newAPI(t, newFake(t), APIOptions{})
	get := serveAPI(a, "GET", "/openapi.json", "", nil)
	head := serveAPI(a, "HEAD", "/openapi.json", "", nil)
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Length") != strconv.Itoa(get.Body.Len()) ||
		head.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("HEAD: %d %v %q", head.Code, head.Header(), head.Body)
	}
	if w := serveAPI(a, "OPTIONS", "/openapi.json", "", nil); w.Header().Get("Allow") != "GET,HEAD,OPTIONS" {
		t.Errorf("preflight Allow %q", w.Header().Get("Allow"))
	}
}
