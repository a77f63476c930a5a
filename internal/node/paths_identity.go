package node

import (
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/junction-wamp/junction/internal/bridge"
	"github.com/junction-wamp/junction/internal/bridge/httpauth"
	"github.com/junction-wamp/junction/internal/config"
	"github.com/junction-wamp/junction/wamp"
)

// access translates a caller's or publisher's options.auth and
// options.error_status. With an error (a key file that does not load, at
// its path) the options are returned without the identity.
func (env *pathEnv) access(path, url string, a *config.Access) (bridge.Access, error) {
	out := bridge.Access{ErrorStatus: bridge.ErrorStatus{On: a.ErrorStatus.On}}
	for uri, s := range a.ErrorStatus.Statuses {
		if out.ErrorStatus.Statuses == nil {
			out.ErrorStatus.Statuses = map[wamp.URI]int{}
		}
		out.ErrorStatus.Statuses[wamp.URI(uri)] = s
	}
	if a.Auth == nil {
		return out, nil
	}
	r, err := env.identity(path, url, a.Auth, false)
	if err != nil {
		return out, err
	}
	out.Identity = r
	return out, nil
}

// identity builds the resolver of the options.auth a of the bridge
// service at path (served at url), and refuses it in a proxy worker,
// whose sessions reach their router over the network, where no identity
// can travel. queryToken: the credential may also come as the
// access_token query parameter (an event stream's allow_query_token). A
// service that has one joins with env.sessionFor(..., true).
func (env *pathEnv) identity(path, url string, a *config.HTTPAuth, queryToken bool) (*httpauth.Resolver, error) {
	ap := path + ".options.auth"
	if env.router.relay != nil {
		return nil, fieldError(ap, fmt.Errorf("not available in a proxy worker: the identity cannot travel to the backend router"))
	}
	o, err := env.identityOptions(ap, url, a)
	if err != nil {
		return nil, err
	}
	o.QueryToken = queryToken
	r, err := httpauth.New(o)
	if err != nil {
		return nil, fieldError(ap, err)
	}
	return r, nil
}

// identityOptions are the resolver's options of a, its key files read.
func (env *pathEnv) identityOptions(ap, url string, a *config.HTTPAuth) (httpauth.Options, error) {
	o := httpauth.Options{APIKeyHeader: a.APIKeyHeader, Optional: !a.Required, Logger: env.b.log.With("url", url)}
	if len(a.APIKeys) > 0 {
		o.APIKeys = make(map[string]httpauth.Principal, len(a.APIKeys))
		for k, p := range a.APIKeys {
			o.APIKeys[k] = httpauth.Principal{AuthID: p.AuthID, AuthRole: p.AuthRole}
		}
	}
	if a.BasicFrom != "" {
		if ws, ok := env.top[a.BasicFrom].(*config.WebSocketService); ok {
			o.Basic = map[string]httpauth.BasicUser{}
			for id, p := range config.BasicPrincipals(&ws.Auth) {
				o.Basic[id] = httpauth.BasicUser{Password: p.Password, AuthRole: p.Role}
			}
		}
	}
	if a.JWT == nil {
		return o, nil
	}
	j, err := env.jwtOptions(ap+".bearer.jwt", a.JWT)
	o.JWT = j
	return o, err
}

// jwtOptions translates bearer.jwt, reading public_key and jwks_file
// (relative to the node directory; the resolver reads jwks_file again
// every jwks_refresh).
func (env *pathEnv) jwtOptions(jp string, j *config.JWTAuth) (*httpauth.JWTOptions, error) {
	o := &httpauth.JWTOptions{Algorithms: j.Algorithms, Secret: []byte(j.Secret), JWKSURL: j.JWKSURL, JWKSRefresh: j.JWKSRefresh,
		Issuer: j.Issuer, Audience: j.Audience, Leeway: j.Leeway, AuthIDClaim: j.AuthIDClaim,
		AuthRoleClaim: j.AuthRoleClaim, AuthRole: j.AuthRole, AllowedRoles: j.AllowedRoles}
	if j.Secret == "" {
		o.Secret = nil
	}
	var err error
	if j.PublicKey != "" {
		if o.PublicKey, err = env.readKeyFile(j.PublicKey); err != nil {
			return o, fieldError(jp+".public_key", err)
		}
	}
	if j.JWKSFile != "" {
		// Read here for an error at its path; read again on the refresh
		// schedule by the resolver, and at each reload.
		o.JWKSFile = env.b.resolve(j.JWKSFile)
		if o.JWKS, err = env.readKeyFile(j.JWKSFile); err != nil {
			return o, fieldError(jp+".jwks_file", err)
		}
	}
	return o, nil
}

// readKeyFile reads a key file of a path service (relative to the node
// directory) and keeps what it read with the listener: a reload compares
// it with what the next config's build read.
func (env *pathEnv) readKeyFile(name string) ([]byte, error) {
	name = env.b.resolve(name)
	data, err := os.ReadFile(name)
	if err == nil && env.listener != nil {
		if env.listener.keyFiles == nil {
			env.listener.keyFiles = map[string]string{}
		}
		env.listener.keyFiles[name] = string(data)
	}
	return data, err
}

// changedKeyFile returns a key file that holds in now (a build of the
// next config) other than it held in was, or "".
func changedKeyFile(was, now map[string]string) string {
	for _, name := range slices.Sorted(maps.Keys(now)) {
		if old, ok := was[name]; !ok || old != now[name] {
			return name
		}
	}
	return ""
}
