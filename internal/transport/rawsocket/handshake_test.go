package rawsocket

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/junction-wamp/junction/internal/logtest"
	"github.com/junction-wamp/junction/wamp/codec"
)

func TestHandshake(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		send   []byte
		answer []byte // nil: closed without an answer
	}{
		{"msgpack accepted", Options{}, []byte{magic, 0xF2, 0, 0}, []byte{magic, 0xB2, 0, 0}},
		{"json, small client", Options{MaxMessageSize: 600}, []byte{magic, 0x01, 0, 0}, []byte{magic, 0x11, 0, 0}},
		{"16 MiB server", Options{MaxMessageSize: 1 << 30}, []byte{magic, 0x03, 0, 0}, []byte{magic, 0xF3, 0, 0}},
		{"serializer 0", Options{}, []byte{magic, 0xF0, 0, 0}, []byte{magic, 0x10, 0, 0}},
		{"unknown serializer", Options{}, []byte{magic, 0xF9, 0, 0}, []byte{magic, 0x10, 0, 0}},
		{"serializer not allowed", Options{Serializers: []string{"json"}}, []byte{magic, 0xF3, 0, 0}, []byte{magic, 0x10, 0, 0}},
		{"reserved octet 3", Options{}, []byte{magic, 0xF2, 1, 0}, []byte{magic, 0x30, 0, 0}},
		{"reserved octet 4", Options{}, []byte{magic, 0xF2, 0, 0x80}, []byte{magic, 0x30, 0, 0}},
		{"bad magic", Options{}, []byte{'G', 'E', 'T', ' '}, nil},
		{"timeout", Options{HandshakeTimeout: 20 * time.Millisecond}, nil, nil},
		{"partial then timeout", Options{HandshakeTimeout: 20 * time.Millisecond}, []byte{magic, 0xF2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Attacher = &echoAttacher{Errs: make(chan error, 1)}
			var log logtest.Log
			tt.opts.Logger = log.Logger(slog.LevelDebug)
			r := dialRaw(t, serve(t, tt.opts))
			r.write(tt.send...)
			var got []byte
			var err error
			if tt.answer != nil && tt.answer[1]&0x0F != 0 {
				var b [4]byte // accepted: the session stays open
				b, err = r.read4()
				got = b[:]
			} else {
				got, err = io.ReadAll(r.br) // refused: answer, then closed
			}
			if !bytes.Equal(got, tt.answer) {
				t.Fatalf("answer %x (%v), want %x", got, err, tt.answer)
			}
			refused := tt.answer == nil || tt.answer[1]&0x0F == 0
			lines := log.Lines(t, "rawsocket: handshake failed")
			if refused != (len(lines) == 1) || refused && (lines[0]["level"] != "DEBUG" || lines[0]["err"] == "" || lines[0]["remote"] == "") {
				t.Errorf("refused %v, logged %v", refused, lines)
			}
		})
	}
}

func TestDialRefused(t *testing.T) {
	addr := serve(t, Options{Attacher: newAttacher(), Serializers: []string{"json"}})
	_, err := Dial(t.Context(), "tcp", addr, DialOptions{Serializer: "cbor"})
	var he *HandshakeError
	if !errors.As(err, &he) || he.Code != ErrCodeSerializerUnsupported {
		t.Fatalf("Dial = %v, want HandshakeError 1", err)
	}
	if _, err := Dial(t.Context(), "tcp", addr, DialOptions{Serializer: "xml"}); err == nil {
		t.Fatal("Dial with an unknown serializer succeeded")
	}
}

func TestDialBadAnswer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.ReadFull(c, make([]byte, 4))
		c.Write([]byte("HTTP/1.1 400\r\n"))
	}()
	if _, err := Dial(t.Context(), "tcp", l.Addr().String(), DialOptions{}); !errors.Is(err, errBadMagic) {
		t.Fatalf("Dial = %v, want bad magic", err)
	}
}

func TestLenExp(t *testing.T) {
	tests := []struct {
		size int
		exp  byte
	}{{1, 0}, {512, 0}, {513, 1}, {1 << 20, 11}, {1<<20 + 1, 12}, {1 << 24, 15}, {1 << 30, 15}}
	for _, tt := range tests {
		if got := lenExp(tt.size); got != tt.exp {
			t.Errorf("lenExp(%d) = %d, want %d", tt.size, got, tt.exp)
		}
	}
}

func FuzzRawSocketHandshake(f *testing.F) {
	f.Add([]byte{magic, 0xF2, 0, 0})
	f.Add([]byte{magic, 0x01, 0, 0})
	f.Add([]byte{magic, 0xF0, 0, 0})
	f.Add([]byte{magic, 0x12, 1, 0})
	f.Add([]byte("GET "))
	f.Fuzz(func(t *testing.T, in []byte) {
		var b [4]byte
		copy(b[:], in)
		c, maxLen, err := serverHello(b, func(codec.Codec) bool { return true })
		var he *HandshakeError
		switch {
		case err == nil:
			if c == nil || maxLen < 1<<9 || maxLen > 1<<24 {
				t.Fatalf("accepted %x with codec %v, maxLen %d", b, c, maxLen)
			}
		case errors.As(err, &he):
			if he.Code == 0 || he.Code > 4 {
				t.Fatalf("refusal code %d", he.Code)
			}
		case !errors.Is(err, errBadMagic):
			t.Fatalf("unexpected error %v", err)
		}
		if _, err := readAnswer(bytes.NewReader(in), 2); err == nil && (len(in) < 4 || in[0] != magic) {
			t.Fatalf("readAnswer accepted %x", in)
		}
	})
}
