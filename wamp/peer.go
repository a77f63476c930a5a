package wamp

import (
	"crypto/x509"
	"errors"
	"strconv"
	"sync"
)

// Errors returned by Peer implementations.
var (
	// ErrClosed: the peer's connection is closed.
	ErrClosed = errors.New("wamp: peer closed")
	// ErrSlowConsumer: the peer's outbound queue passed its limits, so the
	// peer was closed rather than let it block others or lose messages.
	ErrSlowConsumer = errors.New("wamp: slow consumer")
	// ErrMessageTooLong: the message is longer than the other side
	// accepts (the maximum message length it announced, as a RawSocket
	// client does in its handshake), so it was not sent; the peer stays
	// open.
	ErrMessageTooLong = errors.New("wamp: message too long")
	// ErrUnencodable: the message holds a value the peer's serializer
	// cannot carry (a channel or a function, NaN or an infinity in JSON,
	// a string that is not UTF-8 in JSON or CBOR, a map with other than
	// string keys), so it was not sent; the peer stays open. Only peers
	// that encode give it: an in-process peer carries Go values as they
	// are.
	ErrUnencodable = errors.New("wamp: cannot encode")
)

// EncodeError is the error of a Send that could not encode its message
// for the other side's serializer, before writing anything: errors.Is
// matches it to ErrUnencodable, and Err (the serializer's reason) is
// reachable through Unwrap.
type EncodeError struct {
	Type MessageType // the message's type
	Err  error       // why it cannot be encoded
}

// Error says what could not be encoded, and why.
func (e *EncodeError) Error() string {
	return "wamp: cannot encode " + e.Type.String() + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *EncodeError) Unwrap() error { return e.Err }

// Is reports whether target is ErrUnencodable.
func (e *EncodeError) Is(target error) bool { return target == ErrUnencodable }

// MessageTooLongError is the error of a Send that refused a message
// longer than the other side accepts, before writing anything: errors.Is
// matches it to ErrMessageTooLong.
type MessageTooLongError struct {
	Type   MessageType // the message's type
	Length int         // its encoded length, in bytes
	Limit  int         // the longest message the other side accepts
}

// Error says what was refused.
func (e *MessageTooLongError) Error() string {
	return "wamp: message too long: " + e.Type.String() + " of " + strconv.Itoa(e.Length) +
		" bytes, the peer accepts " + strconv.Itoa(e.Limit)
}

// Is reports whether target is ErrMessageTooLong.
func (e *MessageTooLongError) Is(target error) bool { return target == ErrMessageTooLong }

// SlowConsumerError is the error of the Send that closed a peer as a slow
// consumer, when the peer knows what its queue held: errors.Is matches it
// to ErrSlowConsumer.
type SlowConsumerError struct {
	QueuedMessages int // messages waiting to be written
	QueuedBytes    int // their encoded size
}

// Error says how much was queued.
func (e *SlowConsumerError) Error() string {
	return "wamp: slow consumer: " + strconv.Itoa(e.QueuedMessages) + " messages, " +
		strconv.Itoa(e.QueuedBytes) + " bytes queued"
}

// Is reports whether target is ErrSlowConsumer.
func (e *SlowConsumerError) Is(target error) bool { return target == ErrSlowConsumer }

// Peer is one end of a WAMP connection: a WebSocket or RawSocket connection,
// or one side of an in-memory pair for embedded sessions.
type Peer interface {
	// Send queues msg for writing and returns without waiting for the
	// network. When the outbound queue is past its limits (messages or
	// bytes) the peer is closed as a slow consumer and Send returns
	// ErrSlowConsumer; after Close it returns ErrClosed. A message that
	// cannot be encoded gives an error wrapping ErrUnencodable (a
	// *EncodeError) and leaves the peer open; so does one longer than the
	// other side accepts, when the peer knows its limit: an error wrapping
	// ErrMessageTooLong. Nothing is written then.
	// Safe for concurrent use; messages from one goroutine keep their order.
	Send(msg Message) error

	// Recv waits for the next message. It returns an error (io.EOF for an
	// orderly close) once the connection is closed or broken, or a message
	// that does not decode: an error wrapping ErrProtocol. Only one
	// goroutine calls Recv.
	Recv() (Message, error)

	// Close flushes what is queued, within a bounded time, and closes the
	// connection. Safe to call more than once and concurrently.
	Close() error

	// Info describes the connection, for logs and the meta API.
	Info() PeerInfo
}

// ErrIdle is what Parker.RecvOrIdle returns for a connection that has been
// idle for a while.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
var ErrIdle = errors.New("wamp: peer idle")

// Parker is an optional capability of a Peer on the router's side (the
// WebSocket and RawSocket servers' peers on Linux, over plain sockets):
// its reader can wait for the next message without a goroutine, so that
// an idle session holds no goroutine stack. The router then reads with
// RecvOrIdle and, on ErrIdle, parks the peer and lets its goroutine end;
// another goroutine resumes the session once a message arrives.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Parker interface {
	// RecvOrIdle is Recv, except that it returns ErrIdle, between two
	// messages, once the connection has been idle for a while (and only
	// when the peer can park).
	RecvOrIdle() (Message, error)

	// Park arranges for resume to run on a goroutine of its own once a
	// message may have arrived, the connection broke, or the peer is
	// closing; until then nobody reads. It may be called between any two
	// messages (the router parks a session as soon as it has joined,
	// unless more of its client's data waits). It reports false when the
	// peer cannot park (it is closing, or the client's data waits in its
	// buffer): read on then.
	Park(resume func()) bool

	// Buffered reports whether bytes of the next message were already
	// read and wait in the peer's buffer: the client sent a burst. Only
	// the goroutine that reads calls it.
	Buffered() bool

	// Ended tells the transport, once the router has closed the peer,
	// that a session whose peer parked is over. Attach returns when the
	// peer first parks (the session goes on, on the goroutines that Park
	// starts), so the transport does then what it does when Attach
	// returns. Called once, by the goroutine that ended the session.
	Ended()
}

// NowSender is an optional capability of a Peer (the WebSocket and
// RawSocket peers): SendNow is Send for a sender that has nothing more to
// send soon, such as the router after the last message a client's burst
// brought. The peer may then write msg at once on the caller's goroutine,
// with a write that never waits, rather than hand it to a writer
// goroutine: no hand-off, but no batching with what follows either, so a
// sender in a burst (a fan-out, a client's many calls) uses Send.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type NowSender interface {
	SendNow(msg Message) error
}

// PeerInfo describes a peer's connection.
type PeerInfo struct {
	Transport  string // "websocket", "rawsocket" or "local"
	Serializer string // "json", "msgpack", "cbor", "ubjson"; "" for local
	RemoteAddr string // host:port or unix socket path; "" for local
	TLS        bool
	// HTTPHeaders are a WebSocket's upgrade request headers, names in
	// lower case and repeated ones joined with ", ", when its transport
	// keeps them (for a dynamic authenticator or authorizer); nil
	// otherwise. Not to be modified.
	HTTPHeaders map[string]string
	// ClientCert is the certificate a TLS client presented (verified
	// against the listener's CAs), nil when none. Not to be modified.
	ClientCert *x509.Certificate
	// CBTID is the client's tracking cookie, when its WebSocket transport
	// tracks clients by cookie; "" otherwise.
	CBTID string
}

// Serializer identifies an encoding, so that a Shared message keeps one
// encoding per serializer. Batched variants share their base's encoding.
type Serializer int

// Serializers.
const (
	SerializerJSON Serializer = iota
	SerializerMsgpack
	SerializerCBOR
	SerializerUBJSON
	numSerializers
)

// Shared wraps a message that the router sends unchanged to many peers (an
// EVENT to every subscriber of a subscription), so that it is encoded once
// per serializer and the bytes are shared. Receivers must not modify it.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
type Shared struct {
	Message
	enc [numSerializers]sharedEncoding
}

type sharedEncoding struct {
	once sync.Once
	b    []byte
	err  error
}

// NewShared wraps m for sending to many peers.
//
// Lower level, for Junction's transports and router: not covered by
// the stability note of the package documentation.
func NewShared(m Message) *Shared { return &Shared{Message: m} }

// Encoded returns the encoding of the message for serializer s, calling
// encode the first time only. The returned bytes must not be modified.
func (m *Shared) Encoded(s Serializer, encode func(Message) ([]byte, error)) ([]byte, error) {
	e := &m.enc[s]
	e.once.Do(func() { e.b, e.err = encode(m.Message) })
	return e.b, e.err
}

// Unwrap returns the message inside a Shared, or m itself.
func Unwrap(m Message) Message {
	if s, ok := m.(*Shared); ok {
		return s.Message
	}
	return m
}
