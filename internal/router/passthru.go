package router

import (
	"strings"

	"github.com/junction-wamp/junction/wamp"
)

// Payload passthru mode (payload transparency): a payload the router
// forwards untouched (end-to-end encrypted, an MQTT message), with the
// options of PUBLISH, CALL, YIELD and ERROR that describe it, which it
// copies into the details of EVENT, INVOCATION, RESULT and ERROR. Two
// forms: Crossbar.io's and autobahn's, the options enc_algo, enc_key and
// enc_serializer with the payload a binary in place of Arguments
// (wamp.NewPassthru); and the WAMP specification's, the options
// ppt_scheme, ppt_serializer, ppt_cipher and ppt_keyid with Arguments a
// list of one binary and no ArgumentsKw.
var (
	encKeys = [...]string{wamp.OptEncAlgo, wamp.OptEncKey, wamp.OptEncSerializer}
	pptKeys = [...]string{wamp.OptPPTScheme, wamp.OptPPTSerializer, wamp.OptPPTCipher, wamp.OptPPTKeyID}

	// The names autobahn accepts: these, or a custom one ("x_...").
	encAlgos       = []string{"cryptobox", "mqtt", "xbr"}
	encSerializers = []string{"json", "msgpack", "cbor", "ubjson", "opaque", "flatbuffers"}
)

// passthruForm is the form of a message's payload passthru, if any.
type passthruForm uint8

const (
	noPassthru  passthruForm = iota
	encPassthru              // Crossbar's and autobahn's: enc_algo
	pptPassthru              // the specification's: ppt_scheme
)

// checkPassthru checks the passthru options of a PUBLISH, CALL, YIELD or
// ERROR (opts) against its payload p and returns the form they make. An
// invalid combination is a wamp.error.invalid_argument: passthru options
// without a passthru payload or the reverse, the two forms mixed, a value
// of the wrong type or, for enc_algo and enc_serializer, an unknown name.
func checkPassthru(opts wamp.Dict, p wamp.Payload) (passthruForm, error) {
	if len(opts) == 0 && p.Passthru() == nil {
		return noPassthru, nil
	}
	enc, ppt := hasOption(opts, encKeys[:]), hasOption(opts, pptKeys[:])
	switch {
	case enc && ppt:
		return noPassthru, wamp.Errorf(wamp.ErrInvalidArgument, "payload passthru: options enc_* and ppt_* are two forms, not to be mixed")
	case enc || p.Passthru() != nil:
		return encPassthru, checkEnc(opts, p)
	case ppt:
		return pptPassthru, checkPPT(opts, p)
	}
	return noPassthru, nil
}

// hasOption reports whether opts holds one of keys (not null).
func hasOption(opts wamp.Dict, keys []string) bool {
	for _, k := range keys {
		if _, ok := option(opts, k); ok {
			return true
		}
	}
	return false
}

// checkEnc checks Crossbar's form: a binary payload with enc_algo, as
// autobahn checks it.
func checkEnc(opts wamp.Dict, p wamp.Payload) error {
	if p.Passthru() == nil {
		return wamp.Errorf(wamp.ErrInvalidArgument, "payload passthru: option enc_algo needs the payload as a binary in place of Arguments")
	}
	algo, err := optString(opts, wamp.OptEncAlgo, "")
	if err != nil {
		return err
	}
	if !encName(algo, encAlgos) {
		return wamp.Errorf(wamp.ErrInvalidArgument, `payload passthru: option enc_algo must be "cryptobox", "mqtt", "xbr" or a custom "x_..." name, got %q`, algo)
	}
	if _, err := optString(opts, wamp.OptEncKey, ""); err != nil {
		return err
	}
	ser, err := optString(opts, wamp.OptEncSerializer, "")
	if err == nil && ser != "" && !encName(ser, encSerializers) {
		err = wamp.Errorf(wamp.ErrInvalidArgument, "payload passthru: option enc_serializer must be one of %s or a custom \"x_...\" name, got %q", strings.Join(encSerializers, ", "), ser)
	}
	return err
}

// encName reports whether s is one of names or a custom name as autobahn
// reads it: "x_", or "x_" then a lower-case letter and one or more lower-
// case letters, digits or underscores.
func encName(s string, names []string) bool {
	for _, n := range names {
		if s == n {
			return true
		}
	}
	rest, ok := strings.CutPrefix(s, "x_")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	if len(rest) < 2 || rest[0] < 'a' || rest[0] > 'z' {
		return false
	}
	for _, c := range []byte(rest[1:]) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// checkPPT checks the specification's form: ppt_scheme a non-empty
// string, the other ppt_* options strings, and the payload one binary in
// Arguments with no ArgumentsKw. The router reads nothing else of them.
func checkPPT(opts wamp.Dict, p wamp.Payload) error {
	scheme, err := optString(opts, wamp.OptPPTScheme, "")
	if err != nil {
		return err
	}
	if scheme == "" {
		return wamp.Errorf(wamp.ErrInvalidArgument, "payload passthru: options ppt_* need a non-empty ppt_scheme")
	}
	for _, k := range pptKeys[1:] {
		if _, err := optString(opts, k, ""); err != nil {
			return err
		}
	}
	args, kwargs, err := p.Values()
	if err != nil {
		return wamp.Errorf(wamp.ErrInvalidArgument, "payload passthru: %v", err)
	}
	if len(args) != 1 || len(kwargs) > 0 {
		return wamp.Errorf(wamp.ErrInvalidArgument, "payload passthru: with ppt_scheme, Arguments must be one binary and ArgumentsKw empty")
	}
	if _, ok := args[0].([]byte); !ok {
		return wamp.Errorf(wamp.ErrInvalidArgument, "payload passthru: with ppt_scheme, Arguments must be one binary, not a %T", args[0])
	}
	return nil
}

// copyPassthru copies the passthru options of opts (PUBLISH, CALL or YIELD
// options, or RESULT details) into d, the details (or options) of the
// message that carries the payload on.
func copyPassthru(d, opts wamp.Dict) {
	if len(opts) == 0 {
		return
	}
	for _, keys := range [...][]string{encKeys[:], pptKeys[:]} {
		for _, k := range keys {
			if v, ok := option(opts, k); ok {
				d[k] = v
			}
		}
	}
}

// errPPTCallee is the error of a call in the specification's form to a
// callee that did not announce payload_passthru_mode.
func errPPTCallee(proc wamp.URI) *wamp.RequestError {
	return wamp.Errorf(wamp.ErrFeatureNotSupported, "payload passthru: the callee of %q did not announce payload_passthru_mode", proc)
}

// pptRoles are the roles for which a client announced the feature
// payload_passthru_mode, one bit each.
type pptRoles uint8

const (
	pptPublisher pptRoles = 1 << iota
	pptCaller
	pptCallee
)

var pptRoleNames = [...]string{"publisher", "caller", "callee"}

// announcedPPT reads the roles that HELLO details announce with the
// feature payload_passthru_mode.
func announcedPPT(details wamp.Dict) pptRoles {
	var r pptRoles
	for i, name := range pptRoleNames {
		if roleFeature(details, name, "payload_passthru_mode") {
			r |= 1 << i
		}
	}
	return r
}

// checkPassthruFrom is checkPassthru for a message s sent in role: the
// specification's form from a client that did not announce
// payload_passthru_mode for that role is a protocol violation, as the
// specification asks. (A session standing for one on another node of a
// cluster was checked there.)
func (s *session) checkPassthruFrom(role pptRoles, opts wamp.Dict, p wamp.Payload) (passthruForm, error) {
	form, err := checkPassthru(opts, p)
	if err == nil && form == pptPassthru && s.ppt&role == 0 && remoteOf(s) == nil {
		return form, violation("payload passthru (ppt_scheme) without the feature payload_passthru_mode announced in HELLO")
	}
	return form, err
}
