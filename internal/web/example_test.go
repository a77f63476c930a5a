package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/junction-wamp/junction/internal/web"
)

// Building a tree: one line per service; a "path" service is Sub.
func ExampleTree() {
	tree := web.NewTree()
	info, _ := web.JSON(map[string]string{"status": "ok"}, web.JSONOptions{})
	old, _ := web.Redirect("https://example.com/", 0)
	_ = tree.Mount("health", info)
	nested, _ := tree.Sub("legacy")
	_ = nested.Mount("home", old)

	for _, target := range []string{"/health", "/legacy/home/x", "/missing"} {
		rec := httptest.NewRecorder()
		tree.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		fmt.Printf("%s %d %q\n", target, rec.Code, rec.Header().Get("Location"))
	}
	// Output:
	// /health 200 ""
	// /legacy/home/x 302 "https://example.com/"
	// /missing 404 ""
}
