package bridge

import "github.com/junction-wamp/junction/internal/meter"

// Stats returns the requests the Caller served, by status.
func (c *Caller) Stats() meter.RequestStats { return c.p.requests.Snapshot() }

// Stats returns the requests the Publisher served, by status.
func (pb *Publisher) Stats() meter.RequestStats { return pb.p.requests.Snapshot() }

// Stats returns the requests the Webhook served, by status.
func (wh *Webhook) Stats() meter.RequestStats { return wh.p.requests.Snapshot() }

// Stats returns the streams the EventStream served, by status (a stream's
// duration is how long it was open).
func (es *EventStream) Stats() meter.RequestStats { return es.p.requests.Snapshot() }

// Stats returns the requests the API served, by status.
func (a *API) Stats() meter.RequestStats { return a.p.requests.Snapshot() }
