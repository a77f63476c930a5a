// Package loginguard guards the logins of the entries that authenticate
// outside clients, a router's gates and a proxy worker's entries, so that
// both slow password guessing down alike (F9, docs/SECURITY.md):
//
//   - Throttle counts failed logins per client address and per authid
//     and says how long to hold the next attempt's CHALLENGE back, or to
//     refuse it (throttle.go, table.go);
//   - (*Throttle).Identify runs one authenticator's login attempt under
//     it, deciding what counts as a failure (login.go);
//   - Recv reads the client's handshake messages, and AfterFunc is the
//     timer of a held-back CHALLENGE and of the join timeout
//     (handshake.go);
//   - LogRefused writes the "join refused" line, rate-limited per client
//     address (log.go).
//
// It knows no router and no transport: the caller sends and receives.
package loginguard
