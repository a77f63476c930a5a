package rest

import (
	"mime"
	"strings"
	"unicode/utf8"
)

// latin1Names are the charset labels decoded as ISO-8859-1 (US-ASCII is
// a subset of it).
var latin1Names = map[string]bool{
	"iso-8859-1": true, "iso8859-1": true, "iso_8859-1": true, "latin1": true, "latin-1": true,
	"l1": true, "cp819": true, "ibm819": true, "iso-ir-100": true, "us-ascii": true, "ascii": true,
}

// decodeContent decodes a response body by the charset of contentType:
// ISO-8859-1 byte by byte, anything else as UTF-8 with invalid sequences
// replaced by U+FFFD.
func decodeContent(b []byte, contentType string) string {
	if latin1Names[charsetOf(contentType)] {
		return decodeLatin1(b)
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// charsetOf is the lower-cased charset parameter of a Content-Type, or "".
func charsetOf(contentType string) string {
	if contentType == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(params["charset"]))
}

func decodeLatin1(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}
