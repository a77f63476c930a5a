package web

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/textproto"
)

// chunkDecoder decodes a chunked body as it arrives, in pieces, the way
// net/http's chunked reader reads one (the same errors for the same
// bytes): each chunk-size line ends in CRLF (no bare LF, no other CR),
// is shorter than 4 KiB, and has up to 16 hex digits, then optional
// blanks and a ";" extension (ignored); each chunk's data ends in CRLF;
// no more than 16 KiB of framing beyond what the data justifies; the
// trailer section after the last chunk ends within 4 KiB and is read by
// textproto.
type chunkDecoder struct {
	state   chunkState
	left    uint64 // data bytes left in the chunk
	excess  int64
	trailer http.Header // the trailer fields, once done
}

type chunkState uint8

const (
	chunkSize    chunkState = iota // at a chunk-size line
	chunkData                      // in a chunk's data
	chunkDataEnd                   // at the CRLF after a chunk's data
	chunkTrailer                   // at the trailer section
	chunkDone
)

// Limits of chunkDecoder: net/http's.
const (
	maxChunkLine    = 4096
	maxChunkExcess  = 16 << 10
	maxChunkTrailer = upstreamBufSize
)

var errMalformedChunk = errors.New("malformed chunked encoding")

// next decodes the next piece of in: it returns how many bytes of in it
// consumed, and the body's bytes among them (a part of in). It consumes
// nothing when in holds too little to go on; done says the body and its
// trailer section are complete (the trailer fields in d.trailer).
func (d *chunkDecoder) next(in []byte) (n int, data []byte, err error) {
	switch d.state {
	case chunkSize:
		return d.sizeLine(in)
	case chunkData:
		k := min(uint64(len(in)), d.left)
		d.left -= k
		if d.left == 0 {
			d.state = chunkDataEnd
		}
		return int(k), in[:k], nil
	case chunkDataEnd:
		if len(in) < 2 {
			return 0, nil, nil
		}
		if in[0] != '\r' || in[1] != '\n' {
			return 0, nil, errMalformedChunk
		}
		d.state = chunkSize
		return 2, nil, nil
	case chunkTrailer:
		return d.trailerSection(in)
	}
	return 0, nil, nil
}

// done reports whether the body and its trailer section are complete.
func (d *chunkDecoder) done() bool { return d.state == chunkDone }

// sizeLine reads a chunk-size line.
func (d *chunkDecoder) sizeLine(in []byte) (int, []byte, error) {
	i := bytes.IndexByte(in, '\n')
	if i < 0 {
		if len(in) >= maxChunkLine+2 {
			return 0, nil, errors.New("header line too long")
		}
		return 0, nil, nil
	}
	line := in[:i+1]
	if cr := bytes.IndexByte(line, '\r'); cr < 0 {
		return 0, nil, errors.New("chunked line ends with bare LF")
	} else if cr != len(line)-2 {
		return 0, nil, errors.New("invalid CR in chunked line")
	}
	p := line[:len(line)-2]
	if len(p) >= maxChunkLine {
		return 0, nil, errors.New("header line too long")
	}
	d.excess += int64(len(p)) + 2
	p = bytes.TrimRight(p, " \t")
	p, _, _ = bytes.Cut(p, []byte(";"))
	size, err := parseChunkSize(p)
	if err != nil {
		return 0, nil, err
	}
	d.excess = max(d.excess-16-2*int64(min(size, 1<<40)), 0)
	if d.excess > maxChunkExcess {
		return 0, nil, errors.New("chunked encoding contains too much non-data")
	}
	d.left = size
	d.state = chunkData
	if size == 0 {
		d.state = chunkTrailer
	}
	return len(line), nil, nil
}

// parseChunkSize parses up to 16 hex digits.
func parseChunkSize(v []byte) (uint64, error) {
	if len(v) == 0 {
		return 0, errors.New("empty hex number for chunk length")
	}
	var n uint64
	for i, b := range v {
		switch {
		case '0' <= b && b <= '9':
			b -= '0'
		case 'a' <= b && b <= 'f':
			b = b - 'a' + 10
		case 'A' <= b && b <= 'F':
			b = b - 'A' + 10
		default:
			return 0, errors.New("invalid byte in chunk length")
		}
		if i == 16 {
			return 0, errors.New("http chunk length too large")
		}
		n = n<<4 | uint64(b)
	}
	return n, nil
}

// trailerSection reads what follows the last chunk: CRLF alone, or
// trailer fields up to a blank line.
func (d *chunkDecoder) trailerSection(in []byte) (int, []byte, error) {
	if len(in) < 2 {
		return 0, nil, nil
	}
	if in[0] == '\r' && in[1] == '\n' {
		d.state = chunkDone
		return 2, nil, nil
	}
	window := in[:min(len(in), maxChunkTrailer)]
	end := bytes.Index(window, []byte("\r\n\r\n"))
	if end < 0 {
		if len(in) >= maxChunkTrailer {
			return 0, nil, errors.New("http: suspiciously long trailer after chunked body")
		}
		return 0, nil, nil
	}
	hdr, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(in[:end+4]))).ReadMIMEHeader()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	d.trailer = http.Header(hdr)
	d.state = chunkDone
	return end + 4, nil, nil
}
