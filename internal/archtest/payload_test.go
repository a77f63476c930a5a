package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// payloadReaders are the packages that receive messages from peers, whose
// payloads may be raw (kept as received, Args and Kwargs nil): they read
// a payload with wamp.Values or wamp.PayloadOf, and forward it with its Raw.
var payloadReaders = []string{"../router", "../transport", "../proxy"}

// argsReadsAllowed are the files that read an Args or Kwargs field that is
// not a received message's: a wamp.RequestError made in Go (the reason of
// a refused login).
var argsReadsAllowed = map[string]bool{
	"../router/handshake.go": true, // abortDetails: a RequestError
	"../proxy/entry.go":      true, // refusalMessage: a RequestError
}

// TestPayloadReadsGoThroughValues: in the packages that receive messages,
// no code reads a message's Args or Kwargs field directly, which would see
// a raw payload as empty; copying them into a message that also takes the
// Raw (forwarding) is the one exception.
func TestPayloadReadsGoThroughValues(t *testing.T) {
	for _, dir := range payloadReaders {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || argsReadsAllowed[path] {
				return err
			}
			checkPayloadReads(t, path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func checkPayloadReads(t *testing.T, path string) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	forwarded := map[ast.Expr]bool{} // Args and Kwargs values of literals that take a Raw
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if hasKey(n, "Raw") {
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						forwarded[kv.Value] = true
					}
				}
			}
		case *ast.SelectorExpr:
			if (n.Sel.Name == "Args" || n.Sel.Name == "Kwargs") && !forwarded[n] {
				t.Errorf("%s: reads .%s: use wamp.Values (or forward with the Raw)", fset.Position(n.Pos()), n.Sel.Name)
			}
		}
		return true
	})
}

func hasKey(l *ast.CompositeLit, key string) bool {
	for _, e := range l.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == key {
				return true
			}
		}
	}
	return false
}
