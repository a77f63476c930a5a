package codec

import "unicode/utf8"

// reader walks the bytes of a binary format, keeping the first error. Every
// length is checked against what remains before anything is allocated.
// A reader is used by one goroutine.
type reader struct {
	name string
	b    []byte
	i    int
	err  error
	payloadState
	rawPayload
}

func (r *reader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = decodeError(r.name, "offset %d: "+format, append([]any{r.i}, a...)...)
	}
}

func (r *reader) remaining() int { return len(r.b) - r.i }

// next returns n bytes, or nil after recording an error if fewer remain.
func (r *reader) next(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(r.remaining()) {
		r.fail("length %d past the end of the input", n)
		return nil
	}
	p := r.b[r.i : r.i+int(n)]
	r.i += int(n)
	return p
}

func (r *reader) byte() byte {
	p := r.next(1)
	if p == nil {
		return 0
	}
	return p[0]
}

// text returns n bytes as a string, checked to be UTF-8.
func (r *reader) text(n uint64) string {
	p := r.next(n)
	if !utf8.Valid(p) {
		r.fail("string is not valid UTF-8")
		return ""
	}
	if r.skip {
		return ""
	}
	return string(p)
}

// count checks a container's element count: each element needs at least
// min bytes of the input.
func (r *reader) count(n uint64, min int) int {
	if r.err == nil && n > uint64(r.remaining()/min) {
		r.fail("count %d past the end of the input", n)
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

// depth checks the level of a container about to be read.
func (r *reader) depth(d int) bool {
	if d > maxDepth {
		r.fail("nesting deeper than 1000")
	}
	return r.err == nil
}

// done checks that a message array was read and nothing follows it.
func (r *reader) done(v any) ([]any, error) {
	if r.err == nil && r.i != len(r.b) {
		r.fail("trailing data")
	}
	if r.err != nil {
		return nil, r.err
	}
	l, ok := v.([]any)
	if !ok {
		return nil, decodeError(r.name, "message is not an array")
	}
	return l, nil
}
