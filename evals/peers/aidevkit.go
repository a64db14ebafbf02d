package peers

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/mark3labs/mcp-go/client"
)

// AIDevkit adapts @ai-devkit/memory, a SQLite memory for coding agents:
// knowledge items (title, content, tags, scope) in a better-sqlite3 file,
// searched with FTS5 and BM25 (title weighted 10, content 5, tags 1): all
// query words as prefixes first, and when nothing matches all of them, any
// of them, ranked by the share of words matched and then BM25. Its
// optional semantic search downloads a model on first use and is off by
// default; it stays off here.
//
// Its best shot, as this adapter gives it:
//   - one item per turn, in the scope "project:<namespace>" (the server's
//     own way to keep projects apart); content = Render(turn); title = the
//     speaker (or role), "on", the date, and the turn's opaque code
//     ("Caroline on 2023-05-08 %*"), since a title is required (10 to 100
//     characters) and must be unique in its scope; the code is punctuation,
//     which the tokenizer drops, so it matches nothing.
//   - the whole question as the query: the server drops stopwords and builds
//     the FTS query itself.
//   - the server's limits are met, not worked around: content shorter than
//     50 characters is padded with dots (not tokens, so BM25 does not see
//     them; they stay in the hit's text), content longer than 5000 is stored
//     as numbered parts that map to the same turn, a query is cut to 500
//     characters at a word boundary, and a search returns at most 20 items
//     (adkMaxK).
//   - a turn whose content is identical to an earlier one (same speaker,
//     date and text) is refused by the server as a duplicate; the adapter
//     then maps the turn to the earlier item, which is how the server keeps it.
type AIDevkit struct {
	l   ledger
	ids sync.Map // namespace + "\x00" + item id -> code
}

// NewAIDevkit returns the adapter.
func NewAIDevkit() *AIDevkit { return &AIDevkit{} }

func (*AIDevkit) Name() string { return "ai-devkit-memory" }

func (*AIDevkit) Package() Package {
	return Package{Name: "@ai-devkit/memory", Version: "0.20.1", Entry: "dist/index.js", MinNode: 20,
		AllowScripts: []string{"better-sqlite3"}}
}

// Spec: the database is $HOME/.ai-devkit/memory.db, and HOME is dataDir;
// the working directory (where a .ai-devkit.json could turn semantic search
// on) is dataDir too.
func (*AIDevkit) Spec(dataDir string) Spec { return Spec{} }

const (
	adkMinContent = 50
	adkMaxContent = 5000
	adkMaxQuery   = 500
	adkMaxK       = 20
)

// scope maps a namespace to a scope the server accepts
// ("project:" + [a-z0-9_-]+), one to one: other characters, upper-case
// letters among them, are escaped as _<hex>_.
func (*AIDevkit) scope(ns string) string {
	var b strings.Builder
	for _, r := range ns {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default: // '_' escapes (and the server lower-cases scopes), so the mapping stays one to one
			fmt.Fprintf(&b, "_%x_", r)
		}
	}
	if b.Len() == 0 {
		b.WriteString("_")
	}
	return "project:" + b.String()
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// adkParts splits a rendered turn into contents the server accepts.
func adkParts(t Turn) []string {
	text := Render(t)
	if utf16Len(text) <= adkMaxContent {
		if n := utf16Len(strings.TrimSpace(text)); n < adkMinContent {
			text = strings.TrimSpace(text) + " " + strings.Repeat(".", adkMinContent-n)
		}
		return []string{text}
	}
	who := cmp.Or(t.Speaker, t.Role)
	// Parts of at most budget UTF-16 units of text, cut at a space when
	// one is near, each with the turn's header.
	const header = 80
	budget := adkMaxContent - header - utf16Len(who)
	var chunks []string
	rest := []rune(t.Text)
	for len(rest) > 0 {
		n, units := 0, 0
		for ; n < len(rest) && units+utf16.RuneLen(rest[n]) <= budget; n++ {
			units += utf16.RuneLen(rest[n])
		}
		if n < len(rest) {
			for i := n; i > n*3/4; i-- {
				if rest[i-1] == ' ' {
					n = i
					break
				}
			}
		}
		chunks = append(chunks, string(rest[:n]))
		rest = rest[n:]
	}
	parts := make([]string, len(chunks))
	for i, c := range chunks {
		parts[i] = fmt.Sprintf("[%s] %s (part %d of %d): %s", t.Date.Format("2006-01-02 Mon"), who, i+1, len(chunks), c)
		if utf16Len(strings.TrimSpace(parts[i])) < adkMinContent {
			parts[i] = strings.TrimSpace(parts[i]) + " " + strings.Repeat(".", adkMinContent)
		}
	}
	return parts
}

type adkError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
	Details struct {
		ExistingID    string `json:"existingId"`
		DuplicateType string `json:"duplicateType"`
	} `json:"details"`
}

// Store stores one item per turn (per part of a long turn).
func (p *AIDevkit) Store(ctx context.Context, c *client.Client, ns string, turns []Turn) error {
	if err := validate(turns); err != nil {
		return err
	}
	scope := p.scope(ns)
	for _, t := range turns {
		code, fresh := p.l.assign(ns, t.Ref)
		if !fresh {
			continue
		}
		who := cmp.Or(t.Speaker, t.Role)
		if r := []rune(who); len(r) > 40 {
			who = string(r[:40])
		}
		parts := adkParts(t)
		for i, content := range parts {
			title := fmt.Sprintf("%s on %s %s", who, t.Date.Format("2006-01-02"), code)
			if len(parts) > 1 {
				title = fmt.Sprintf("%s on %s, part %d %s", who, t.Date.Format("2006-01-02"), i+1, code)
			}
			var res struct {
				ID string `json:"id"`
			}
			err := callJSON(ctx, c, "memory_storeKnowledge", map[string]any{"title": title, "content": content, "scope": scope}, &res)
			if te, ok := errors.AsType[*ToolError](err); ok {
				var e adkError
				if json.Unmarshal([]byte(te.Text), &e) == nil && e.Error == "DUPLICATE_ERROR" && e.Details.DuplicateType == "content" {
					prev, ok := p.ids.Load(ns + "\x00" + e.Details.ExistingID)
					if !ok {
						return malformed("turn %s: the server calls it a duplicate of item %s, which this adapter did not store", t.Ref, e.Details.ExistingID)
					}
					if err := p.l.merge(ns, prev.(string), t.Ref); err != nil {
						return fmt.Errorf("turn %s: %w", t.Ref, err)
					}
					continue
				}
			}
			if err != nil {
				return fmt.Errorf("turn %s: %w", t.Ref, err)
			}
			if res.ID == "" {
				return malformed("turn %s: memory_storeKnowledge returned no id", t.Ref)
			}
			p.ids.Store(ns+"\x00"+res.ID, code)
		}
	}
	return nil
}

// Search sends the question as the query.
func (p *AIDevkit) Search(ctx context.Context, c *client.Client, ns string, question string, k int) ([]Hit, error) {
	if err := checkK(k); err != nil {
		return nil, err
	}
	k = min(k, adkMaxK)
	q := strings.TrimSpace(question)
	if r := []rune(q); len(r) > adkMaxQuery {
		q = string(r[:adkMaxQuery])
		if i := strings.LastIndexByte(q, ' '); i > adkMaxQuery/2 {
			q = q[:i]
		}
	}
	var res struct {
		Results []struct {
			ID      string `json:"id"`
			Title   string `json:"title"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := callJSON(ctx, c, "memory_searchKnowledge", map[string]any{"query": q, "scope": p.scope(ns), "limit": k}, &res); err != nil {
		return nil, err
	}
	var hits []Hit
	at := map[string]int{}
	for _, r := range res.Results {
		f := strings.Fields(r.Title)
		if len(f) == 0 {
			return nil, malformed("memory_searchKnowledge: item %s has an empty title", r.ID)
		}
		code := f[len(f)-1]
		refs, err := p.l.refs(ns, code)
		if err != nil {
			return nil, fmt.Errorf("memory_searchKnowledge: item %s: %w", r.ID, err)
		}
		if i, ok := at[code]; ok { // another part of the same turn
			hits[i].Text += "\n" + r.Content
			continue
		}
		at[code] = len(hits)
		hits = append(hits, Hit{Refs: refs, Text: r.Content})
	}
	return hits, nil
}
