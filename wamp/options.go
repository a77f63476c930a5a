package wamp

// Option and detail keys of the Basic and Advanced Profile.
const (
	// HELLO and WELCOME.
	KeyRoles        = "roles"
	KeyFeatures     = "features"
	KeyAgent        = "agent"
	KeyAuthID       = "authid"
	KeyAuthRole     = "authrole"
	KeyAuthMethod   = "authmethod"
	KeyAuthMethods  = "authmethods"
	KeyAuthProvider = "authprovider"
	KeyAuthExtra    = "authextra"
	KeyMessage      = "message"

	// PUBLISH options and EVENT details.
	OptAcknowledge       = "acknowledge"
	OptExcludeMe         = "exclude_me"
	OptExclude           = "exclude"
	OptExcludeAuthID     = "exclude_authid"
	OptExcludeAuthRole   = "exclude_authrole"
	OptEligible          = "eligible"
	OptEligibleAuthID    = "eligible_authid"
	OptEligibleAuthRole  = "eligible_authrole"
	OptRetain            = "retain"
	OptGetRetained       = "get_retained"
	OptDiscloseMe        = "disclose_me"
	OptMatch             = "match"
	OptTopic             = "topic"
	OptPublisher         = "publisher"
	OptPublisherAuthID   = "publisher_authid"
	OptPublisherAuthRole = "publisher_authrole"
	OptRetained          = "retained"

	// PUBLISH and CALL options, EVENT and INVOCATION details of messages
	// forwarded by router-to-router links: a list of {session, authid,
	// authrole}. KeySession names an entry's session.
	OptForwardFor = "forward_for"
	KeySession    = "session"

	// CALL, REGISTER, INVOCATION, CANCEL and INTERRUPT.
	OptTimeout         = "timeout"
	OptReceiveProgress = "receive_progress"
	OptProgress        = "progress"
	OptInvoke          = "invoke"
	OptMode            = "mode"
	OptReason          = "reason"
	OptProcedure       = "procedure"
	OptCaller          = "caller"
	OptCallerAuthID    = "caller_authid"
	OptCallerAuthRole  = "caller_authrole"

	// Payload passthru mode (payload transparency): options of PUBLISH,
	// CALL, YIELD and ERROR that the router forwards into the details of
	// EVENT, INVOCATION, RESULT and ERROR. Crossbar.io's and autobahn's
	// form (the payload is a binary in place of Arguments: Payload.Passthru)
	// and the WAMP specification's (Arguments is a list of one binary).
	OptEncAlgo       = "enc_algo"
	OptEncKey        = "enc_key"
	OptEncSerializer = "enc_serializer"
	OptPPTScheme     = "ppt_scheme"
	OptPPTSerializer = "ppt_serializer"
	OptPPTCipher     = "ppt_cipher"
	OptPPTKeyID      = "ppt_keyid"
)

// Invocation policies for shared registrations.
const (
	InvokeSingle     = "single"
	InvokeRoundRobin = "roundrobin"
	InvokeRandom     = "random"
	InvokeFirst      = "first"
	InvokeLast       = "last"
)

// Cancel modes.
const (
	CancelSkip       = "skip"
	CancelKill       = "kill"
	CancelKillNoWait = "killnowait"
)
