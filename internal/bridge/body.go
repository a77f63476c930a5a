package bridge

import (
	"errors"
	"io"
	"net/http"
)

// readBody reads the body, refusing with 413 a Content-Length over limit
// before reading and a longer body (chunked) while reading. limit < 0 means
// none.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if limit >= 0 && r.ContentLength > limit {
		return nil, refuse(http.StatusRequestEntityTooLarge, textTooLong, r.ContentLength, limit)
	}
	body := r.Body
	if limit >= 0 && r.ContentLength < 0 {
		// A declared length is already within limit, and the server reads
		// no more than it; only a body of unknown length needs the cap.
		body = http.MaxBytesReader(w, r.Body, limit)
	}
	b, err := readAll(body, r.ContentLength)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, refuse(http.StatusRequestEntityTooLarge, textTooLongUnknown, limit)
		}
		if r.Context().Err() != nil || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.Join(errClientGone, err)
		}
		return nil, &Error{Status: http.StatusBadRequest, Text: "Request body could not be read.", Cause: err}
	}
	return b, nil
}

// maxPrealloc bounds the buffer allocated for a declared length before
// any of the body has arrived.
const maxPrealloc = 64 << 10

// readAll reads body to its end into one buffer sized for the declared
// length (< 0: unknown), so that a body of that length needs one
// allocation.
func readAll(body io.Reader, length int64) ([]byte, error) {
	size := 512
	if length >= 0 && length < maxPrealloc {
		size = int(length) + 1 // + 1: room to read the EOF into
	}
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
