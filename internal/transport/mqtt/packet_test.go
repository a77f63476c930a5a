package mqtt

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// connectBytes is a CONNECT of client ID "c" with the given flags and
// payload after the client ID.
func connectBytes(flags byte, rest ...byte) []byte {
	body := append([]byte{0, 4, 'M', 'Q', 'T', 'T', 4, flags, 0, 60, 0, 1, 'c'}, rest...)
	return append(appendLength([]byte{0x10}, len(body)), body...)
}

func read(t *testing.T, b []byte, max int) (packet, error) {
	t.Helper()
	return readPacket(bufio.NewReader(bytes.NewReader(b)), max)
}

func TestReadPacketLength(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		max  int
		want error
	}{
		{"zero", []byte{0xc0, 0}, 10, nil},
		{"two octets", append([]byte{0x30, 0x80, 0x01}, make([]byte, 128)...), 200, nil},
		{"over max", append([]byte{0x30, 0x80, 0x01}, make([]byte, 128)...), 127, ErrTooBig},
		{"five octets", []byte{0x30, 0xff, 0xff, 0xff, 0xff, 0x01}, 1 << 30, ErrMalformed},
		{"truncated length", []byte{0x30, 0x80}, 10, io.ErrUnexpectedEOF},
		{"truncated body", []byte{0x30, 5, 1}, 10, io.ErrUnexpectedEOF},
		{"empty", nil, 10, io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(t, tc.in, tc.max)
			if !errors.Is(err, tc.want) && err != tc.want {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestAppendLengthRoundTrip(t *testing.T) {
	for _, n := range []int{0, 127, 128, 16383, 16384, 2097151, 2097152, 268435455} {
		b := appendLength(nil, n)
		got, err := readLength(bytes.NewReader(b))
		if err != nil || got != n {
			t.Errorf("%d: got %d, %v (bytes %x)", n, got, err, b)
		}
	}
}

func TestParseConnect(t *testing.T) {
	user := []byte{0, 1, 'u'}
	pass := []byte{0, 2, 'p', 'w'}
	willTopic := []byte{0, 3, 'a', '/', 'b'}
	willMsg := []byte{0, 1, 'x'}
	for _, tc := range []struct {
		name  string
		in    []byte
		err   error
		check func(connect) bool
	}{
		{"clean", connectBytes(0x02), nil, func(c connect) bool { return c.cleanSession && c.clientID == "c" && c.keepAlive == 60 }},
		{"user and password", connectBytes(0xc2, append(user, pass...)...), nil,
			func(c connect) bool { return *c.username == "u" && string(c.password) == "pw" }},
		{"will", connectBytes(0x2e, append(willTopic, willMsg...)...), nil,
			func(c connect) bool {
				return c.will.topic == "a/b" && c.will.qos == 1 && c.will.retain && string(c.will.message) == "x"
			}},
		{"reserved flag", connectBytes(0x03), ErrMalformed, nil},
		{"password without user", connectBytes(0x42, pass...), ErrMalformed, nil},
		{"will qos without will", connectBytes(0x0a), ErrMalformed, nil},
		{"will qos 3", connectBytes(0x1e, append(willTopic, willMsg...)...), ErrMalformed, nil},
		{"left over", connectBytes(0x02, 9), ErrMalformed, nil},
		{"truncated user", connectBytes(0x82, 0, 5, 'u'), ErrMalformed, nil},
		{"bad utf8 client", append([]byte{0x10, 13}, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 0, 0, 1, 0xff), ErrMalformed, nil},
		{"nul in client", append([]byte{0x10, 13}, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 0, 0, 1, 0), ErrMalformed, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := read(t, tc.in, 1000)
			if err != nil {
				t.Fatal(err)
			}
			c, err := parseConnect(p)
			if !errors.Is(err, tc.err) && err != tc.err {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if tc.check != nil && !tc.check(c) {
				t.Fatalf("parsed %+v", c)
			}
		})
	}
}

func TestParseConnectOtherLevelIsNotAnError(t *testing.T) {
	b := []byte{0x10, 10, 0, 4, 'M', 'Q', 'T', 'T', 3, 2, 0, 60}
	p, _ := read(t, b, 100)
	c, err := parseConnect(p)
	if err != nil || c.level != 3 {
		t.Fatalf("%+v, %v", c, err)
	}
}

func TestParsePublish(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want publish
		err  error
	}{
		{"qos0", []byte{0x30, 5, 0, 1, 'a', 'h', 'i'}, publish{topic: "a", payload: []byte("hi")}, nil},
		{"qos1 retain", []byte{0x33, 6, 0, 1, 'a', 0, 7, 'x'}, publish{topic: "a", qos: 1, retain: true, packetID: 7, payload: []byte("x")}, nil},
		{"qos2 parsed", []byte{0x34, 5, 0, 1, 'a', 0, 7}, publish{topic: "a", qos: 2, packetID: 7, payload: []byte{}}, nil},
		{"qos3", []byte{0x36, 5, 0, 1, 'a', 0, 7}, publish{}, ErrMalformed},
		{"empty topic", []byte{0x30, 2, 0, 0}, publish{}, ErrMalformed},
		{"no packet id", []byte{0x32, 3, 0, 1, 'a'}, publish{}, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := read(t, tc.in, 100)
			got, err := parsePublish(p)
			if !errors.Is(err, tc.err) && err != tc.err {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if err == nil && (got.topic != tc.want.topic || got.qos != tc.want.qos || got.retain != tc.want.retain ||
				got.packetID != tc.want.packetID || !bytes.Equal(got.payload, tc.want.payload)) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseSubscribeAndUnsubscribe(t *testing.T) {
	p, _ := read(t, []byte{0x82, 6, 0, 9, 0, 1, 'a', 0}, 100)
	s, err := parseSubscribe(p)
	if err != nil || s.packetID != 9 || len(s.topics) != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	p, _ = read(t, []byte{0x82, 11, 0, 9, 0, 1, 'a', 0, 0, 2, 'b', '#', 1}, 100)
	if s, err = parseSubscribe(p); err != nil || len(s.topics) != 2 || s.topics[1].filter != "b#" || s.topics[1].qos != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	for _, bad := range [][]byte{
		{0x80, 6, 0, 9, 0, 1, 'a', 0}, // flags not 2
		{0x82, 2, 0, 9},               // no filter
		{0x82, 6, 0, 9, 0, 1, 'a', 3}, // QoS 3
		{0x82, 5, 0, 9, 0, 1, 'a'},    // no QoS
		{0xa2, 2, 0, 9},               // UNSUBSCRIBE without a filter
		{0xa0, 5, 0, 9, 0, 1, 'a'},    // UNSUBSCRIBE flags not 2
	} {
		p, _ := read(t, bad, 100)
		var err error
		if p.typ == typeSubscribe {
			_, err = parseSubscribe(p)
		} else {
			_, err = parseUnsubscribe(p)
		}
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%x: err %v", bad, err)
		}
	}
	p, _ = read(t, []byte{0xa2, 5, 0, 9, 0, 1, 'a'}, 100)
	if u, err := parseUnsubscribe(p); err != nil || u.packetID != 9 || u.filters[0] != "a" {
		t.Fatalf("%+v %v", u, err)
	}
}

func TestWrittenPackets(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  []byte
		want []byte
	}{
		{"connack", connackPacket(5), []byte{0x20, 2, 0, 5}},
		{"puback", pubackPacket(0x102), []byte{0x40, 2, 1, 2}},
		{"suback", subackPacket(3, []byte{0, 0x80}), []byte{0x90, 4, 0, 3, 0, 0x80}},
		{"unsuback", unsubackPacket(3), []byte{0xb0, 2, 0, 3}},
		{"pingresp", pingrespPacket(), []byte{0xd0, 0}},
		{"publish retained", publishPacket("a/b", []byte("x"), true), []byte{0x31, 6, 0, 3, 'a', '/', 'b', 'x'}},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s: %x, want %x", tc.name, tc.got, tc.want)
		}
	}
	long := publishPacket("t", make([]byte, 200), false)
	p, err := read(t, long, 1000)
	if err != nil || p.typ != typePublish || len(p.body) != 203 {
		t.Fatalf("long publish: %v %d", err, len(p.body))
	}
}

// FuzzReadPacket: no input panics or hangs the decoder, and what parses
// re-reads the same.
func FuzzReadPacket(f *testing.F) {
	for _, seed := range [][]byte{
		connectBytes(0x02), connectBytes(0xc2, 0, 1, 'u', 0, 2, 'p', 'w'), connectBytes(0x2e, 0, 1, 'a', 0, 1, 'x'),
		{0x30, 5, 0, 1, 'a', 'h', 'i'}, {0x32, 6, 0, 1, 'a', 0, 7, 'x'}, {0x82, 6, 0, 9, 0, 1, 'a', 0},
		{0xa2, 5, 0, 9, 0, 1, 'a'}, {0xc0, 0}, {0xe0, 0}, {0x40, 2, 0, 1}, {0x30, 0xff, 0xff, 0xff, 0x7f},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		for {
			p, err := readPacket(r, 1<<16)
			if err != nil {
				return
			}
			parseAny(p)
		}
	})
}

func parseAny(p packet) {
	switch p.typ {
	case typeConnect:
		parseConnect(p)
	case typePublish:
		if m, err := parsePublish(p); err == nil {
			topicToURI(m.topic)
		}
	case typeSubscribe:
		if s, err := parseSubscribe(p); err == nil {
			for _, t := range s.topics {
				filterToURI(t.filter)
			}
		}
	case typeUnsubscribe:
		parseUnsubscribe(p)
	default:
		parsePacketID(p)
	}
}
