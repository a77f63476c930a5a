package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// TestPublicDocs: every exported name of a public package (function,
// method of an exported type, type, variable, constant) has a doc
// comment, and every public package a package comment. A constant or
// variable may share its group's comment, or take a line comment, as go
// doc shows them; struct fields and interface methods are not held to it.
func TestPublicDocs(t *testing.T) {
	for _, p := range publicPackages(t) {
		fset := token.NewFileSet()
		pkgDoc := false
		for _, name := range p.files {
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			pkgDoc = pkgDoc || f.Doc != nil
			for _, missing := range undocumented(f) {
				t.Errorf("%s: %s has no doc comment", fset.Position(missing.Pos()), missing.Name)
			}
		}
		if !pkgDoc {
			t.Errorf("%s has no package comment", p.path)
		}
	}
}

// undocumented returns the exported names of f declared without a doc
// comment.
func undocumented(f *ast.File) []*ast.Ident {
	var missing []*ast.Ident
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && exportedRecv(d) && d.Doc == nil {
				missing = append(missing, d.Name)
			}
		case *ast.GenDecl:
			missing = append(missing, undocumentedSpecs(d)...)
		}
	}
	return missing
}

// exportedRecv says whether a function is not a method, or a method of an
// exported type (an unexported type's methods are not shown).
func exportedRecv(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return true
		}
	}
}

// undocumentedSpecs returns the exported names of a type, var or const
// declaration without a comment: a type needs its own (or the
// declaration's, when it declares one type); a value its own, a line
// comment, or its group's.
func undocumentedSpecs(d *ast.GenDecl) []*ast.Ident {
	var missing []*ast.Ident
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			documented := s.Doc != nil || (d.Doc != nil && len(d.Specs) == 1)
			if s.Name.IsExported() && !documented {
				missing = append(missing, s.Name)
			}
		case *ast.ValueSpec:
			if s.Doc != nil || s.Comment != nil || d.Doc != nil {
				continue
			}
			for _, n := range s.Names {
				if n.IsExported() {
					missing = append(missing, n)
				}
			}
		}
	}
	return missing
}

// TestUndocumented proves the check on a fixture: each exported name
// without a comment is reported, and nothing else.
func TestUndocumented(t *testing.T) {
	const src = `package p

// Documented is.
func Documented() {}
func Bare() {}
func unexported() {}

// T is.
type T struct{}
type U int
type hidden int

func (T) Method() {}
// Method2 is.
func (*T) Method2() {}
func (hidden) Method() {}
func (U) private() {}

type (
	// V is.
	V int
	W int
)

// Group comment.
const (
	A = 1
	B = 2
)

const (
	C = 1 // line comment
	D = 2
	e = 3
)

var E, f = 1, 2

// G is.
var G = 1
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range undocumented(f) {
		got = append(got, id.Name)
	}
	want := []string{"Bare", "U", "Method", "W", "D", "E"}
	if len(got) != len(want) {
		t.Fatalf("undocumented %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("undocumented %v, want %v", got, want)
		}
	}
}
