package integration

// rawsocketCases lists the RawSocket environments; filled in when the
// RawSocket transport lands.
func rawsocketCases() []transportCase { return nil }
