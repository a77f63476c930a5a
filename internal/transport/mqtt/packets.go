package mqtt

// connect is a CONNECT packet (3.1).
type connect struct {
	protocol     string
	level        byte
	cleanSession bool
	keepAlive    uint16 // seconds; 0 turns the keep alive off
	clientID     string
	will         *will // nil without the will flag
	username     *string
	password     []byte // nil without the password flag
}

// will is a CONNECT's last will.
type will struct {
	topic   string
	message []byte
	qos     byte
	retain  bool
}

// parseConnect parses a CONNECT's body. A protocol name or level we do not
// speak is not an error here: the caller answers it with a CONNACK.
func parseConnect(p packet) (connect, error) {
	if p.flags != 0 {
		return connect{}, malformed("CONNECT flags %#x", p.flags)
	}
	f := fields{b: p.body}
	c := connect{protocol: f.string(), level: f.byte()}
	flags := f.byte()
	c.keepAlive = f.uint16()
	if f.err != nil {
		return c, f.err
	}
	if c.protocol != "MQTT" || c.level != 4 {
		return c, nil
	}
	if err := checkConnectFlags(flags); err != nil {
		return c, err
	}
	c.cleanSession = flags&0x02 != 0
	c.clientID = f.string()
	if flags&0x04 != 0 {
		c.will = &will{topic: f.string(), message: f.binary(), qos: flags >> 3 & 3, retain: flags&0x20 != 0}
	}
	if flags&0x80 != 0 {
		u := f.string()
		c.username = &u
	}
	if flags&0x40 != 0 {
		c.password = append([]byte{}, f.binary()...)
	}
	return c, f.end()
}

// checkConnectFlags applies 3.1.2.3 - 3.1.2.9.
func checkConnectFlags(flags byte) error {
	switch {
	case flags&0x01 != 0:
		return malformed("CONNECT reserved flag set")
	case flags&0x04 == 0 && flags&0x38 != 0:
		return malformed("CONNECT will QoS or retain without a will")
	case flags>>3&3 == 3:
		return malformed("CONNECT will QoS 3")
	case flags&0x80 == 0 && flags&0x40 != 0:
		return malformed("CONNECT password without a user name")
	}
	return nil
}

// publish is a PUBLISH packet (3.3).
type publish struct {
	topic    string
	qos      byte
	retain   bool
	packetID uint16 // QoS > 0 only
	payload  []byte
}

// parsePublish parses a PUBLISH; QoS 3 is malformed, QoS 2 is parsed (the
// caller refuses it).
func parsePublish(p packet) (publish, error) {
	m := publish{qos: p.flags >> 1 & 3, retain: p.flags&1 != 0}
	if m.qos == 3 {
		return m, malformed("PUBLISH QoS 3")
	}
	f := fields{b: p.body}
	m.topic = f.string()
	if m.qos > 0 {
		m.packetID = f.uint16()
	}
	m.payload = f.rest()
	if f.err == nil && m.topic == "" {
		return m, malformed("PUBLISH to an empty topic")
	}
	return m, f.err
}

// subscription is one topic filter of a SUBSCRIBE.
type subscription struct {
	filter string
	qos    byte
}

// subscribe is a SUBSCRIBE packet (3.8).
type subscribe struct {
	packetID uint16
	topics   []subscription
}

func parseSubscribe(p packet) (subscribe, error) {
	if p.flags != 2 {
		return subscribe{}, malformed("SUBSCRIBE flags %#x", p.flags)
	}
	f := fields{b: p.body}
	s := subscribe{packetID: f.uint16()}
	for f.err == nil && len(f.b) > 0 {
		t := subscription{filter: f.string(), qos: f.byte()}
		if f.err == nil && t.qos > 2 {
			return s, malformed("SUBSCRIBE QoS %d", t.qos)
		}
		s.topics = append(s.topics, t)
	}
	if f.err == nil && len(s.topics) == 0 {
		return s, malformed("SUBSCRIBE without a topic filter")
	}
	return s, f.err
}

// unsubscribe is an UNSUBSCRIBE packet (3.10).
type unsubscribe struct {
	packetID uint16
	filters  []string
}

func parseUnsubscribe(p packet) (unsubscribe, error) {
	if p.flags != 2 {
		return unsubscribe{}, malformed("UNSUBSCRIBE flags %#x", p.flags)
	}
	f := fields{b: p.body}
	u := unsubscribe{packetID: f.uint16()}
	for f.err == nil && len(f.b) > 0 {
		u.filters = append(u.filters, f.string())
	}
	if f.err == nil && len(u.filters) == 0 {
		return u, malformed("UNSUBSCRIBE without a topic filter")
	}
	return u, f.err
}

// parsePacketID parses the body of a PUBACK, PUBREC, PUBREL or PUBCOMP.
func parsePacketID(p packet) (uint16, error) {
	f := fields{b: p.body}
	id := f.uint16()
	return id, f.end()
}

// Packets the server writes.

func connackPacket(code byte) []byte { return []byte{typeConnack << 4, 2, 0, code} }

func pubackPacket(id uint16) []byte { return []byte{typePuback << 4, 2, byte(id >> 8), byte(id)} }

func unsubackPacket(id uint16) []byte {
	return []byte{typeUnsuback << 4, 2, byte(id >> 8), byte(id)}
}

func pingrespPacket() []byte { return []byte{typePingresp << 4, 0} }

func subackPacket(id uint16, codes []byte) []byte {
	b := appendLength([]byte{typeSuback << 4}, 2+len(codes))
	return append(append(b, byte(id>>8), byte(id)), codes...)
}

// publishPacket is a QoS 0 PUBLISH, as the server delivers every message.
func publishPacket(topic string, payload []byte, retain bool) []byte {
	h := byte(typePublish << 4)
	if retain {
		h |= 1
	}
	n := 2 + len(topic) + len(payload)
	b := make([]byte, 0, 5+n)
	b = appendLength(append(b, h), n)
	return append(appendString(b, topic), payload...)
}

// CONNACK return codes (3.2.2.3).
const (
	connAccepted          = 0
	connRefusedProtocol   = 1
	connRefusedIdentifier = 2
	connRefusedNotAuth    = 5
)
