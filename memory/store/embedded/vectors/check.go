package vectors

import (
	"iter"
	"math"
	"slices"
)

// Check verifies what Load cannot see from a snapshot's structure and
// checksums: that every live row's date is its memory's, its values are
// finite, that its int8 code
// and the terms the exact re-score relies on (scale, code sum, the bounds
// on its quantisation error and on its code's norm) are those of its own
// float32 values, and that the inverted file holds every live row once,
// with a copy of its code and terms equal to the row's. A snapshot written
// after its mapped file was changed in place passes Load's checksums but
// not this. Errors wrap ErrCorrupt; the caller stops when it has seen
// enough. It only reads, as a search does.
func (x *Index) Check() iter.Seq[error] {
	return func(yield func(error) bool) {
		for r := range x.rows {
			if x.rows[r].mem < 0 {
				continue
			}
			if why := x.checkRow(int32(r)); why != "" {
				if !yield(corrupt("row %d (memory %q): %s", r, x.mems[x.rows[r].mem].id, why)) {
					return
				}
			}
		}
		if x.ivf != nil {
			x.ivf.check(x, yield)
		}
	}
}

// errorTol is the relative slack allowed between a stored error term and
// the one recomputed here: the sums may round differently where a compiler
// fuses multiply-adds (another architecture than the writer's).
const errorTol = 1e-5

// checkRow says what is wrong with live row r ("" when nothing).
func (x *Index) checkRow(r int32) string {
	ri, f, code := &x.rows[r], x.rowF32(r), x.rowI8(r)
	if ri.date != x.mems[ri.mem].date {
		return "its date is not its memory's" // what date filters read
	}
	var maxAbs float32
	for _, v := range f {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return "a value is not a finite number"
		}
		maxAbs = max(maxAbs, float32(math.Abs(float64(v))))
	}
	if ri.scale != maxAbs/127 {
		return "its scale is not its values'"
	}
	if slices.ContainsFunc(code[x.dims:], func(c int8) bool { return c != 0 }) {
		return "its code's padding is not zero"
	}
	var sum int32
	var r2, n2 float64
	sc := float64(ri.scale)
	for i, v := range f {
		c := int32(code[i])
		if c < -127 {
			return "its code holds -128"
		}
		sum += c
		h := sc * float64(c)
		d := float64(v) - h
		r2 += d * d
		n2 += h * h
	}
	switch {
	case sum != ri.sum:
		return "its code sum is not its code's"
	case !agrees(float64(ri.resid), math.Sqrt(r2), sc):
		return "its code is not its values' (the quantisation error differs from the one recorded)"
	case !agrees(float64(ri.norm), math.Sqrt(n2), sc):
		return "its code's norm is not the one recorded"
	}
	return ""
}

// agrees says whether a stored bound agrees with the value recomputed,
// up to errorTol (and a little of the scale, for values near zero).
func agrees(stored, got, scale float64) bool {
	slack := errorTol*got + 1e-9*scale
	return stored >= got-slack && stored <= got+slack+float64(math.SmallestNonzeroFloat32)
}

// check verifies the inverted file's lists against x's rows.
func (v *ivf) check(x *Index, yield func(error) bool) {
	seen := 0
	for l, list := range v.lists {
		if len(v.lcodes[l]) != len(list)*x.stride || len(v.lmeta[l]) != len(list) {
			if !yield(corrupt("inverted list %d: %d rows, %d bytes of codes, %d rows of terms", l, len(list), len(v.lcodes[l]), len(v.lmeta[l]))) {
				return
			}
			continue
		}
		for p, r := range list {
			why := ""
			switch ri := &x.rows[r]; {
			case ri.mem < 0:
				why = "is free"
			case v.of[r] != int32(l) || v.pos[r] != int32(p):
				why = "is recorded elsewhere"
			case !slices.Equal(v.lcodes[l][p*x.stride:(p+1)*x.stride], x.rowI8(r)):
				why = "has another code there"
			case v.lmeta[l][p] != (listRow{ri.mem, ri.sum, ri.scale, ri.resid, ri.norm}):
				why = "has other terms there"
			}
			if why != "" && !yield(corrupt("inverted list %d, place %d: row %d %s", l, p, r, why)) {
				return
			}
			seen++
		}
	}
	if seen != x.live {
		yield(corrupt("the inverted lists hold %d rows; %d are live", seen, x.live))
	}
}

// IDs yields the id of every memory in the index. It only reads, as a
// search does, until the iteration ends.
func (x *Index) IDs() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, m := range x.mems {
			if m.id != "" && !yield(m.id) {
				return
			}
		}
	}
}

// Memory returns memory id's session, session date and windows as the
// index holds them (ok false when it holds none). The windows are the
// index's own float32 rows, valid until the next Add, Remove or Release:
// read them, never write them.
func (x *Index) Memory(id string) (session string, date int64, windows [][]float32, ok bool) {
	slot, ok := x.slots[id]
	if !ok {
		return "", 0, nil, false
	}
	m := &x.mems[slot]
	for r := m.first; r >= 0; r = x.rows[r].next {
		windows = append(windows, x.rowF32(r))
	}
	return x.sess.name[m.sess], m.date, windows, true
}
