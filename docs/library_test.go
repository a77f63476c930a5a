package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// library is the library page; publicAPI the module that runs its
// programs (test/publicapi, with a go.mod of its own: make test runs it).
const (
	library   = "library.md"
	publicAPI = "../test/publicapi"
)

// TestLibraryProgram: the library page shows the program that
// test/publicapi/library runs as an example, byte for byte.
func TestLibraryProgram(t *testing.T) {
	showsFile(t, library, filepath.Join(publicAPI, "library", "main.go"))
}

// TestReadmeProgram: the README shows the program that
// test/publicapi/readme runs as an example, byte for byte.
func TestReadmeProgram(t *testing.T) {
	showsFile(t, readme, filepath.Join(publicAPI, "readme", "main.go"))
}

// showsFile checks that page holds file in a Go code block.
func showsFile(t *testing.T, page, file string) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readPage(t, page), "```go\n"+string(src)+"```\n") {
		t.Errorf("%s does not show %s as it is", page, file)
	}
}

// TestLibrarySnippets: the page's snippets are parts of the root
// package's examples, which go vet and go test compile (and run, for one
// with an Output comment): "run a node from a file" is ExampleRun's body,
// the lasting backend session the lines of ExampleNode_Connect from its
// Connect to its Register's check, the reload ExampleNode_Reload's loop.
func TestLibrarySnippets(t *testing.T) {
	for _, tt := range []struct{ example, from, to string }{
		{"ExampleRun", "", ""},
		{"ExampleNode_Connect", "backend, err := node.Connect", "\n\n"},
		{"ExampleNode_Reload", "for range hup {", "\n}\n"},
	} {
		t.Run(tt.example, func(t *testing.T) {
			snippet := exampleBody(t, tt.example)
			if tt.from != "" {
				_, rest, ok := strings.Cut(snippet, tt.from)
				part, _, ok2 := strings.Cut(rest, tt.to)
				if !ok || !ok2 {
					t.Fatalf("%s has no lines from %q to %q", tt.example, tt.from, tt.to)
				}
				snippet = tt.from + part + strings.TrimRight(tt.to, "\n") + "\n" // to ends the snippet: its last line is kept
			}
			if !strings.Contains(readPage(t, library), "```go\n"+snippet+"```\n") {
				t.Errorf("%s does not show %s's lines:\n%s", library, tt.example, snippet)
			}
		})
	}
}

// exampleBody returns the body of the root package's example function
// name, unindented once.
func exampleBody(t *testing.T, name string) string {
	t.Helper()
	const file = "../example_test.go"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(f.Decls, func(d ast.Decl) bool {
		fn, ok := d.(*ast.FuncDecl)
		return ok && fn.Name.Name == name
	})
	if i < 0 {
		t.Fatalf("%s has no %s", file, name)
	}
	body := f.Decls[i].(*ast.FuncDecl).Body
	code := string(src[fset.Position(body.Lbrace).Offset+2 : fset.Position(body.Rbrace).Offset])
	var snippet strings.Builder
	for line := range strings.Lines(code) {
		snippet.WriteString(strings.TrimPrefix(line, "\t"))
	}
	return snippet.String()
}

// TestLibraryStableNames: the page's list of what is stable names every
// exported name of package junction.
func TestLibraryStableNames(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "..", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, stable, _ := strings.Cut(readPage(t, library), "\nStable:\n")
	stable, _, _ = strings.Cut(stable, "\nNot stable yet:\n")
	for _, f := range pkgs["junction"].Files {
		for _, name := range exportedNames(f) {
			if !strings.Contains(stable, "`"+name+"`") {
				t.Errorf("%s does not list junction.%s as stable", library, name)
			}
		}
	}
}

// exportedNames returns the exported top-level names of f, methods aside
// (their type is listed with them).
func exportedNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return slices.DeleteFunc(names, func(n string) bool { return !ast.IsExported(n) })
}
