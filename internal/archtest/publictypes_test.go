package archtest

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoInternalTypeInPublicAPI: no exported function, method, field,
// type, variable or constant of a public package mentions a type of an
// internal package, however deep (pointers, slices, maps, channels,
// functions, struct fields, embedded fields, interface methods, type
// arguments and constraints; through the unexported types of the public
// packages that the API reaches). go doc would show such a type to users
// who cannot import it. The packages are read from the compiler's export
// data (go list -export), so the test sees what the compiler sees.
func TestNoInternalTypeInPublicAPI(t *testing.T) {
	var paths []string
	for _, p := range publicPackages(t) {
		paths = append(paths, p.path)
	}
	imp, err := exportImporter(paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range internalMentions(pkg, isPublic) {
			t.Error(f)
		}
	}
}

// exportImporter returns an importer that reads the export data go list
// -export gives for paths and their dependencies.
func exportImporter(paths []string) (types.Importer, error) {
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}|{{.Export}}"}, paths...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	exports := map[string]string{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		path, file, _ := strings.Cut(strings.TrimSpace(line), "|")
		exports[path] = file
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", lookup), nil
}

// internalMentions returns, for each exported object of pkg whose type
// mentions a type of an internal package, where and which. public says
// which packages' unexported types are walked into when the API reaches
// them (their exported ones too: a public type is checked where it is
// declared, and again wherever it is reached, which costs little).
func internalMentions(pkg *types.Package, public func(path string) bool) []string {
	w := &apiWalker{public: public, seen: map[*types.Named]bool{}}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		where := pkg.Name() + "." + name
		if tn, ok := obj.(*types.TypeName); ok && !tn.IsAlias() {
			if n, ok := tn.Type().(*types.Named); ok {
				w.named(where, n, true)
				continue
			}
		}
		w.walk(where, obj.Type())
	}
	return w.found
}

// apiWalker walks the types an API shows.
type apiWalker struct {
	public func(path string) bool
	seen   map[*types.Named]bool // named types walked into already
	found  []string
}

func (w *apiWalker) walk(where string, t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		w.walk(where, types.Unalias(t))
	case *types.Named:
		w.named(where, t, false)
	case *types.Pointer:
		w.walk(where, t.Elem())
	case *types.Slice:
		w.walk(where, t.Elem())
	case *types.Array:
		w.walk(where, t.Elem())
	case *types.Chan:
		w.walk(where, t.Elem())
	case *types.Map:
		w.walk(where, t.Key())
		w.walk(where, t.Elem())
	case *types.Signature:
		w.signature(where, t)
	case *types.Struct:
		w.fields(where, t)
	case *types.Interface:
		w.iface(where, t)
	case *types.TypeParam:
		w.walk(where, t.Constraint())
	case *types.Union:
		for i := range t.Len() {
			w.walk(where, t.Term(i).Type())
		}
	}
}

// named reports n when it is internal, else walks its type arguments and,
// for a type of a public package (or the declared one itself, decl), its
// structure and exported methods, once.
func (w *apiWalker) named(where string, n *types.Named, decl bool) {
	obj := n.Obj()
	if obj.Pkg() != nil && isInternalPath(obj.Pkg().Path()) {
		w.found = append(w.found, fmt.Sprintf("%s mentions %s.%s", where, obj.Pkg().Path(), obj.Name()))
		return
	}
	for i := range n.TypeArgs().Len() {
		w.walk(where, n.TypeArgs().At(i))
	}
	if w.seen[n.Origin()] || !(decl || obj.Pkg() != nil && w.public(obj.Pkg().Path())) {
		return
	}
	w.seen[n.Origin()] = true
	if !decl {
		where += " (" + obj.Name() + ")"
	}
	n = n.Origin()
	for i := range n.TypeParams().Len() {
		w.walk(where, n.TypeParams().At(i).Constraint())
	}
	w.walk(where, n.Underlying())
	for i := range n.NumMethods() {
		if m := n.Method(i); m.Exported() {
			w.walk(where+"."+m.Name(), m.Type())
		}
	}
}

func (w *apiWalker) signature(where string, s *types.Signature) {
	for i := range s.TypeParams().Len() {
		w.walk(where, s.TypeParams().At(i).Constraint())
	}
	for _, tuple := range []*types.Tuple{s.Params(), s.Results()} {
		for i := range tuple.Len() {
			w.walk(where, tuple.At(i).Type())
		}
	}
}

// fields walks the exported fields and every embedded one (whose
// exported fields and methods are promoted).
func (w *apiWalker) fields(where string, s *types.Struct) {
	for i := range s.NumFields() {
		if f := s.Field(i); f.Exported() || f.Embedded() {
			w.walk(where+"."+f.Name(), f.Type())
		}
	}
}

func (w *apiWalker) iface(where string, it *types.Interface) {
	for i := range it.NumExplicitMethods() {
		if m := it.ExplicitMethod(i); m.Exported() {
			w.walk(where+"."+m.Name(), m.Type())
		}
	}
	for i := range it.NumEmbeddeds() {
		w.walk(where, it.EmbeddedType(i))
	}
}

// TestInternalMentions proves the walker on fixtures: a public package
// "m/api" over an internal one "m/internal/x" (type T, interface I) and a
// public one "m/other", type-checked from source.
func TestInternalMentions(t *testing.T) {
	tests := []struct {
		src  string
		want []string // findings, sorted
	}{
		{`func F() *x.T { return nil }`, []string{"api.F mentions m/internal/x.T"}},
		{`func F(...[]map[string]chan x.T) {}`, []string{"api.F mentions m/internal/x.T"}},
		{`func F(func() (int, x.T)) {}`, []string{"api.F mentions m/internal/x.T"}},
		{`var V [2]map[x.T]int`, []string{"api.V mentions m/internal/x.T"}},
		{`type S struct{ F *x.T }`, []string{"api.S.F mentions m/internal/x.T"}},
		{`type S struct{ f *x.T }`, nil},
		{`type S struct{ *x.T }`, []string{"api.S.T mentions m/internal/x.T"}},
		{`type S struct{ hidden }; type hidden struct{ F x.T }`, []string{"api.S.hidden (hidden).F mentions m/internal/x.T"}},
		{`type I interface{ M() x.T }`, []string{"api.I.M mentions m/internal/x.T"}},
		{`type I interface{ x.I }`, []string{"api.I mentions m/internal/x.I"}},
		{`type I interface{ m() x.T }`, nil},
		{`type N int; func (N) M(x.T) {}`, []string{"api.N.M mentions m/internal/x.T"}},
		{`type N int; func (N) m(x.T) {}`, nil},
		{`func f(x.T) {}; func F() {}`, nil},
		{`type A = x.T`, []string{"api.A mentions m/internal/x.T"}},
		{`type G[P any] struct{ F P }; var V G[x.T]`, []string{"api.V mentions m/internal/x.T"}},
		{`func F[P interface{ *x.T }]() {}`, []string{"api.F mentions m/internal/x.T"}},
		{`func F() *hidden { return nil }; type hidden struct{ F x.T }`, []string{"api.F (hidden).F mentions m/internal/x.T"}},
		{`func F() other.Public { return other.Public{} }`, nil},
		{`func F() other.Public2 { return other.Public2{} }`, []string{"api.F (Public2).F mentions m/internal/x.T"}},
		{`type L struct{ Next *L; F x.T }`, []string{"api.L.F mentions m/internal/x.T"}},
		{`const C = 1; var V int; func F(string) error { return nil }`, nil},
	}
	for _, tt := range tests {
		pkg, err := checkFixture(`package api; import ("m/internal/x"; "m/other"); var _ x.T; var _ other.Public; ` + tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		got := internalMentions(pkg, func(path string) bool { return !isInternalPath(path) })
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.src, got, tt.want)
		}
	}
}

// checkFixture type-checks src as package m/api, with m/internal/x and
// m/other importable.
func checkFixture(src string) (*types.Package, error) {
	fset := token.NewFileSet()
	pkgs := map[string]*types.Package{}
	imp := fixtureImporter(pkgs)
	for _, dep := range []struct{ path, src string }{
		{"m/internal/x", `package x; type T struct{}; type I interface{ M() }`},
		{"m/other", `package other; import "m/internal/x"; type Public struct{ f x.T }; type Public2 struct{ F x.T }`},
	} {
		p, err := checkSource(fset, imp, dep.path, dep.src)
		if err != nil {
			return nil, err
		}
		pkgs[dep.path] = p
	}
	return checkSource(fset, imp, "m/api", src)
}

type fixtureImporter map[string]*types.Package

func (f fixtureImporter) Import(path string) (*types.Package, error) {
	if p, ok := f[path]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("no fixture package %s", path)
}

func checkSource(fset *token.FileSet, imp types.Importer, path, src string) (*types.Package, error) {
	f, err := parser.ParseFile(fset, path+".go", src, 0)
	if err != nil {
		return nil, err
	}
	return (&types.Config{Importer: imp}).Check(path, fset, []*ast.File{f}, nil)
}
