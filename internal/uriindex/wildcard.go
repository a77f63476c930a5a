package uriindex

import "strings"

// wildNode is a node of a trie over the '.'-separated components of
// wildcard patterns. The node reached from the root by the components of a
// pattern holds that pattern's value; an empty pattern component is the
// edge any, every other component an edge in children.
type wildNode[V any] struct {
	children map[string]*wildNode[V]
	any      *wildNode[V]
	set      bool
	pattern  string
	val      V
}

// component returns the component of s that starts at start and the start
// of the next one. A start past len(s) means every component has been
// consumed: "a.b" has components "a" and "b", "a." has "a" and "", and ""
// has the single component "".
func component(s string, start int) (comp string, next int) {
	end := strings.IndexByte(s[start:], '.')
	if end < 0 {
		return s[start:], len(s) + 1
	}
	return s[start : start+end], start + end + 1
}

// step returns the child of n for the pattern component comp, or nil.
func (n *wildNode[V]) step(comp string) *wildNode[V] {
	if comp == "" {
		return n.any
	}
	return n.children[comp]
}

// find returns the node that holds pattern, or nil.
func (n *wildNode[V]) find(pattern string) *wildNode[V] {
	for start := 0; n != nil && start <= len(pattern); {
		var comp string
		comp, start = component(pattern, start)
		n = n.step(comp)
	}
	return n
}

// insert stores v for pattern below n (the root) and reports whether the
// pattern is new.
func (n *wildNode[V]) insert(pattern string, v V) bool {
	for start := 0; start <= len(pattern); {
		var comp string
		comp, start = component(pattern, start)
		n = n.stepOrAdd(comp)
	}
	added := !n.set
	n.set, n.pattern, n.val = true, pattern, v
	return added
}

func (n *wildNode[V]) stepOrAdd(comp string) *wildNode[V] {
	if c := n.step(comp); c != nil {
		return c
	}
	c := &wildNode[V]{}
	if comp == "" {
		n.any = c
		return c
	}
	if n.children == nil {
		n.children = make(map[string]*wildNode[V])
	}
	n.children[comp] = c
	return c
}

// remove deletes the value for the components of pattern from start on,
// below n, and reports whether there was one. Nodes left without a value
// or children are pruned.
func (n *wildNode[V]) remove(pattern string, start int) bool {
	if start > len(pattern) {
		if !n.set {
			return false
		}
		var zero V
		n.set, n.pattern, n.val = false, "", zero
		return true
	}
	comp, next := component(pattern, start)
	c := n.step(comp)
	if c == nil || !c.remove(pattern, next) {
		return false
	}
	if c.empty() {
		if comp == "" {
			n.any = nil
		} else {
			delete(n.children, comp)
		}
	}
	return true
}

func (n *wildNode[V]) empty() bool {
	return !n.set && n.any == nil && len(n.children) == 0
}

// match calls fn for every pattern below n that matches the components of
// uri from start on, most specific first (see Index.Best), and reports
// false as soon as fn does. The concrete edge is tried before the any
// edge, so the visiting order is "concrete beats empty at the first
// position where two patterns differ".
func (n *wildNode[V]) match(uri string, start int, fn func(string, Match, V) bool) bool {
	if start > len(uri) {
		return !n.set || fn(n.pattern, Wildcard, n.val)
	}
	comp, next := component(uri, start)
	if c := n.children[comp]; c != nil && !c.match(uri, next, fn) {
		return false
	}
	return n.any == nil || n.any.match(uri, next, fn)
}

// first returns the node of the first pattern match would visit, or nil.
func (n *wildNode[V]) first(uri string, start int) *wildNode[V] {
	if start > len(uri) {
		if n.set {
			return n
		}
		return nil
	}
	comp, next := component(uri, start)
	if c := n.children[comp]; c != nil {
		if f := c.first(uri, next); f != nil {
			return f
		}
	}
	if n.any == nil {
		return nil
	}
	return n.any.first(uri, next)
}

// all calls fn for every pattern stored at or below n, in no particular
// order, and reports false as soon as fn does.
func (n *wildNode[V]) all(fn func(string, Match, V) bool) bool {
	if n.set && !fn(n.pattern, Wildcard, n.val) {
		return false
	}
	for _, c := range n.children {
		if !c.all(fn) {
			return false
		}
	}
	return n.any == nil || n.any.all(fn)
}
