package cluster

import (
	"strings"

	"github.com/nats-io/nats.go"
)

// externalOptions returns the server list and the connection options of
// an external NATS.
func externalOptions(x *External, opts []nats.Option) (string, []nats.Option, error) {
	switch {
	case x.Credentials != "":
		opts = append(opts, nats.UserCredentials(x.Credentials))
	case x.Token != "":
		opts = append(opts, nats.Token(x.Token))
	case x.User != "":
		opts = append(opts, nats.UserInfo(x.User, x.Password))
	}
	if x.TLS != nil {
		opts = append(opts, nats.Secure(x.TLS))
	}
	return strings.Join(x.Servers, ","), opts, nil
}
