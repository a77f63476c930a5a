package codec

import (
	"bytes"
	"math"
)

// cborChecker validates CBOR without building values: it accepts exactly
// what cborDecoder accepts, and tells whether the bytes may pass through to
// a CBOR receiver unchanged. They may not when decoding changes what a
// receiver sees: a tag (a date/time becomes text, a bignum a number, any
// other tag is dropped), undefined (becomes null), an integer below
// math.MinInt64 (becomes a float), a null, undefined or tagged map key
// (becomes ""), a repeated key (decoding keeps one), and, conservatively,
// an indefinite-length key and a map whose keys cannot all be compared for
// repeats (more than cborCheckedKeys keys open at once). Floats of every
// width, indefinite lengths and longer-than-needed heads pass: a receiver
// reads the same values from them.
type cborChecker struct {
	cborScanner
	passable bool
	keys     [cborCheckedKeys]cborSpan // keys of the maps being read, for repeats
	nkeys    int
}

// cborCheckedKeys is how many keys of the maps being read (a map and those
// it is nested in) the checker compares for repeats.
const cborCheckedKeys = 64

// cborSpan is a map key's text in the input.
type cborSpan struct{ off, n int }

// cborValidate reports whether b is one CBOR value that the decoder accepts
// as an element of a message array (a payload's Arguments or ArgumentsKw,
// at level 2), and whether it may pass through unchanged (see
// cborChecker). It allocates nothing unless the value holds a date/time
// tag (tag 0), whose text the standard library parses.
func cborValidate(b []byte) (ok, passable bool) {
	n, ok, passable := cborNext(b)
	if n != len(b) {
		return false, false
	}
	return ok, passable
}

// cborNext is cborValidate for the value at the start of b, followed by
// anything: it returns the value's length too, to walk a message's
// elements.
func cborNext(b []byte) (n int, ok, passable bool) {
	c := cborChecker{cborScanner: cborScanner{b: b}, passable: true}
	c.value(2)
	ok = c.ok()
	return c.i, ok, ok && c.passable
}

// value checks one value; depth is the level a container would have.
func (c *cborChecker) value(depth int) {
	major, ai, arg := c.head()
	if !c.ok() {
		return
	}
	switch major {
	case majorNeg:
		if arg > math.MaxInt64 {
			c.passable = false
		}
	case majorBytes, majorText:
		c.str(major, ai, arg)
	case majorArray:
		c.array(ai, arg, depth)
	case majorMap:
		c.dict(ai, arg, depth)
	case majorTag:
		c.passable = false
		c.tagged(arg, depth)
	case majorOther:
		c.simple(ai)
	}
}

func (c *cborChecker) simple(ai byte) {
	switch ai {
	case 20, 21, 22, 25, 26, 27:
	case 23: // undefined
		c.passable = false
	default:
		c.fail("unsupported simple value")
	}
}

// str checks a string's content after its head.
func (c *cborChecker) str(major, ai byte, n uint64) {
	if ai != aiIndefinite {
		c.content(major, n)
		return
	}
	for _, ok := c.chunk(major); ok; _, ok = c.chunk(major) {
	}
}

func (c *cborChecker) array(ai byte, n uint64, depth int) {
	if !c.level(depth) {
		return
	}
	indefinite := ai == aiIndefinite
	for i := uint64(0); c.more(indefinite, i, n); i++ {
		c.value(depth + 1)
	}
}

func (c *cborChecker) dict(ai byte, n uint64, depth int) {
	if !c.level(depth) {
		return
	}
	base := c.nkeys
	indefinite := ai == aiIndefinite
	for i := uint64(0); c.more(indefinite, i, n); i++ {
		c.key(depth+1, base)
		c.value(depth + 1)
	}
	c.nkeys = base
}

// key checks a map key; the keys of this map so far are c.keys[base:].
func (c *cborChecker) key(depth, base int) {
	ai, n, null, tagged := c.keyHead(depth)
	switch {
	case !c.ok():
	case null:
		c.passable = false
	case ai == aiIndefinite || tagged:
		c.passable = false
		c.str(majorText, ai, n)
	default:
		c.noteKey(c.content(majorText, n), base)
	}
}

// noteKey records the key p, just read, unless it repeats one of this map
// or no more keys can be recorded: the value cannot pass then.
func (c *cborChecker) noteKey(p []byte, base int) {
	if !c.passable || !c.ok() {
		return
	}
	for _, k := range c.keys[base:c.nkeys] {
		if bytes.Equal(c.b[k.off:k.off+k.n], p) {
			c.passable = false
			return
		}
	}
	if c.nkeys == len(c.keys) {
		c.passable = false
		return
	}
	c.keys[c.nkeys] = cborSpan{off: c.i - len(p), n: len(p)}
	c.nkeys++
}

// tagged checks the value of a tag (its number read) and of the tags
// nested in it, as cborDecoder.tagged reads it.
func (c *cborChecker) tagged(num uint64, depth int) {
	num, depth = c.tagChain(num, depth)
	if !c.ok() {
		return
	}
	switch num {
	case 0:
		c.dateTime()
	case 1:
		if t, ok := epochTime(c.head()); c.ok() && (!ok || !timeWritable(t)) {
			c.fail("invalid date/time")
		}
	case 2, 3:
		c.bignum(num == 3)
	default:
		c.value(depth)
	}
}

func (c *cborChecker) dateTime() {
	_, ai, n := c.head()
	s := c.text(ai, n)
	if !c.ok() {
		return
	}
	if t, err := rfc3339Time(s); err != nil || !timeWritable(t) {
		c.fail("invalid date/time")
	}
}

func (c *cborChecker) bignum(negative bool) {
	_, ai, n := c.head()
	var r bignumRange
	if ai != aiIndefinite {
		r.add(c.content(majorBytes, n))
	} else {
		for p, ok := c.chunk(majorBytes); ok; p, ok = c.chunk(majorBytes) {
			r.add(p)
		}
	}
	if c.ok() && !r.inRange(negative) {
		c.fail("bignum out of range")
	}
}
