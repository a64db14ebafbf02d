package embedded

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2/search/query"

	"agentmem/memory/hybrid"
	"agentmem/memory/internal/boltfile"
)

// A text index found damaged by a search is rebuilt from the records and
// the search run again (Search): reads of an index go through read, which
// turns a failure into an indexDamage, and repairText rebuilds.

// indexDamage is a text search that failed on ns's index: on an index
// whose segments fail their checksums (checkSegments), damage; on one
// whose segments pass, maybe damage too (bleve's merger folds a damaged
// segment into a new one with a good checksum), maybe a bug. Either way
// the index is rebuilt from the records, the second kind at most once
// per index while the store is open (gen: the rebuilds it had seen).
type indexDamage struct {
	ns, why  string
	checksum bool   // a segment fails its checksum
	gen      uint64 // t.rebuilds when the search read it
	err      error
}

func (d *indexDamage) Error() string {
	return fmt.Sprintf("the text index of namespace %q is damaged (%s): %v", d.ns, d.why, d.err)
}

// textSide runs the text side of a search (read).
func (t *textIndex) textSide(ctx context.Context, tq query.Query, n int) (text []hybrid.Ranked, err error) {
	err = t.read(ctx, func() (err error) { text, err = t.textTop(ctx, tq, n); return err })
	return text, err
}

// textFault, when set (tests), runs before each read of an index, as a
// damaged segment would fail it.
var textFault func() error

// read runs fn, a read of t's index. A failure (an error, or a panic or a
// fault on a damaged segment) is an indexDamage, which Search repairs.
func (t *textIndex) read(ctx context.Context, fn func() error) (err error) {
	boltfile.Guard(func() {
		if textFault != nil {
			if err = textFault(); err != nil {
				return
			}
		}
		err = fn()
	}, func(p any) { err = fmt.Errorf("text search: %v", p) })
	if err == nil || ctx.Err() != nil {
		return err
	}
	r := &Report{}
	checkSegments(t.path, t.ns, liveSegments(t.idx), r)
	if len(r.Index) > 0 {
		return &indexDamage{ns: t.ns, why: r.Index[0], checksum: true, gen: t.rebuilds, err: err}
	}
	return &indexDamage{ns: t.ns, why: "a search of it failed, its segments' checksums good", gen: t.rebuilds, err: err}
}

// repairText rebuilds ns's index from the records after d, unless another
// search has rebuilt it since d's read, or d is a failure on good
// checksums that a rebuild since Open already met once: then it is no
// damage the records can repair, and d's error is the answer.
func (s *Store) repairText(ctx context.Context, ns string, d *indexDamage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.texts[ns]
	switch {
	case t == nil:
		return d
	case t.rebuilds != d.gen:
		return nil // rebuilt since: search again
	case !d.checksum && t.rebuilds > 0:
		return fmt.Errorf("%w (its index was rebuilt from the records once already; `agentmem check` says whether it is damaged)", d.err)
	}
	// not cancelled with the call that met the damage: a rebuild left
	// part way is only rebuilt again at the next use
	if err := s.rebuildStale(context.WithoutCancel(ctx), map[string]string{ns: d.Error()}); err != nil {
		return fmt.Errorf("%w; rebuilding it: %v", d, err)
	}
	t.rebuilds++
	return nil
}
