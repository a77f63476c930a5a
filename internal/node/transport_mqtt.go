package node

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/internal/transport/mqtt"
	"github.com/junction-wamp/junction/wamp"
)

// mqttTransport builds an "mqtt" transport on a TCP or Unix endpoint.
func (b *builder) mqttTransport(path string, ru *routerUnit, t *config.MQTTTransport) (*listenerUnit, error) {
	var errs config.Errors
	spec, err := b.listenSpecOf(t.Endpoint)
	if err != nil {
		errs = append(errs, fieldError(path+".endpoint", err))
	}
	srv := streamServer{closed: mqtt.ErrServerClosed}
	if t.Endpoint.TLS != nil {
		if srv.tls, err = b.serverTLS(t.Endpoint.TLS).Load(); err != nil {
			errs = append(errs, fieldError(path+".endpoint.tls", err))
		}
	}
	h, herrs := b.mqttHandler(path, ru, t.Options)
	errs = append(errs, herrs...)
	if len(errs) > 0 {
		return nil, errs
	}
	srv.srv = mqtt.NewServer(h)
	logEndpoint(b.log, path, t.Endpoint)
	l := &listenerUnit{path: path, kind: "mqtt", spec: spec, srv: srv, limits: b.limitsOf(path, t.Endpoint)}
	l.services = append(l.services, serviceLog{"mqtt service", []any{"realm", t.Options.Realm}})
	return l, nil
}

// mqttHandler translates an MQTT transport's options (at path) into a
// Handler serving connections on ru; the universal transport hands it
// the connections whose first octet is 0x10.
func (b *builder) mqttHandler(path string, ru *routerUnit, o config.MQTTOptions) (*mqtt.Handler, config.Errors) {
	var errs config.Errors
	if !ru.hasRealm(o.Realm) {
		errs = append(errs, fieldError(path+".options.realm", fmt.Errorf("no realm %q on this router", o.Realm)))
	}
	maps := map[string]mqtt.Mapping{}
	sessions := map[string]*bridgeSession{}
	for prefix, pm := range o.PayloadMapping {
		m := mqtt.Mapping{Passthrough: pm.Type == "passthrough", Serializer: pm.Serializer,
			Encoder: wamp.URI(pm.Encoder), Decoder: wamp.URI(pm.Decoder), Realm: pm.Realm}
		maps[prefix] = m
		if pm.Type != "dynamic" {
			continue
		}
		realm := cmp.Or(pm.Realm, o.Realm)
		if !ru.hasRealm(realm) {
			errs = append(errs, fieldError(fmt.Sprintf("%s.options.payload_mapping[%q].realm", path, prefix), fmt.Errorf("no realm %q on this router", realm)))
			continue
		}
		sessions[realm] = ru.dyn.session(path, wamp.URI(realm), "")
	}
	if len(errs) > 0 {
		return nil, errs
	}
	h, err := mqtt.NewHandler(mqtt.Options{
		Attacher:       clientGate(ru, path+".options", o.Auth, config.DefaultJoinTimeout),
		Realm:          o.Realm,
		PayloadMapping: maps,
		Call: func(ctx context.Context, realm string, procedure wamp.URI, args wamp.List) (any, error) {
			s := sessions[realm]
			if s == nil {
				return nil, fmt.Errorf("node: no calling session on realm %q", realm)
			}
			return callDynamic(ctx, s, procedure, args)
		},
		Logger: b.log.With("transport", path),
	})
	if err != nil {
		return nil, config.Errors{fieldError(path+".options", err)}
	}
	return h, nil
}

// hasRealm reports whether the router has realm name.
func (r *routerUnit) hasRealm(name string) bool { return slices.Contains(r.realmNames(), name) }
