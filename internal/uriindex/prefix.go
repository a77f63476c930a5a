package uriindex

import (
	"slices"
	"strings"
)

// prefixNode is a node of a radix tree (a byte trie whose single-child
// chains are compressed into edge labels) over prefix patterns.
//
// The path from the root to a node spells the concatenation of the labels
// on the way; a node with set holds the value for exactly that string,
// which it also keeps in pattern so that lookups never build strings.
// children are kept sorted by the first byte of their label, and no two
// children share a first byte.
//
// Each node's label is its own copy, never a substring of a pattern or of
// another node's label, so that a node a later pattern shares does not
// keep the first pattern's string alive once it is deleted. A split gives
// the new upper node a copy and leaves the lower node the rest of its own
// (no copy of a long label for a short pattern); the bytes it no longer
// uses belong to its original label, which every pattern below it
// spells.
type prefixNode[V any] struct {
	label    string
	children []*prefixNode[V]
	set      bool
	pattern  string
	val      V
}

// child returns the child whose label starts with c, and its position, or
// nil and the position where such a child would be inserted.
func (n *prefixNode[V]) child(c byte) (*prefixNode[V], int) {
	lo, hi := 0, len(n.children)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if n.children[mid].label[0] < c {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(n.children) && n.children[lo].label[0] == c {
		return n.children[lo], lo
	}
	return nil, lo
}

// next returns the child of n on the way to s (whose label is a prefix of
// s) and what is left of s after that label, or nil when there is none.
func (n *prefixNode[V]) next(s string) (*prefixNode[V], string) {
	if s == "" {
		return nil, ""
	}
	c, _ := n.child(s[0])
	if c == nil || !hasPrefix(s, c.label) {
		return nil, ""
	}
	return c, s[len(c.label):]
}

// find returns the node that spells pattern exactly, or nil.
func (n *prefixNode[V]) find(pattern string) *prefixNode[V] {
	for rest := pattern; rest != ""; {
		if n, rest = n.next(rest); n == nil {
			return nil
		}
	}
	return n
}

// walk calls fn for every stored pattern that is a prefix of uri, shortest
// first, and reports false as soon as fn does.
func (n *prefixNode[V]) walk(uri string, fn func(string, Match, V) bool) bool {
	for rest := uri; n != nil; n, rest = n.next(rest) {
		if n.set && !fn(n.pattern, Prefix, n.val) {
			return false
		}
	}
	return true
}

// longest returns the node of the longest stored pattern that is a prefix
// of uri, or nil.
func (n *prefixNode[V]) longest(uri string) *prefixNode[V] {
	var best *prefixNode[V]
	for rest := uri; n != nil; n, rest = n.next(rest) {
		if n.set {
			best = n
		}
	}
	return best
}

// insert stores v for pattern below n (the root) and reports whether the
// pattern is new.
func (n *prefixNode[V]) insert(pattern string, v V) bool {
	rest := pattern
	for rest != "" {
		c, i := n.child(rest[0])
		if c == nil {
			c = &prefixNode[V]{label: strings.Clone(rest)}
			n.children = slices.Insert(n.children, i, c)
		} else if l := commonPrefixLen(rest, c.label); l < len(c.label) {
			c = n.split(i, l)
		}
		rest = rest[len(c.label):]
		n = c
	}
	added := !n.set
	n.set, n.pattern, n.val = true, pattern, v
	return added
}

// split cuts the label of child i after l bytes (0 < l < len(label)) and
// returns the new node that holds the first part.
func (n *prefixNode[V]) split(i, l int) *prefixNode[V] {
	c := n.children[i]
	mid := &prefixNode[V]{label: strings.Clone(c.label[:l]), children: []*prefixNode[V]{c}}
	c.label = c.label[l:]
	n.children[i] = mid
	return mid
}

// remove deletes the value for rest (the part of the pattern below n) and
// reports whether there was one. It prunes nodes left without a value or
// children and merges a valueless node into its only child, so the tree
// stays what a fresh sequence of inserts of the remaining patterns builds.
func (n *prefixNode[V]) remove(rest string) bool {
	if rest == "" {
		if !n.set {
			return false
		}
		var zero V
		n.set, n.pattern, n.val = false, "", zero
		return true
	}
	c, i := n.child(rest[0])
	if c == nil || !hasPrefix(rest, c.label) || !c.remove(rest[len(c.label):]) {
		return false
	}
	switch {
	case !c.set && len(c.children) == 0:
		n.children = slices.Delete(n.children, i, i+1)
	case !c.set && len(c.children) == 1:
		only := c.children[0]
		only.label = c.label + only.label
		n.children[i] = only
	}
	return true
}

// all calls fn for every pattern stored at or below n, in byte order, and
// reports false as soon as fn does.
func (n *prefixNode[V]) all(fn func(string, Match, V) bool) bool {
	if n.set && !fn(n.pattern, Prefix, n.val) {
		return false
	}
	for _, c := range n.children {
		if !c.all(fn) {
			return false
		}
	}
	return true
}

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
