package pyrunner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Authenticator is a function authenticator (Crossbar's "type":
// "function"): a factory that the runner imports and calls once, whose
// result it calls for each login.
type Authenticator struct {
	// ID names it in the calls that use it, and in logs: its JSON path.
	ID string
	// Create is the factory, "package.module.name".
	Create string
	// Config is the factory's first argument; nil is {}.
	Config map[string]any
}

// Refusal is an autobahn ApplicationError that an authenticator raised:
// its error URI and positional arguments.
type Refusal struct {
	URI  string
	Args []any
}

func (r *Refusal) Error() string {
	if len(r.Args) > 0 {
		return fmt.Sprintf("%s: %v", r.URI, r.Args[0])
	}
	return r.URI
}

// NewAuthenticator asks the runner to import a.Create and call it as
// factory(config, None), waiting for the authenticate function it
// returns (a Deferred or a coroutine it returns is waited for). Its error
// is a *StartError (Stage "import": the module or the name; "create":
// the factory raised or did not return a function), ErrEnded, or ctx's.
func (c *Channel) NewAuthenticator(ctx context.Context, a Authenticator) error {
	config := a.Config
	if config == nil {
		config = map[string]any{}
	}
	_, err := c.call(ctx, "authenticator", map[string]any{"id": a.ID, "create": a.Create, "config": config})
	return err
}

// authenticated is the answer to "authenticate": the function's result,
// or the ApplicationError it raised.
type authenticated struct {
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
	Args  json.RawMessage `json:"args"`
}

// Authenticate calls the authenticator id (made by NewAuthenticator) as
// authenticate(realm, authid, details), authid "" as None, and returns
// its result as JSON decodes it (a string, or a map[string]any), numbers
// as int64 when they are integers, else float64. Its error is a *Refusal
// (it raised an ApplicationError), a *StartError of Stage "authenticate"
// (it raised anything else), ErrEnded, or ctx's error (the call is then
// canceled in the runner).
func (c *Channel) Authenticate(ctx context.Context, id, realm, authid string, details map[string]any) (any, error) {
	var aid any
	if authid != "" {
		aid = authid
	}
	raw, err := c.call(ctx, "authenticate", map[string]any{"authenticator": id, "realm": realm, "authid": aid, "details": details})
	if err != nil {
		return nil, err
	}
	var ans authenticated
	if err := json.Unmarshal(raw, &ans); err != nil {
		return nil, fmt.Errorf("pyrunner: unreadable answer to authenticate: %w", err)
	}
	if ans.Error != "" {
		args, _ := decodeJSON(ans.Args) // part of a line that decoded
		list, _ := args.([]any)
		return nil, &Refusal{URI: ans.Error, Args: list}
	}
	return decodeJSON(ans.Value)
}

// decodeJSON decodes a JSON value, integers as int64; nil and empty are
// null.
func decodeJSON(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("pyrunner: unreadable value: %w", err)
	}
	return numbers(v), nil
}

// numbers replaces the json.Numbers of v, at any depth.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}
