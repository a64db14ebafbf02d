package peers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// codeDigits are the digits of the opaque codes adapters give stored turns
// where a peer needs a name, key or title of its own: ASCII punctuation
// only, so that no keyword (letters and digits) can match a code in a
// substring search, a full-text tokenizer drops it, and no benchmark id
// reaches a peer. None of them is a space or a colon.
const codeDigits = "%*+,-./=?@^_"

// keeperDigits are the digits of memory-keeper's codes: it accepts only
// letters, digits and "_-./:" in a key, and a colon would cut its results.
// Without "/" no code can hold "../", which it refuses too.
const keeperDigits = "_-."

// encodeIn writes n in base len(digits).
func encodeIn(digits string, n int) string {
	b := len(digits)
	var out []byte
	for {
		out = append(out, digits[n%b])
		n /= b
		if n == 0 {
			break
		}
	}
	slices.Reverse(out)
	return string(out)
}

// decodeIn reads a code of digits; ok is false when s is not one.
func decodeIn(digits, s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(digits, s[i])
		if d < 0 {
			return 0, false
		}
		n = n*len(digits) + d
	}
	return n, true
}

// ledger maps each namespace's codes to the turns they hold.
type ledger struct {
	// digits are the codes' digits; "" means codeDigits.
	digits string

	mu sync.Mutex
	ns map[string]*table
}

func (l *ledger) encode(n int) string { return encodeIn(cmp.Or(l.digits, codeDigits), n) }

func (l *ledger) decode(s string) (int, bool) { return decodeIn(cmp.Or(l.digits, codeDigits), s) }

type table struct {
	refs  [][]string     // by ordinal
	byRef map[string]int // ref -> ordinal
}

func (l *ledger) table(ns string) *table {
	if l.ns == nil {
		l.ns = map[string]*table{}
	}
	t := l.ns[ns]
	if t == nil {
		t = &table{byRef: map[string]int{}}
		l.ns[ns] = t
	}
	return t
}

// assign returns the code of ref in ns, giving it a new one if it has none;
// fresh is true for a new code.
func (l *ledger) assign(ns, ref string) (code string, fresh bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.table(ns)
	if n, ok := t.byRef[ref]; ok {
		return l.encode(n), false
	}
	n := len(t.refs)
	t.refs = append(t.refs, []string{ref})
	t.byRef[ref] = n
	return l.encode(n), true
}

// merge records that the peer keeps ref inside the memory of code (the peer
// merged an identical text into an earlier memory): ref's own code, if it
// has one, is retired.
func (l *ledger) merge(ns, code, ref string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.table(ns)
	n, ok := l.decode(code)
	if !ok || n >= len(t.refs) {
		return fmt.Errorf("merge: %q is not a code stored in namespace %q", code, ns)
	}
	if old, ok := t.byRef[ref]; ok && old != n {
		t.refs[old] = nil
	}
	if !slices.Contains(t.refs[n], ref) {
		t.refs[n] = append(t.refs[n], ref)
	}
	t.byRef[ref] = n
	return nil
}

// refs returns the turns held by code in ns.
func (l *ledger) refs(ns, code string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.table(ns)
	n, ok := l.decode(code)
	if !ok || n >= len(t.refs) || len(t.refs[n]) == 0 {
		return nil, malformed("the peer returned %q, which the adapter did not store in namespace %q", code, ns)
	}
	return t.refs[n], nil
}

// count is how many codes ns has.
func (l *ledger) count(ns string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.table(ns).refs)
}
