package uriindex

import "strings"

// wildNode is a node of a trie over the '.'-separated components of
// wildcard patterns. The node reached from the root by the components of a
// pattern holds that pattern's value; an empty pattern component is the
// edge any, every other component a concrete edge.
//
// A node's only concrete edge is kept inline (oneComp, one), and a map
// made only for two or more (children, never fewer): most nodes are on
// the chain of one pattern, and a map per node would cost ~250 bytes per
// component. Edge components are copies, never substrings of the pattern
// that made them, so a node that a later pattern shares does not keep the
// first pattern's string alive once it is deleted.
type wildNode[V any] struct {
	oneComp  string
	one      *wildNode[V]
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
	return n.child(comp)
}

// child returns the concrete child of n for comp, or nil.
func (n *wildNode[V]) child(comp string) *wildNode[V] {
	if n.children != nil {
		return n.children[comp]
	}
	if n.one != nil && n.oneComp == comp {
		return n.one
	}
	return nil
}

// addChild makes c the concrete child of n for comp, which has none.
func (n *wildNode[V]) addChild(comp string, c *wildNode[V]) {
	comp = strings.Clone(comp)
	switch {
	case n.children != nil:
		n.children[comp] = c
	case n.one == nil:
		n.oneComp, n.one = comp, c
	default:
		n.children = map[string]*wildNode[V]{n.oneComp: n.one, comp: c}
		n.oneComp, n.one = "", nil
	}
}

// removeChild deletes the concrete child of n for comp, which has one.
func (n *wildNode[V]) removeChild(comp string) {
	if n.children == nil {
		n.oneComp, n.one = "", nil
		return
	}
	delete(n.children, comp)
	if len(n.children) > 1 {
		return
	}
	for comp, c := range n.children {
		n.oneComp, n.one = comp, c
	}
	n.children = nil
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
	n.addChild(comp, c)
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
			n.removeChild(comp)
		}
	}
	return true
}

func (n *wildNode[V]) empty() bool {
	return !n.set && n.any == nil && n.one == nil && n.children == nil
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
	if c := n.child(comp); c != nil && !c.match(uri, next, fn) {
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
	if c := n.child(comp); c != nil {
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
	if n.one != nil && !n.one.all(fn) {
		return false
	}
	for _, c := range n.children {
		if !c.all(fn) {
			return false
		}
	}
	return n.any == nil || n.any.all(fn)
}
