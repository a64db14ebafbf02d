package peers

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/mark3labs/mcp-go/client"
)

// MemoryKeeper adapts mcp-memory-keeper, a context store for coding
// agents: key/value items in a better-sqlite3 file, in sessions and
// channels, with a LIKE search (context_search) and a "semantic" search
// (context_semantic_search) over vectors the server computes itself with
// no model: 384 dimensions filled by hashing the character trigrams and
// the words of "key: value", compared by cosine.
//
// Its best shot, as this adapter gives it:
//   - one item per turn, key = the turn's opaque code, in the only
//     punctuation the server accepts in a key ("_-.", base 3: 7 characters
//     for a thousand turns, and a final "_", since a key ending in "--" is
//     refused as an SQL comment), value = Render(turn); one context_batch_save
//     call per 100 turns (the server's limit). The key is part of the text
//     the server vectorises ("key: value"); punctuation trigrams never
//     match a question's, but they do add a little to every item's norm.
//   - the whole question to context_semantic_search with topK = k and
//     minSimilarity = 0 (the default 0.3 would return fewer than k), since
//     a LIKE search would need the question as one substring.
//   - one server process per unit: the search runs in the server's
//     current session, which it creates at start.
//
// The search prints at most 200 characters of each value, followed by
// "..." when cut: that is the text the hit carries, and all an agent
// would read.
type MemoryKeeper struct {
	l ledger
}

// NewMemoryKeeper returns the adapter.
func NewMemoryKeeper() *MemoryKeeper { return &MemoryKeeper{l: ledger{digits: keeperDigits}} }

func (*MemoryKeeper) Name() string { return "memory-keeper" }

func (*MemoryKeeper) Package() Package {
	return Package{Name: "mcp-memory-keeper", Version: "0.14.1", Entry: "dist/index.js", MinNode: 20,
		AllowScripts: []string{"better-sqlite3"}}
}

// Spec: the database is $DATA_DIR/context.db.
func (*MemoryKeeper) Spec(dataDir string) Spec {
	return Spec{Env: []string{"DATA_DIR=" + dataDir}}
}

const mkBatch = 100

// mkKeyEnd ends every key: the server refuses a key that ends in "--" (as
// an SQL comment).
const mkKeyEnd = "_"

// Store saves one item per turn, 100 per call.
func (p *MemoryKeeper) Store(ctx context.Context, c *client.Client, ns string, turns []Turn) error {
	if err := validate(turns); err != nil {
		return err
	}
	var items []map[string]any
	flush := func() error {
		if len(items) == 0 {
			return nil
		}
		var res struct {
			Succeeded int `json:"succeeded"`
			Failed    int `json:"failed"`
			Errors    []struct {
				Key   string `json:"key"`
				Error string `json:"error"`
			} `json:"errors"`
		}
		if err := callJSON(ctx, c, "context_batch_save", map[string]any{"items": items}, &res); err != nil {
			return err
		}
		if res.Failed > 0 || res.Succeeded != len(items) {
			msg := ""
			if len(res.Errors) > 0 {
				msg = fmt.Sprintf(": first error, key %q: %s", res.Errors[0].Key, res.Errors[0].Error)
			}
			return fmt.Errorf("context_batch_save: %d of %d items saved%s", res.Succeeded, len(items), msg)
		}
		items = items[:0]
		return nil
	}
	for _, t := range turns {
		code, fresh := p.l.assign(ns, t.Ref)
		if !fresh {
			continue
		}
		items = append(items, map[string]any{"key": code + mkKeyEnd, "value": Render(t)})
		if len(items) == mkBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

var mkResult = regexp.MustCompile(`(?m)^\d+\. \[[0-9.]+% match\]\n   Key: (\S+)\n   Value: `)
var mkMeta = regexp.MustCompile(`\n   (Category: [^\n]*)?(, Priority: [^\n]*)?\n*$`)

// Search asks context_semantic_search.
func (p *MemoryKeeper) Search(ctx context.Context, c *client.Client, ns string, question string, k int) ([]Hit, error) {
	if err := checkK(k); err != nil {
		return nil, err
	}
	text, err := call(ctx, c, "context_semantic_search", map[string]any{"query": question, "topK": k, "minSimilarity": 0})
	if err != nil {
		return nil, err
	}
	return p.parse(ns, text, k)
}

// parse reads the text context_semantic_search prints.
func (p *MemoryKeeper) parse(ns, text string, k int) ([]Hit, error) {
	if strings.HasPrefix(text, "No results found") {
		return nil, nil
	}
	if !strings.HasPrefix(text, "Found ") {
		return nil, malformed("context_semantic_search: unexpected result: %s", Tail(text, 300))
	}
	locs := mkResult.FindAllStringSubmatchIndex(text, -1)
	var hits []Hit
	seen := map[string]bool{}
	for i, m := range locs {
		code, ok := strings.CutSuffix(text[m[2]:m[3]], mkKeyEnd)
		if !ok {
			return nil, malformed("context_semantic_search: key %q is not one this adapter stores", text[m[2]:m[3]])
		}
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		value := mkMeta.ReplaceAllString(text[m[1]:end], "")
		if seen[code] {
			continue
		}
		seen[code] = true
		refs, err := p.l.refs(ns, code)
		if err != nil {
			return nil, fmt.Errorf("context_semantic_search: %w", err)
		}
		hits = append(hits, Hit{Refs: refs, Text: value})
	}
	if len(hits) == 0 {
		return nil, malformed("context_semantic_search: no result could be read in: %s", Tail(text, 300))
	}
	return hits[:min(k, len(hits))], nil
}
