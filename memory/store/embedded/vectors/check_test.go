package vectors

import (
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

func checkErrors(x *Index) []error { return slices.Collect(x.Check()) }

// An index that went through adds, replacements, removals, the inverted
// file's build and retrain, and a save and load checks clean, and gives
// back every memory as it was added.
func TestCheckFindsNothingInAGoodIndex(t *testing.T) {
	c := newCorpus(48, 30, 3)
	for _, approxAt := range []int{-1, 1500} {
		x := mustNew(t, 48, Options{ApproxAt: approxAt})
		ref := map[string]genMem{}
		ms := c.memories(3200, "")
		add(t, x, ref, ms...)
		for i := 0; i < len(ms); i += 7 {
			add(t, x, ref, genMem{id: ms[i].id}) // removed
		}
		add(t, x, ref, c.memories(40, "again")...)
		if approxAt > 0 && !x.Approximate() {
			t.Fatalf("no inverted file at %d rows", x.Rows())
		}
		for _, y := range []*Index{x, reload(t, x, Options{ApproxAt: approxAt})} {
			if errs := checkErrors(y); len(errs) > 0 {
				t.Fatalf("ApproxAt %d: a good index fails its check: %v", approxAt, errs[:min(3, len(errs))])
			}
			if got := slices.Sorted(y.IDs()); !slices.Equal(got, slices.Sorted(maps.Keys(ref))) {
				t.Fatalf("IDs gives %d ids, the index holds %d", len(got), len(ref))
			}
			for id, m := range ref {
				sess, date, ws, ok := y.Memory(id)
				if !ok || sess != m.session || date != m.date || !slices.EqualFunc(ws, m.windows, slices.Equal) {
					t.Fatalf("Memory(%q) = %q %d %d windows %v; added %q %d %d windows", id, sess, date, len(ws), ok, m.session, m.date, len(m.windows))
				}
			}
			if _, _, _, ok := y.Memory(ms[0].id); ok {
				t.Fatalf("Memory of a removed memory says it is there")
			}
		}
	}
}

// Every kind of damage a row or an inverted list can take that the
// snapshot's checksums cannot see (a file changed while mapped, then
// saved again) is found, and named.
func TestCheckFindsDamage(t *testing.T) {
	c := newCorpus(48, 30, 4)
	ms := c.memories(2500, "")
	const r = 123 // a live row (nothing is removed)
	cases := []struct {
		name, want string
		harm       func(x *Index)
	}{
		{"a value changed", "quantisation error", func(x *Index) { x.rowF32(r)[5] += 0.05 }},
		{"the largest value changed", "scale", func(x *Index) {
			f := x.rowF32(r)
			i := 0
			for j := range f {
				if math.Abs(float64(f[j])) > math.Abs(float64(f[i])) {
					i = j
				}
			}
			f[i] *= 1.5
		}},
		{"a value not a number", "not a finite number", func(x *Index) { x.rowF32(r)[0] = float32(math.NaN()) }},
		{"a code changed", "quantisation error", func(x *Index) {
			c := x.rowI8(r)
			c[3] = c[3]/2 + 40
			x.rows[r].sum = sumOf(c) // the sum agrees, so only the error term can tell
		}},
		{"a code sum changed", "code sum", func(x *Index) { x.rows[r].sum++ }},
		{"a row's date changed", "date", func(x *Index) { x.rows[r].date++ }},
		{"the error bound changed", "quantisation error", func(x *Index) { x.rows[r].resid *= 1.01 }},
		{"the norm bound changed", "norm", func(x *Index) { x.rows[r].norm *= 0.99 }},
		{"the padding not zero", "padding", func(x *Index) { x.rowI8(r)[x.dims+1] = 1 }},
		{"a list's copy of a code changed", "another code", func(x *Index) {
			v := x.ivf
			l, p := v.of[r], int(v.pos[r])
			v.lcodes[l][p*x.stride+2]++
		}},
		{"a list's copy of the terms changed", "other terms", func(x *Index) {
			v := x.ivf
			v.lmeta[v.of[r]][v.pos[r]].scale *= 2
		}},
		{"a row in no list", "hold", func(x *Index) { x.ivf.remove(r, x.stride) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := mustNew(t, 48, Options{ApproxAt: 2000})
			add(t, x, map[string]genMem{}, ms...)
			if !x.Approximate() {
				t.Fatal("no inverted file")
			}
			tc.harm(x)
			errs := checkErrors(x)
			if len(errs) == 0 {
				t.Fatal("the damage was not found")
			}
			msgs := []string{}
			for _, err := range errs {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("%v does not wrap ErrCorrupt", err)
				}
				msgs = append(msgs, err.Error())
			}
			if !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
				t.Fatalf("found %q; want a problem naming %q", msgs, tc.want)
			}
		})
	}
}

func sumOf(c []int8) (s int32) {
	for _, v := range c {
		s += int32(v)
	}
	return s
}
