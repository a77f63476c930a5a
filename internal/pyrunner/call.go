package pyrunner

import (
	"context"
	"encoding/json"
	"fmt"
)

// call sends the call op with args and waits for its answer: the result,
// or the runner's error answer (a *StartError), ErrEnded when the runner
// has ended, or ctx's error. When ctx ends first, the runner is asked to
// cancel the call; its late answer, and the answer to that request, are
// dropped.
func (c *Channel) call(ctx context.Context, op string, args any) (json.RawMessage, error) {
	answer := make(chan reply, 1) // never blocks the read loop
	id, ok := c.newCall(func(rep reply) { answer <- rep })
	if !ok {
		return nil, ErrEnded
	}
	if err := c.send(id, op, args, nil); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case rep := <-answer:
		return rep.result, rep.err
	case <-ctx.Done():
		c.cancel(id)
		return nil, fmt.Errorf("pyrunner: %s: %w", op, ctx.Err())
	}
}

// newCall gives fn a call id, to be called with the call's answer; false
// when the channel has ended.
func (c *Channel) newCall(fn func(reply)) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return 0, false
	}
	c.nextID++
	c.pending[c.nextID] = fn
	return c.nextID, true
}

// cancel asks the runner to cancel the call id, which it then answers
// (an error), so that no answer stays pending. A channel that has ended
// has nothing to cancel.
func (c *Channel) cancel(id int64) {
	cid, ok := c.newCall(func(reply) {})
	if !ok {
		return
	}
	if err := c.send(cid, "cancel", map[string]any{"id": id}, nil); err != nil {
		c.forget(cid)
		c.log.Debug("Python runner: cannot cancel a call", "id", id, "err", err)
	}
}
