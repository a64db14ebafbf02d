package peers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/client"
)

// ServerMemory adapts @modelcontextprotocol/server-memory, the reference
// knowledge-graph memory: entities (name, entityType, observations) and
// relations, kept in one JSONL file; search_nodes keeps the entities whose
// name, type or an observation contains the query as a substring (case
// insensitive), in insertion order, with no ranking and no limit.
//
// Its best shot, as this adapter gives it:
//   - one entity per turn, so a result is one turn and not a whole session
//     or a whole person: name = the turn's opaque code (punctuation only, so
//     no keyword matches a name), entityType = the speaker (or role), one
//     observation = Render(turn), "[2023-05-08 Mon] Caroline: …". The
//     speaker is in the observation anyway, so the type adds no match.
//   - one create_entities call per session (the server rewrites its whole
//     file on every call).
//   - the question is never sent whole (it is never a substring of a turn):
//     one search_nodes per keyword (Keywords), and the adapter ranks the
//     union of the results by the sum over matched keywords of
//     log(1 + N/df), N the turns stored and df how many entities the
//     keyword matched, so rare words count more, ties in the server's order.
//     This ranking is the adapter's, not the server's (which has none); it
//     is what an agent reading all results would have to do.
type ServerMemory struct {
	l ledger
}

// NewServerMemory returns the adapter.
func NewServerMemory() *ServerMemory { return &ServerMemory{} }

func (*ServerMemory) Name() string { return "server-memory" }

func (*ServerMemory) Package() Package {
	return Package{Name: "@modelcontextprotocol/server-memory", Version: "2026.8.31", Entry: "dist/index.js", MinNode: 18}
}

// Spec points MEMORY_FILE_PATH into dataDir.
func (*ServerMemory) Spec(dataDir string) Spec {
	return Spec{Env: []string{"MEMORY_FILE_PATH=" + filepath.Join(dataDir, "memory.jsonl")}}
}

type smEntity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

// Store creates one entity per turn, one call per session.
func (p *ServerMemory) Store(ctx context.Context, c *client.Client, ns string, turns []Turn) error {
	if err := validate(turns); err != nil {
		return err
	}
	for _, sess := range BySession(turns) {
		var ents []smEntity
		for _, t := range sess {
			code, fresh := p.l.assign(ns, t.Ref)
			if !fresh {
				continue // stored before: the server would skip it too
			}
			typ := cmp.Or(t.Speaker, t.Role)
			ents = append(ents, smEntity{Name: code, EntityType: typ, Observations: []string{Render(t)}})
		}
		if len(ents) == 0 {
			continue
		}
		var created []smEntity
		if err := callJSON(ctx, c, "create_entities", map[string]any{"entities": ents}, &created); err != nil {
			return fmt.Errorf("session %s: %w", sess[0].SessionID, err)
		}
		if len(created) != len(ents) {
			return malformed("session %s: create_entities created %d of %d entities", sess[0].SessionID, len(created), len(ents))
		}
	}
	return nil
}

// Search runs one search_nodes per keyword and ranks the union.
func (p *ServerMemory) Search(ctx context.Context, c *client.Client, ns string, question string, k int) ([]Hit, error) {
	if err := checkK(k); err != nil {
		return nil, err
	}
	n := float64(p.l.count(ns))
	type ranked struct {
		code, text string
		score      float64
	}
	var rs []ranked        // in the order the server first returned them
	at := map[string]int{} // code -> index in rs
	for _, kw := range Keywords(question) {
		var g struct {
			Entities []smEntity `json:"entities"`
		}
		if err := callJSON(ctx, c, "search_nodes", map[string]any{"query": kw}, &g); err != nil {
			return nil, err
		}
		if len(g.Entities) == 0 {
			continue
		}
		w := math.Log(1 + n/float64(len(g.Entities)))
		for _, e := range g.Entities {
			i, ok := at[e.Name]
			if !ok {
				i = len(rs)
				at[e.Name] = i
				rs = append(rs, ranked{code: e.Name, text: strings.Join(e.Observations, "\n")})
			}
			rs[i].score += w
		}
	}
	// best first; a stable sort leaves ties in the server's order
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
	var hits []Hit
	for _, r := range rs[:min(k, len(rs))] {
		refs, err := p.l.refs(ns, r.code)
		if err != nil {
			return nil, fmt.Errorf("search_nodes: %w", err)
		}
		hits = append(hits, Hit{Refs: refs, Text: r.text})
	}
	return hits, nil
}
