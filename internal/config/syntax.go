package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// excerptWidth bounds the line an excerpt shows: a longer one (minified
// JSON is one line) is cut to this many characters around the column,
// with "..." where it was cut.
const excerptWidth = 100

// jsonSyntaxError is the FieldError of err, the JSON decoder's error on
// data; at is where the decoder stopped (its input offset).
func jsonSyntaxError(data []byte, err error, at int64) *FieldError {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return syntaxAt(data, int(se.Offset)-1, "invalid JSON: "+se.Error()) // Offset is past the bad byte
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
		return &FieldError{Msg: "invalid JSON: the file is empty"}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return syntaxAt(data, len(bytes.TrimRight(data, " \t\r\n")), "invalid JSON: unexpected end of the file")
	}
	return syntaxAt(data, int(at), "invalid JSON: "+err.Error())
}

// syntaxAt is a syntax error msg at the byte offset off of data (clamped
// to data).
func syntaxAt(data []byte, off int, msg string) *FieldError {
	off = min(max(off, 0), len(data))
	line := bytes.Count(data[:off], []byte("\n")) + 1
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	col := utf8.RuneCount(data[start:off]) + 1
	return &FieldError{Msg: msg, Line: line, Column: col, Excerpt: excerpt(data, line, col)}
}

// yamlSyntaxError is the FieldError of err, the YAML decoder's error on
// data. The decoder says only the line ("yaml: line 3: ...", or
// "line 3: ..." for each of its unmarshal errors), and not always: then
// Line is 0.
func yamlSyntaxError(data []byte, err error) *FieldError {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0] // the first of the unmarshal errors
	}
	fe := &FieldError{Msg: "invalid YAML: " + msg}
	if line, rest, ok := yamlLine(msg); ok {
		fe.Msg, fe.Line = "invalid YAML: "+rest, line
		fe.Excerpt = excerpt(data, line, 0)
	}
	return fe
}

// yamlLine splits "line N: rest".
func yamlLine(msg string) (line int, rest string, ok bool) {
	n, rest, found := strings.Cut(strings.TrimSpace(msg), ": ")
	n, isLine := strings.CutPrefix(n, "line ")
	line, err := strconv.Atoi(n)
	if !found || !isLine || err != nil || line < 1 {
		return 0, "", false
	}
	return line, rest, true
}

// excerpt is line number line of data (from 1) and, when col (from 1) is
// not 0, a caret under that column: two lines, tabs kept so that the
// caret lines up. "" when data has no such line.
func excerpt(data []byte, line, col int) string {
	text, ok := lineOf(data, line)
	if !ok {
		return ""
	}
	runes := []rune(strings.TrimRight(text, "\r"))
	col = min(col, len(runes)+1)
	from, to := excerptWindow(len(runes), col)
	shown := string(runes[from:to])
	pad := runes[from:max(col-1, from)]
	if from > 0 {
		shown, pad = "..."+shown, append([]rune("..."), pad...)
	}
	if to < len(runes) {
		shown += "..."
	}
	if col == 0 {
		return shown
	}
	var caret strings.Builder
	for _, r := range pad {
		if r == '\t' {
			caret.WriteRune('\t')
		} else {
			caret.WriteRune(' ')
		}
	}
	caret.WriteRune('^')
	return shown + "\n" + caret.String()
}

// excerptWindow is the runes [from, to) of a line of n runes to show, at
// most excerptWidth of them, column col (from 1; 0 for none) within.
func excerptWindow(n, col int) (from, to int) {
	if n <= excerptWidth {
		return 0, n
	}
	from = max(col-1-excerptWidth*2/3, 0)
	to = min(from+excerptWidth, n)
	return max(to-excerptWidth, 0), to
}

// lineOf returns line number line (from 1) of data.
func lineOf(data []byte, line int) (string, bool) {
	if line < 1 {
		return "", false
	}
	for i := 1; ; i++ {
		l, rest, more := bytes.Cut(data, []byte("\n"))
		if i == line {
			return string(l), true
		}
		if !more {
			return "", false
		}
		data = rest
	}
}
