//go:build unix

package pyrunner

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNewAuthenticator(t *testing.T) {
	c, f, _ := newFake(t)
	done := make(chan error, 1)
	go func() { done <- c.NewAuthenticator(testCtx(t), Authenticator{ID: "a.ticket", Create: "m.create"}) }()
	m, _ := f.call()
	args, _ := m["args"].(map[string]any)
	if m["op"] != "authenticator" || args["id"] != "a.ticket" || args["create"] != "m.create" || !reflect.DeepEqual(args["config"], map[string]any{}) {
		t.Errorf("call %v", m)
	}
	f.say(map[string]any{"type": "error", "id": m["id"], "error": map[string]any{"stage": "create", "message": "m.create(config, controller) raised"}})
	var se *StartError
	if err := <-done; !errors.As(err, &se) || se.Stage != "create" {
		t.Errorf("NewAuthenticator: %v, want the runner's error", err)
	}
}

// TestAuthenticate: what the call says, and how each answer is read.
func TestAuthenticate(t *testing.T) {
	tests := []struct {
		name   string
		answer map[string]any
		want   any
		err    error
	}{
		{"role", map[string]any{"type": "result", "result": map[string]any{"value": "user"}}, "user", nil},
		{"dict", map[string]any{"type": "result", "result": map[string]any{"value": map[string]any{"role": "u", "iterations": 1000, "f": 1.5, "l": []any{7}}}},
			map[string]any{"role": "u", "iterations": int64(1000), "f": 1.5, "l": []any{int64(7)}}, nil},
		{"none", map[string]any{"type": "result", "result": map[string]any{"value": nil}}, nil, nil},
		{"application error", map[string]any{"type": "result", "result": map[string]any{"error": "com.example.denied", "args": []any{"no", 1}}},
			nil, &Refusal{URI: "com.example.denied", Args: []any{"no", int64(1)}}},
		{"exception", map[string]any{"type": "error", "error": map[string]any{"stage": "authenticate", "message": "ValueError: x", "traceback": "tb"}},
			nil, &StartError{Stage: "authenticate", Message: "ValueError: x", Traceback: "tb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, f, _ := newFake(t)
			type result struct {
				v   any
				err error
			}
			done := make(chan result, 1)
			go func() {
				v, err := c.Authenticate(testCtx(t), "a.ticket", "realm1", "", map[string]any{"ticket": "t"})
				done <- result{v, err}
			}()
			m, _ := f.call()
			args, _ := m["args"].(map[string]any)
			details, _ := args["details"].(map[string]any)
			if m["op"] != "authenticate" || args["authenticator"] != "a.ticket" || args["realm"] != "realm1" || args["authid"] != nil || details["ticket"] != "t" {
				t.Errorf("call %v", m)
			}
			tt.answer["id"] = m["id"]
			f.say(tt.answer)
			r := <-done
			if !reflect.DeepEqual(r.v, tt.want) || !reflect.DeepEqual(r.err, tt.err) {
				t.Errorf("Authenticate = %#v, %#v; want %#v, %#v", r.v, r.err, tt.want, tt.err)
			}
		})
	}
}

// TestAuthenticateCanceled: a call whose ctx ends is canceled in the
// runner, and the late answers are dropped without a word.
func TestAuthenticateCanceled(t *testing.T) {
	c, f, logs := newFake(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := c.Authenticate(ctx, "a", "realm1", "alice", nil)
		done <- err
	}()
	m, _ := f.call()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Authenticate: %v, want context.Canceled", err)
	}
	f.conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // fails, not hangs, without the cancel
	cm, _ := f.call()
	args, _ := cm["args"].(map[string]any)
	if cm["op"] != "cancel" || args["id"] != m["id"] {
		t.Fatalf("after the ctx ended: %v, want cancel of call %v", cm, m["id"])
	}
	f.say(map[string]any{"type": "error", "id": m["id"], "error": map[string]any{"stage": "canceled", "message": "the call was canceled"}})
	f.say(map[string]any{"type": "result", "id": cm["id"], "result": map[string]any{}})
	// A call after them is answered, once they have been read.
	go func() {
		_, err := c.Authenticate(testCtx(t), "a", "realm1", "alice", nil)
		done <- err
	}()
	next, _ := f.call()
	f.say(map[string]any{"type": "result", "id": next["id"], "result": map[string]any{"value": "user"}})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "answer to no call") {
		t.Errorf("the late answers were logged:\n%s", logs)
	}
}

func TestAuthenticateRunnerEnded(t *testing.T) {
	c, f, _ := newFake(t)
	f.conn.Close()
	<-c.Done()
	if _, err := c.Authenticate(testCtx(t), "a", "realm1", "alice", nil); !errors.Is(err, ErrEnded) {
		t.Fatalf("Authenticate: %v, want ErrEnded", err)
	}
}
