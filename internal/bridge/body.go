package bridge

import (
	"bytes"
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
	if limit >= 0 {
		body = http.MaxBytesReader(w, r.Body, limit)
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + 1)
	}
	if _, err := buf.ReadFrom(body); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, refuse(http.StatusRequestEntityTooLarge, textTooLongUnknown, limit)
		}
		if r.Context().Err() != nil || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.Join(errClientGone, err)
		}
		return nil, &Error{Status: http.StatusBadRequest, Text: "Request body could not be read.", Cause: err}
	}
	return buf.Bytes(), nil
}
