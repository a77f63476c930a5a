package mqtt

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/junction-wamp/junction/wamp"
	"github.com/junction-wamp/junction/wamp/codec"
)

// Mapping says how MQTT payloads under a WAMP URI prefix are translated.
// Passthrough, or exactly one of Serializer (native) and Encoder/Decoder
// (dynamic), is set.
type Mapping struct {
	// Passthrough: the MQTT payload passes through WAMP untouched, as a
	// passthru payload (wamp.NewPassthru) with the option enc_algo
	// "mqtt", as Crossbar.io sends it; an event on the topic is sent to
	// MQTT subscribers only if it carries a passthru payload.
	Passthrough bool
	// Serializer, for a native mapping: the payload is a dict {args,
	// kwargs, exclude, eligible, ...} in this format ("json", "msgpack",
	// "cbor" or "ubjson").
	Serializer string
	// Encoder and Decoder, for a dynamic mapping: procedures called as
	// encoder(mqtt_topic, wamp_topic, args, kwargs) -> payload and
	// decoder(wamp_topic, mqtt_topic, payload) -> publish options.
	Encoder, Decoder wamp.URI
	// Realm is the realm the encoder and decoder are called on (passed to
	// Options.Call); "" is the transport's realm.
	Realm string
}

func (m Mapping) dynamic() bool { return !m.Passthrough && m.Serializer == "" }

// errUnmapped: no payload_mapping prefix matches the topic.
var errUnmapped = errors.New("mqtt: no payload_mapping for the topic")

// mapper finds the mapping of a URI, by longest prefix.
type mapper struct {
	prefixes []string // longest first
	maps     map[string]Mapping
	codecs   map[string]codec.Codec
	call     CallFunc
}

// CallFunc calls procedure on realm with args and returns the first
// positional result; the dynamic mappings call their encoders and
// decoders through it.
type CallFunc func(ctx context.Context, realm string, procedure wamp.URI, args wamp.List) (any, error)

// optionKeys are the keys of a native payload and of a decoder's result
// taken into the WAMP PUBLISH (args and kwargs apart).
var optionKeys = []string{wamp.OptExclude, wamp.OptExcludeAuthID, wamp.OptExcludeAuthRole,
	wamp.OptEligible, wamp.OptEligibleAuthID, wamp.OptEligibleAuthRole}

func newMapper(maps map[string]Mapping, call CallFunc) (*mapper, error) {
	m := &mapper{maps: maps, codecs: map[string]codec.Codec{}, call: call}
	for prefix, pm := range maps {
		m.prefixes = append(m.prefixes, prefix)
		if err := m.check(prefix, pm); err != nil {
			return nil, err
		}
	}
	sortLongestFirst(m.prefixes)
	return m, nil
}

func (m *mapper) check(prefix string, pm Mapping) error {
	if pm.Passthrough {
		if pm.Serializer != "" || pm.Encoder != "" || pm.Decoder != "" {
			return fmt.Errorf("mqtt: payload_mapping %q: a passthrough mapping takes no serializer, encoder or decoder", prefix)
		}
		return nil
	}
	if pm.dynamic() {
		if pm.Encoder == "" || pm.Decoder == "" || m.call == nil {
			return fmt.Errorf("mqtt: payload_mapping %q: a dynamic mapping needs an encoder, a decoder and Options.Call", prefix)
		}
		return nil
	}
	for _, c := range []codec.Codec{codec.JSON, codec.Msgpack, codec.CBOR, codec.UBJSON} {
		if c.Name() == pm.Serializer {
			m.codecs[prefix] = c
			return nil
		}
	}
	return fmt.Errorf("mqtt: payload_mapping %q: unknown serializer %q", prefix, pm.Serializer)
}

func sortLongestFirst(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && len(s[j]) > len(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// lookup returns the prefix whose mapping applies to u.
func (m *mapper) lookup(u wamp.URI) (string, error) {
	for _, p := range m.prefixes {
		if strings.HasPrefix(string(u), p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %q", errUnmapped, u)
}

// needsCalls reports whether some mapping is dynamic.
func (m *mapper) needsCalls() bool {
	for _, pm := range m.maps {
		if pm.dynamic() {
			return true
		}
	}
	return false
}

// decode turns an MQTT payload on topic (WAMP URI u) into the payload
// and options of a WAMP PUBLISH.
func (m *mapper) decode(ctx context.Context, realm string, u wamp.URI, topic string, payload []byte) (wamp.Payload, wamp.Dict, error) {
	p, err := m.lookup(u)
	if err != nil {
		return wamp.Payload{}, nil, err
	}
	var v any
	pm := m.maps[p]
	switch {
	case pm.Passthrough:
		b := append([]byte{}, payload...) // not nil: an empty payload passes too
		return wamp.Payload{Raw: wamp.NewPassthru(b)}, wamp.Dict{wamp.OptEncAlgo: encAlgoMQTT}, nil
	case pm.dynamic():
		v, err = m.call(ctx, orRealm(pm.Realm, realm), pm.Decoder, wamp.List{string(u), topic, payload})
	default:
		v, err = codec.DecodeValue(m.codecs[p], payload)
	}
	if err != nil {
		return wamp.Payload{}, nil, fmt.Errorf("mqtt: payload on %q: %w", topic, err)
	}
	args, kwargs, opts, err := publishParts(v)
	return wamp.Payload{Args: args, Kwargs: kwargs}, opts, err
}

// encAlgoMQTT is the enc_algo of an MQTT payload passed through.
const encAlgoMQTT = "mqtt"

// errNoPassthru: an event without a passthru payload on a passthrough
// topic.
var errNoPassthru = errors.New("mqtt: the topic's payload type is passthrough, and the event carries no passthru payload (enc_algo) to pass on")

// publishParts takes args, kwargs and the publish options from a decoded
// payload or a decoder's result.
func publishParts(v any) (wamp.List, wamp.Object, wamp.Dict, error) {
	d, ok := wamp.AsDict(v)
	if !ok && v != nil {
		return nil, nil, nil, fmt.Errorf("mqtt: payload is a %T, want a dict", v)
	}
	args, aok := d["args"].(wamp.List)
	kwargs, kok := asObject(d["kwargs"])
	if !aok && d["args"] != nil || !kok && d["kwargs"] != nil {
		return nil, nil, nil, errors.New("mqtt: payload args must be a list and kwargs a dict")
	}
	opts := wamp.Dict{}
	for _, k := range optionKeys {
		if x, ok := d[k]; ok {
			opts[k] = x
		}
	}
	return args, kwargs, opts, nil
}

// encode turns an event on u (MQTT topic) with payload pl into an MQTT
// payload.
func (m *mapper) encode(ctx context.Context, realm string, u wamp.URI, topic string, pl wamp.Payload) ([]byte, error) {
	p, err := m.lookup(u)
	if err != nil {
		return nil, err
	}
	pm := m.maps[p]
	if pm.Passthrough {
		b := pl.Passthru()
		if b == nil {
			return nil, errNoPassthru
		}
		return b, nil
	}
	args, kwargs, err := pl.Values()
	if err != nil {
		return nil, err
	}
	if !pm.dynamic() {
		return codec.EncodeValue(m.codecs[p], nativePayload(args, kwargs))
	}
	v, err := m.call(ctx, orRealm(pm.Realm, realm), pm.Encoder, wamp.List{topic, string(u), orList(args), orDict(kwargs)})
	if err != nil {
		return nil, fmt.Errorf("mqtt: encoder for %q: %w", u, err)
	}
	switch b := v.(type) {
	case []byte:
		return b, nil
	case string:
		return []byte(b), nil
	}
	return nil, fmt.Errorf("mqtt: encoder for %q returned a %T, want bytes or a string", u, v)
}

func nativePayload(args wamp.List, kwargs wamp.Object) wamp.Object {
	o := wamp.Object{}
	if args != nil {
		o = append(o, wamp.Field{Key: "args", Value: args})
	}
	if kwargs != nil {
		o = append(o, wamp.Field{Key: "kwargs", Value: kwargs})
	}
	return o
}

// asObject reads a payload dictionary: an Object as decoded, or a Dict
// (keys then sorted).
func asObject(v any) (wamp.Object, bool) {
	switch o := v.(type) {
	case wamp.Object:
		return o, true
	case wamp.Dict:
		return wamp.ObjectOf(o), true
	}
	return nil, false
}

func orRealm(r, def string) string {
	if r == "" {
		return def
	}
	return r
}

func orList(l wamp.List) any {
	if l == nil {
		return nil
	}
	return l
}

func orDict(d wamp.Object) any {
	if d == nil {
		return nil
	}
	return d
}
