package lograte

import (
	"sync"
	"time"
)

// OtherKey is the key that Keyed counts an event under when its own key
// cannot be tracked (MaxKeys keys already have a window open).
const OtherKey = "(other)"

// Keyed lets at most Burst events of each key (a client's address) through
// per window of Interval, which opens at the key's first event, and holds
// the others back. When a window in which events were held back ends,
// OnHeld is called with the key and their count, so that the count is
// logged even when the events stop. At most MaxKeys windows are open at a
// time: the events of any further key share the window of OtherKey. So
// a flood from any number of keys lets at most (MaxKeys+1) * (Burst+1)
// lines through per Interval, and memory stays bounded.
//
// Set the fields before first use; safe for concurrent use afterwards.
// OnHeld runs on a timer's goroutine (or Flush's), holding no lock.
type Keyed struct {
	Interval time.Duration
	Burst    int // events let through per window; at least 1
	MaxKeys  int // windows open at a time, OtherKey's aside; at least 1
	OnHeld   func(key string, held int)

	mu      sync.Mutex // guards the fields below
	windows map[string]*window
	stopped bool
}

// window is one key's current window.
type window struct {
	passed int // events let through
	held   int // events held back
	timer  *time.Timer
}

// Allow reports whether to log an event of key now.
func (k *Keyed) Allow(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	w := k.windows[key]
	if w == nil {
		if k.ownWindowsLocked() >= max(k.MaxKeys, 1) {
			key = OtherKey
			w = k.windows[key]
		}
		if w == nil {
			w = k.openLocked(key)
		}
	}
	if w.passed < max(k.Burst, 1) {
		w.passed++
		return true
	}
	w.held++
	return false
}

// ownWindowsLocked is the number of windows open, OtherKey's aside.
// Lock held.
func (k *Keyed) ownWindowsLocked() int {
	if _, ok := k.windows[OtherKey]; ok {
		return len(k.windows) - 1
	}
	return len(k.windows)
}

// openLocked opens the window of key, which ends after Interval (at once
// once Flush has run). Lock held.
func (k *Keyed) openLocked(key string) *window {
	if k.windows == nil {
		k.windows = map[string]*window{}
	}
	w := &window{}
	k.windows[key] = w
	if !k.stopped {
		w.timer = time.AfterFunc(k.Interval, func() { k.close(key, w) })
	}
	return w
}

// close ends w, the window of key, and reports what it held back.
func (k *Keyed) close(key string, w *window) {
	k.mu.Lock()
	if k.windows[key] != w {
		k.mu.Unlock()
		return
	}
	delete(k.windows, key)
	held := w.held
	k.mu.Unlock()
	if held > 0 && k.OnHeld != nil {
		k.OnHeld(key, held)
	}
}

// Flush ends every open window now and reports what each held back (for
// a server that stops: no count is reported after it). From then on
// windows no longer end by themselves; only a later Flush ends them.
func (k *Keyed) Flush() {
	k.mu.Lock()
	k.stopped = true
	open := k.windows
	k.windows = nil
	k.mu.Unlock()
	for key, w := range open {
		if w.timer != nil {
			w.timer.Stop()
		}
		if w.held > 0 && k.OnHeld != nil {
			k.OnHeld(key, w.held)
		}
	}
}
