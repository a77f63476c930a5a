package config

import "fmt"

// RouterLink is an item of a realm's "rlinks": a link to a realm of
// another router (Crossbar's worker/rlink.py). The link joins this realm
// as "trusted" and the other router's realm with cryptosign, signing with
// the node key (key.priv in the node directory, generated if absent).
type RouterLink struct {
	// ID is "id" (default "rlink000", "rlink001", ... by position, as
	// Crossbar names them).
	ID string
	// Realm is "realm" (required): the realm on the other router.
	Realm string
	// Transport is "transport" (required): a connecting websocket or
	// rawsocket transport, as a container component's.
	Transport *ComponentTransport
	// AuthID is "authid" (default "": none is sent, and the other router
	// finds the principal by the public key).
	AuthID string
	// ExcludeAuthID is "exclude_authid": the events forwarded to the other
	// router are not sent to its sessions with these authids.
	ExcludeAuthID []string
	// ForwardLocalEvents is "forward_local_events" (default true): the
	// subscriptions of this realm are made on the other router too, and
	// their events there are published here.
	ForwardLocalEvents bool
	// ForwardRemoteEvents is "forward_remote_events" (default true): the
	// other way round.
	ForwardRemoteEvents bool
	// ForwardLocalInvocations is "forward_local_invocations" (default
	// true): the registrations of this realm are registered on the other
	// router too, and calls there are forwarded here.
	ForwardLocalInvocations bool
	// ForwardRemoteInvocations is "forward_remote_invocations" (default
	// true): the other way round.
	ForwardRemoteInvocations bool
}

// rlinks decodes a realm's "rlinks".
func (d *decoder) rlinks(o *object) []*RouterLink {
	var links []*RouterLink
	ids := map[string]bool{}
	i := 0
	o.list("rlinks", func(p string, v any) {
		l := d.rlink(p, v, i)
		i++
		if l == nil {
			return
		}
		if ids[l.ID] {
			d.errorf(p+".id", "duplicate router link id %q in the realm", l.ID)
		}
		ids[l.ID] = true
		links = append(links, l)
	})
	return links
}

func (d *decoder) rlink(path string, v any, i int) *RouterLink {
	o, ok := d.object(path, v)
	if !ok {
		return nil
	}
	l := &RouterLink{ID: d.id(o), Realm: o.reqStr("realm"), AuthID: o.str("authid", "")}
	if l.ID == "" {
		l.ID = fmt.Sprintf("rlink%03d", i)
	}
	if l.Realm != "" && !looseURI(l.Realm) {
		d.errorf(o.at("realm"), "invalid realm URI %q", l.Realm)
	}
	l.Transport = d.componentTransportAt(o)
	l.ExcludeAuthID = o.strList("exclude_authid")
	l.ForwardLocalEvents = o.boolean("forward_local_events", true)
	l.ForwardRemoteEvents = o.boolean("forward_remote_events", true)
	l.ForwardLocalInvocations = o.boolean("forward_local_invocations", true)
	l.ForwardRemoteInvocations = o.boolean("forward_remote_invocations", true)
	o.done()
	return l
}
