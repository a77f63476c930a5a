package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSyntaxErrors: a syntax error names the file, the line and (for
// JSON) the column, with an excerpt of the line and a caret under the
// column.
func TestSyntaxErrors(t *testing.T) {
	long := `{"version": 2, "workers": [` + strings.Repeat(`{"type": "guest", "executable": "x"}, `, 10) + `}]}`
	bad := strings.LastIndex(long, "}]") // near the end: the window ends with the line
	mid := `{"workers": [` + strings.Repeat(`1, `, 50) + `x` + strings.Repeat(`, 1`, 50) + `]}`
	x := strings.IndexByte(mid, 'x') // in the middle: cut at both ends
	tests := []struct {
		name    string
		file    string // its name sets the format
		doc     string
		err     string // FieldError.Error(), the file's directory left out
		excerpt string
	}{
		{"json trailing comma", "config.json", "{\n  \"version\": 2,\n  \"workers\": [],\n}\n",
			`config.json:4:1: invalid JSON: invalid character '}' looking for beginning of object key string`, "}\n^"},
		{"json missing comma", "config.json", "{\"version\": 2\n \"workers\": []}",
			`config.json:2:2: invalid JSON: invalid character '"' after object key:value pair`, " \"workers\": []}\n ^"},
		{"json tabs kept under the caret", "config.json", "{\n\t\"version\": 2,\n\t\"workers\": [tru]}",
			`config.json:3:17: invalid JSON: invalid character ']' in literal true (expecting 'e')`, "\t\"workers\": [tru]}\n\t               ^"},
		{"json wide characters", "config.json", `{"realm": "é日本", x}`,
			`config.json:1:18: invalid JSON: invalid character 'x' looking for beginning of object key string`, `{"realm": "é日本", x}` + "\n" + strings.Repeat(" ", 17) + "^"},
		{"json cut short", "config.json", "{\"version\": 2,\n  \"workers\": [\n\n",
			`config.json:2:15: invalid JSON: unexpected end of the file`, "  \"workers\": [\n              ^"},
		{"json empty", "config.json", " \n", `config: invalid JSON: the file is empty`, ""},
		{"json after the value", "config.json", "{\"version\": 2}\n  {}", `config.json:2:3: invalid JSON: data after the top-level value`, "  {}\n  ^"},
		{"json long line", "config.json", long, "config.json:1:" + strconv.Itoa(bad+1) + ": invalid JSON: invalid character '}' looking for beginning of value",
			"..." + long[len(long)-excerptWidth:] + "\n" + strings.Repeat(" ", 3+bad-(len(long)-excerptWidth)) + "^"},
		{"json long line, middle", "config.json", mid, "config.json:1:" + strconv.Itoa(x+1) + ": invalid JSON: invalid character 'x' looking for beginning of value",
			"..." + mid[x-66:x-66+excerptWidth] + "...\n" + strings.Repeat(" ", 3+66) + "^"},
		{"yaml mapping", "config.yaml", "version: 2\nworkers: : []\n", `config.yaml:2: invalid YAML: mapping values are not allowed in this context`, "workers: : []"},
		{"yaml duplicate key", "config.yml", "version: 2\nversion: 2\n", `config.yml:2: invalid YAML: mapping key "version" already defined at line 1`, "version: 2"},
		{"yaml without a line", "config.yaml", "a: *nope\n", `config: invalid YAML: unknown anchor 'nope' referenced`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, []byte(tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := Load(path)
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 {
				t.Fatalf("Load = %v, want one syntax error", err)
			}
			if got := strings.TrimPrefix(es[0].Error(), dir+string(filepath.Separator)); got != tt.err {
				t.Errorf("error\n%s\nwant\n%s", got, tt.err)
			}
			if es[0].Excerpt != tt.excerpt {
				t.Errorf("excerpt\n%s\nwant\n%s", es[0].Excerpt, tt.excerpt)
			}
		})
	}
}

// TestSyntaxErrorWithoutFile: Parse knows no file; the line and column
// are said in words.
func TestSyntaxErrorWithoutFile(t *testing.T) {
	_, _, err := Parse([]byte("{\n  \"version\": 2,\n}"), JSON)
	if want := "config: line 3, column 1: invalid JSON: invalid character '}' looking for beginning of object key string"; err == nil || err.Error() != want {
		t.Errorf("Parse = %v, want %s", err, want)
	}
}

// FuzzExcerpt: any position in any data gives at most two lines, the
// second a caret no wider than the first.
func FuzzExcerpt(f *testing.F) {
	f.Add([]byte("{\n\t\"a\": 1,}\n"), 2, 9)
	f.Add([]byte(strings.Repeat("x", 300)), 1, 250)
	f.Add([]byte("é\n"), 1, 7)
	f.Add([]byte(""), 1, 1)
	f.Fuzz(func(t *testing.T, data []byte, line, col int) {
		ex := excerpt(data, line, max(col, 0))
		lines := strings.Split(ex, "\n")
		if strings.Count(string(data), "\n")+1 < line && ex != "" {
			t.Fatalf("excerpt %q of line %d past the end", ex, line)
		}
		if len(lines) > 2 || len(lines) == 2 && !strings.HasSuffix(lines[1], "^") {
			t.Fatalf("excerpt %q", ex)
		}
		if len(lines) == 2 && len([]rune(lines[1])) > len([]rune(lines[0]))+1 {
			t.Fatalf("caret past the line: %q", ex)
		}
	})
}
