// Package uriindex maps WAMP URI patterns, each with a match policy
// (exact, prefix or wildcard), to values, and finds the patterns that match
// a URI: all of them for the broker (Index.Match), the single most specific
// one for the dealer and the role authorizer (Index.Best).
//
// URIs and patterns are plain strings; the index does not validate them
// (callers use wamp.ValidURI first), and any string, even an invalid URI,
// gives a well-defined answer. Lookups do not allocate.
package uriindex

// Index maps (pattern, Match) pairs to values of type V. The zero value is
// an empty index ready for use.
//
// An Index is not safe for concurrent use: callers serialise writers and
// readers themselves (typically with a sync.RWMutex, since Match, Best, Get,
// Len and All only read). An Index must not be copied after first use.
type Index[V any] struct {
	exact  map[string]V
	prefix prefixNode[V]
	wild   wildNode[V]
	n      int
}

// Set stores v for pattern under policy m, replacing the value already
// stored for the same (pattern, m), if any. It panics if m is not Exact,
// Prefix or Wildcard (use ParseMatch on untrusted input).
func (x *Index[V]) Set(pattern string, m Match, v V) {
	var added bool
	switch m {
	case Exact:
		added = x.setExact(pattern, v)
	case Prefix:
		added = x.prefix.insert(pattern, v)
	case Wildcard:
		added = x.wild.insert(pattern, v)
	default:
		panic("uriindex: invalid Match " + m.String())
	}
	if added {
		x.n++
	}
}

func (x *Index[V]) setExact(pattern string, v V) bool {
	if x.exact == nil {
		x.exact = make(map[string]V)
	}
	_, had := x.exact[pattern]
	x.exact[pattern] = v
	return !had
}

// Delete removes the value stored for (pattern, m) and reports whether
// there was one.
func (x *Index[V]) Delete(pattern string, m Match) bool {
	var removed bool
	switch m {
	case Exact:
		_, removed = x.exact[pattern]
		delete(x.exact, pattern)
	case Prefix:
		removed = x.prefix.remove(pattern)
	case Wildcard:
		removed = x.wild.remove(pattern, 0)
	}
	if removed {
		x.n--
	}
	return removed
}

// Get returns the value stored for exactly (pattern, m), without matching.
func (x *Index[V]) Get(pattern string, m Match) (V, bool) {
	switch m {
	case Exact:
		v, ok := x.exact[pattern]
		return v, ok
	case Prefix:
		if n := x.prefix.find(pattern); n != nil && n.set {
			return n.val, true
		}
	case Wildcard:
		if n := x.wild.find(pattern); n != nil && n.set {
			return n.val, true
		}
	}
	var zero V
	return zero, false
}

// Len returns the number of (pattern, Match) pairs stored.
func (x *Index[V]) Len() int { return x.n }

// Match calls fn for every stored pattern that matches uri, until fn
// returns false: first the exact pattern, then the prefix patterns from
// the shortest to the longest, then the wildcard patterns from the most to
// the least specific (the order Best ranks them in). fn must not modify x.
func (x *Index[V]) Match(uri string, fn func(pattern string, m Match, v V) bool) {
	if v, ok := x.exact[uri]; ok && !fn(uri, Exact, v) {
		return
	}
	if !x.prefix.walk(uri, fn) {
		return
	}
	x.wild.match(uri, 0, fn)
}

// Best returns the most specific stored pattern that matches uri, as the
// WAMP Advanced Profile ("Pattern-based Registrations") ranks them:
//
//  1. the exact pattern, if stored;
//  2. else the longest matching prefix pattern (all of them are prefixes
//     of uri, so there is exactly one longest);
//  3. else, among the matching wildcard patterns, the one that is concrete
//     where the others are empty furthest to the left: comparing two of
//     them component by component from the left, at the first position
//     where one has a concrete component and the other an empty one, the
//     concrete one wins. For "a1.b2.c33.d4.e5", "a1.b2.c33..e5" beats
//     "a1.b2..d4.e5" (position 3), and for "a1.b2.c88.d4.e5.f6.g7",
//     "a1.b2..d4.e5..g7" beats "a1.b2..d4..f6.g7" (position 5).
//
// Rule 3 is the spec's "longest portion of URI components matched before
// each wildcard", compared portion by portion, and the order in which
// Crossbar's wildcard trie yields matches. Two different wildcard patterns
// matching the same URI always differ at some such position, so the answer
// is unique. ok is false when nothing matches.
func (x *Index[V]) Best(uri string) (pattern string, m Match, v V, ok bool) {
	if v, ok := x.exact[uri]; ok {
		return uri, Exact, v, true
	}
	if n := x.prefix.longest(uri); n != nil {
		return n.pattern, Prefix, n.val, true
	}
	if n := x.wild.first(uri, 0); n != nil {
		return n.pattern, Wildcard, n.val, true
	}
	return "", Exact, v, false
}

// All calls fn for every stored entry, until fn returns false: exact
// patterns, then prefix patterns, then wildcard patterns, each group in no
// particular order. fn must not modify x.
func (x *Index[V]) All(fn func(pattern string, m Match, v V) bool) {
	for p, v := range x.exact {
		if !fn(p, Exact, v) {
			return
		}
	}
	if !x.prefix.all(fn) {
		return
	}
	x.wild.all(fn)
}
