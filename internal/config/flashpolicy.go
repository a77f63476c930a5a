package config

// FlashPolicyTransport is a transport of "type": "flashpolicy": it answers
// Flash's "<policy-file-request/>" with a cross-domain policy that lets
// Flash clients from AllowedDomain connect to AllowedPorts, and closes the
// connection.
type FlashPolicyTransport struct {
	// ID is "id" (default "").
	ID string
	// Endpoint is "endpoint" (required; Flash asks on port 843).
	Endpoint ListenEndpoint
	// AllowedDomain is "allowed_domain": the domain whose Flash clients
	// may connect (default "*", any).
	AllowedDomain string
	// AllowedPorts is "allowed_ports": the ports they may connect to,
	// each 1..65535 (default none given: any port, "*").
	AllowedPorts []int
}

func (t *FlashPolicyTransport) TransportID() string { return t.ID }
func (*FlashPolicyTransport) isTransport()          {}

var _ Transport = (*FlashPolicyTransport)(nil)

func (d *decoder) flashPolicyTransport(o *object) *FlashPolicyTransport {
	t := &FlashPolicyTransport{ID: d.id(o)}
	t.Endpoint = d.listenEndpointAt(o)
	t.AllowedDomain = o.str("allowed_domain", "*")
	if _, isStr := o.m["allowed_domain"].(string); isStr && t.AllowedDomain == "" {
		d.errorf(o.at("allowed_domain"), `must not be empty (use "*" for any domain)`)
	}
	o.list("allowed_ports", func(p string, v any) {
		n, ok := d.integer(p, v)
		switch {
		case !ok:
		case n < 1 || n > 65535:
			d.errorf(p, "%s", rangeMsg(n, 1, 65535))
		default:
			t.AllowedPorts = append(t.AllowedPorts, int(n))
		}
	})
	o.ignored("debug", ": use --loglevel debug")
	return t
}
