package wamp

// ID is a WAMP identifier: a session, request, publication, subscription or
// registration ID, an integer in [1, 2^53].
type ID uint64

// URI is a WAMP URI such as "com.example.add".
type URI string

// Dict is a WAMP dictionary that the router reads (details, options);
// payload dictionaries are Objects.
type Dict = map[string]any

// List is a WAMP list (positional arguments).
type List = []any

// MessageType is the first element of every WAMP message.
type MessageType uint64

// Message types of the Basic and Advanced Profile.
const (
	TypeHello        MessageType = 1
	TypeWelcome      MessageType = 2
	TypeAbort        MessageType = 3
	TypeChallenge    MessageType = 4
	TypeAuthenticate MessageType = 5
	TypeGoodbye      MessageType = 6
	TypeError        MessageType = 8
	TypePublish      MessageType = 16
	TypePublished    MessageType = 17
	TypeSubscribe    MessageType = 32
	TypeSubscribed   MessageType = 33
	TypeUnsubscribe  MessageType = 34
	TypeUnsubscribed MessageType = 35
	TypeEvent        MessageType = 36
	TypeCall         MessageType = 48
	TypeCancel       MessageType = 49
	TypeResult       MessageType = 50
	TypeRegister     MessageType = 64
	TypeRegistered   MessageType = 65
	TypeUnregister   MessageType = 66
	TypeUnregistered MessageType = 67
	TypeInvocation   MessageType = 68
	TypeInterrupt    MessageType = 69
	TypeYield        MessageType = 70
)

var typeNames = map[MessageType]string{
	TypeHello: "HELLO", TypeWelcome: "WELCOME", TypeAbort: "ABORT",
	TypeChallenge: "CHALLENGE", TypeAuthenticate: "AUTHENTICATE",
	TypeGoodbye: "GOODBYE", TypeError: "ERROR", TypePublish: "PUBLISH",
	TypePublished: "PUBLISHED", TypeSubscribe: "SUBSCRIBE",
	TypeSubscribed: "SUBSCRIBED", TypeUnsubscribe: "UNSUBSCRIBE",
	TypeUnsubscribed: "UNSUBSCRIBED", TypeEvent: "EVENT", TypeCall: "CALL",
	TypeCancel: "CANCEL", TypeResult: "RESULT", TypeRegister: "REGISTER",
	TypeRegistered: "REGISTERED", TypeUnregister: "UNREGISTER",
	TypeUnregistered: "UNREGISTERED", TypeInvocation: "INVOCATION",
	TypeInterrupt: "INTERRUPT", TypeYield: "YIELD",
}

// String returns the message type's name, "HELLO" for TypeHello.
func (t MessageType) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return "UNKNOWN"
}

// Message is one WAMP message. The concrete types below are the only
// implementations; they are passed by pointer.
type Message interface {
	Type() MessageType
}

// Hello is [HELLO, Realm|uri, Details|dict].
type Hello struct {
	Realm   URI
	Details Dict
}

// Welcome is [WELCOME, Session|id, Details|dict].
type Welcome struct {
	Session ID
	Details Dict
}

// Abort is [ABORT, Details|dict, Reason|uri].
type Abort struct {
	Details Dict
	Reason  URI
}

// Challenge is [CHALLENGE, AuthMethod|string, Extra|dict].
type Challenge struct {
	AuthMethod string
	Extra      Dict
}

// Authenticate is [AUTHENTICATE, Signature|string, Extra|dict].
type Authenticate struct {
	Signature string
	Extra     Dict
}

// Goodbye is [GOODBYE, Details|dict, Reason|uri].
type Goodbye struct {
	Details Dict
	Reason  URI
}

// Error is [ERROR, REQUEST.Type|int, REQUEST.Request|id, Details|dict,
// Error|uri, Arguments|list, ArgumentsKw|dict].
type Error struct {
	RequestType MessageType
	Request     ID
	Details     Dict
	Error       URI
	Args        List
	Kwargs      Object
	Raw         *Raw // the payload as received; Args and Kwargs are nil when set
}

// Publish is [PUBLISH, Request|id, Options|dict, Topic|uri, Arguments|list,
// ArgumentsKw|dict].
type Publish struct {
	Request ID
	Options Dict
	Topic   URI
	Args    List
	Kwargs  Object
	Raw     *Raw // the payload as received; Args and Kwargs are nil when set
}

// Published is [PUBLISHED, PUBLISH.Request|id, Publication|id].
type Published struct {
	Request     ID
	Publication ID
}

// Subscribe is [SUBSCRIBE, Request|id, Options|dict, Topic|uri].
type Subscribe struct {
	Request ID
	Options Dict
	Topic   URI
}

// Subscribed is [SUBSCRIBED, SUBSCRIBE.Request|id, Subscription|id].
type Subscribed struct {
	Request      ID
	Subscription ID
}

// Unsubscribe is [UNSUBSCRIBE, Request|id, SUBSCRIBED.Subscription|id].
type Unsubscribe struct {
	Request      ID
	Subscription ID
}

// Unsubscribed is [UNSUBSCRIBED, UNSUBSCRIBE.Request|id] or, when the router
// revokes a subscription, [UNSUBSCRIBED, 0, Details|dict].
type Unsubscribed struct {
	Request ID
	Details Dict
}

// Event is [EVENT, SUBSCRIBED.Subscription|id, PUBLISHED.Publication|id,
// Details|dict, PUBLISH.Arguments|list, PUBLISH.ArgumentsKw|dict].
type Event struct {
	Subscription ID
	Publication  ID
	Details      Dict
	Args         List
	Kwargs       Object
	Raw          *Raw // the payload as received; Args and Kwargs are nil when set
}

// Call is [CALL, Request|id, Options|dict, Procedure|uri, Arguments|list,
// ArgumentsKw|dict].
type Call struct {
	Request   ID
	Options   Dict
	Procedure URI
	Args      List
	Kwargs    Object
	Raw       *Raw // the payload as received; Args and Kwargs are nil when set
}

// Cancel is [CANCEL, CALL.Request|id, Options|dict].
type Cancel struct {
	Request ID
	Options Dict
}

// Result is [RESULT, CALL.Request|id, Details|dict, YIELD.Arguments|list,
// YIELD.ArgumentsKw|dict].
type Result struct {
	Request ID
	Details Dict
	Args    List
	Kwargs  Object
	Raw     *Raw // the payload as received; Args and Kwargs are nil when set
}

// Register is [REGISTER, Request|id, Options|dict, Procedure|uri].
type Register struct {
	Request   ID
	Options   Dict
	Procedure URI
}

// Registered is [REGISTERED, REGISTER.Request|id, Registration|id].
type Registered struct {
	Request      ID
	Registration ID
}

// Unregister is [UNREGISTER, Request|id, REGISTERED.Registration|id].
type Unregister struct {
	Request      ID
	Registration ID
}

// Unregistered is [UNREGISTERED, UNREGISTER.Request|id] or, when the router
// revokes a registration, [UNREGISTERED, 0, Details|dict].
type Unregistered struct {
	Request ID
	Details Dict
}

// Invocation is [INVOCATION, Request|id, REGISTERED.Registration|id,
// Details|dict, CALL.Arguments|list, CALL.ArgumentsKw|dict].
type Invocation struct {
	Request      ID
	Registration ID
	Details      Dict
	Args         List
	Kwargs       Object
	Raw          *Raw // the payload as received; Args and Kwargs are nil when set
}

// Interrupt is [INTERRUPT, INVOCATION.Request|id, Options|dict].
type Interrupt struct {
	Request ID
	Options Dict
}

// Yield is [YIELD, INVOCATION.Request|id, Options|dict, Arguments|list,
// ArgumentsKw|dict].
type Yield struct {
	Request ID
	Options Dict
	Args    List
	Kwargs  Object
	Raw     *Raw // the payload as received; Args and Kwargs are nil when set
}

// Type returns TypeHello.
func (*Hello) Type() MessageType { return TypeHello }

// Type returns TypeWelcome.
func (*Welcome) Type() MessageType { return TypeWelcome }

// Type returns TypeAbort.
func (*Abort) Type() MessageType { return TypeAbort }

// Type returns TypeChallenge.
func (*Challenge) Type() MessageType { return TypeChallenge }

// Type returns TypeAuthenticate.
func (*Authenticate) Type() MessageType { return TypeAuthenticate }

// Type returns TypeGoodbye.
func (*Goodbye) Type() MessageType { return TypeGoodbye }

// Type returns TypeError.
func (*Error) Type() MessageType { return TypeError }

// Type returns TypePublish.
func (*Publish) Type() MessageType { return TypePublish }

// Type returns TypePublished.
func (*Published) Type() MessageType { return TypePublished }

// Type returns TypeSubscribe.
func (*Subscribe) Type() MessageType { return TypeSubscribe }

// Type returns TypeSubscribed.
func (*Subscribed) Type() MessageType { return TypeSubscribed }

// Type returns TypeUnsubscribe.
func (*Unsubscribe) Type() MessageType { return TypeUnsubscribe }

// Type returns TypeUnsubscribed.
func (*Unsubscribed) Type() MessageType { return TypeUnsubscribed }

// Type returns TypeEvent.
func (*Event) Type() MessageType { return TypeEvent }

// Type returns TypeCall.
func (*Call) Type() MessageType { return TypeCall }

// Type returns TypeCancel.
func (*Cancel) Type() MessageType { return TypeCancel }

// Type returns TypeResult.
func (*Result) Type() MessageType { return TypeResult }

// Type returns TypeRegister.
func (*Register) Type() MessageType { return TypeRegister }

// Type returns TypeRegistered.
func (*Registered) Type() MessageType { return TypeRegistered }

// Type returns TypeUnregister.
func (*Unregister) Type() MessageType { return TypeUnregister }

// Type returns TypeUnregistered.
func (*Unregistered) Type() MessageType { return TypeUnregistered }

// Type returns TypeInvocation.
func (*Invocation) Type() MessageType { return TypeInvocation }

// Type returns TypeInterrupt.
func (*Interrupt) Type() MessageType { return TypeInterrupt }

// Type returns TypeYield.
func (*Yield) Type() MessageType { return TypeYield }

// payloadFields is implemented by the messages that carry a payload: it
// gives their Args, Kwargs and Raw fields, so that the code reading or
// setting a payload lists those messages once (here).
type payloadFields interface {
	Message
	fields() (*List, *Object, **Raw)
}

func (m *Error) fields() (*List, *Object, **Raw)      { return &m.Args, &m.Kwargs, &m.Raw }
func (m *Publish) fields() (*List, *Object, **Raw)    { return &m.Args, &m.Kwargs, &m.Raw }
func (m *Event) fields() (*List, *Object, **Raw)      { return &m.Args, &m.Kwargs, &m.Raw }
func (m *Call) fields() (*List, *Object, **Raw)       { return &m.Args, &m.Kwargs, &m.Raw }
func (m *Result) fields() (*List, *Object, **Raw)     { return &m.Args, &m.Kwargs, &m.Raw }
func (m *Invocation) fields() (*List, *Object, **Raw) { return &m.Args, &m.Kwargs, &m.Raw }
func (m *Yield) fields() (*List, *Object, **Raw)      { return &m.Args, &m.Kwargs, &m.Raw }
