package bridge

import (
	"errors"
	"io"
	"net/http"
	"os"
)

// readBody reads the body into one buffer whose capacity is reserved from
// buf. It refuses with 413 a Content-Length over limit (or over the whole
// of buf) before reading, and a longer body (chunked) while reading; with
// 503 a body that does not fit in buf now; with 408 a body that stalled
// for the web server's body timeout. limit < 0 means none. The caller
// releases held once done with the body; on error nothing is held.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, buf *BodyBuffer) (body []byte, held int64, err error) {
	if limit >= 0 && r.ContentLength > limit {
		return nil, 0, refuse(http.StatusRequestEntityTooLarge, textTooLong, r.ContentLength, limit)
	}
	rd := &bodyReader{buf: buf, ceiling: r.ContentLength, declared: r.ContentLength >= 0}
	// A declared length is reserved at once.
	if err := buf.hold(&rd.held, r.ContentLength, textTooLong); err != nil {
		return nil, 0, err
	}
	src := r.Body
	if r.ContentLength < 0 {
		rd.ceiling = ceilingOf(limit, buf.Limit())
		if limit >= 0 {
			// A declared length is already within limit, and the server
			// reads no more than it; only a body of unknown length needs
			// the cap.
			src = http.MaxBytesReader(w, r.Body, limit)
		}
	}
	b, err := rd.readAll(src)
	if err != nil {
		buf.release(rd.held)
		return nil, 0, readError(r, err, limit)
	}
	return b, rd.held, nil
}

// ceilingOf is the most bytes a body of unknown length may have: the
// smaller of the body limit and the buffer's bound (< 0: none).
func ceilingOf(limit, bound int64) int64 {
	switch {
	case limit < 0:
		return bound
	case bound < 0:
		return limit
	}
	return min(limit, bound)
}

// readError maps a failed read to its answer. The timeout comes first:
// net/http cancels the request's context on any read error.
func readError(r *http.Request, err error, limit int64) error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return refuse(http.StatusRequestEntityTooLarge, textTooLongUnknown, limit)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &Error{Status: http.StatusRequestTimeout, Text: textBodyTimeout, Cause: err}
	}
	if r.Context().Err() != nil || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.Join(errClientGone, err)
	}
	return &Error{Status: http.StatusBadRequest, Text: "Request body could not be read.", Cause: err}
}

// maxPrealloc bounds the buffer allocated for a declared length before
// any of the body has arrived; it grows as the body does.
const maxPrealloc = 64 << 10

// bodyReader reads a body into one buffer, reserving its capacity from buf
// before each allocation. Used by one request.
type bodyReader struct {
	buf      *BodyBuffer
	ceiling  int64 // the most bytes the body may have; < 0: no bound
	declared bool  // the ceiling is the declared length, which the server never reads past
	held     int64 // the capacity reserved
}

// readAll reads body to its end. A buffer sized for a declared length
// below maxPrealloc is allocated once.
func (rd *bodyReader) readAll(body io.Reader) ([]byte, error) {
	var b []byte
	for {
		if len(b) == cap(b) {
			if int64(len(b)) == rd.ceiling {
				if rd.declared {
					return b, nil
				}
				return b, rd.atEnd(body)
			}
			var err error
			if b, err = rd.grow(b); err != nil {
				return nil, err
			}
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// grow returns b in a buffer twice as large (the first one: sized for the
// body, up to maxPrealloc), never past the ceiling, whose capacity is
// reserved: 503 when it does not fit now (the ceiling is within the
// buffer's bound, so it always could).
func (rd *bodyReader) grow(b []byte) ([]byte, error) {
	size := int64(2 * cap(b))
	if size == 0 {
		size = 512
		if rd.ceiling >= 0 {
			size = min(rd.ceiling, maxPrealloc)
		}
	}
	if rd.ceiling >= 0 {
		size = min(size, rd.ceiling)
	}
	if err := rd.buf.hold(&rd.held, size, textTooLong); err != nil {
		return nil, err
	}
	nb := make([]byte, len(b), size)
	copy(nb, b)
	return nb, nil
}

// atEnd checks that a body of unknown length that has filled its ceiling
// ends there: a longer one overflows the bound (413).
func (rd *bodyReader) atEnd(body io.Reader) error {
	var one [1]byte
	for range 100 {
		n, err := body.Read(one[:])
		switch {
		case n > 0:
			return refuse(http.StatusRequestEntityTooLarge, textTooLongUnknown, rd.ceiling)
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
	return io.ErrNoProgress
}
