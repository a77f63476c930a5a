package idlereader

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

func TestReadsEverythingInOrder(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 2000) // several buffers' worth
	tests := []struct {
		name    string
		pending []byte
		src     io.Reader
	}{
		{"plain", nil, bytes.NewReader(data[10:])},
		{"one byte at a time", nil, iotest.OneByteReader(bytes.NewReader(data[10:]))},
		{"half reads", nil, iotest.HalfReader(bytes.NewReader(data[10:]))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.src, data[:10])
			got, err := io.ReadAll(iotest.OneByteReader(r))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes, err %v; want %d bytes in order", len(got), err, len(data))
			}
			if r.br != nil {
				t.Fatal("buffer still held after the data ended")
			}
		})
	}
}

// TestIdleHoldsNoBuffer: once a burst is consumed the reader gives its buffer
// back, and New copies pending so the caller's buffer can be reused.
func TestIdleHoldsNoBuffer(t *testing.T) {
	pending := []byte("ab")
	r := New(bytes.NewReader([]byte("cdef")), pending)
	pending[0] = 'X'
	buf := make([]byte, 2)
	if n, _ := r.Read(buf); string(buf[:n]) != "ab" {
		t.Fatalf("pending read %q", buf[:n])
	}
	io.ReadFull(r, make([]byte, 4))
	if r.br != nil {
		t.Fatal("buffer held while idle")
	}
	if n, err := r.Read(nil); n != 0 || err != nil {
		t.Fatalf("empty read = %d, %v", n, err)
	}
}

func TestErrorPassesThrough(t *testing.T) {
	r := New(iotest.ErrReader(io.ErrUnexpectedEOF), nil)
	if _, err := r.Read(make([]byte, 8)); err != io.ErrUnexpectedEOF {
		t.Fatalf("err = %v", err)
	}
}
