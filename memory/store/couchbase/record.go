package couchbase

import (
	"slices"
	"time"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// Document types, in the "type" field that Couchbase's index mappings key on.
const (
	typeMemory  = "memory"
	typeSession = "session"
	typeMeta    = "meta"
)

// memoryDoc is a memory as stored. Its searchable fields are the search
// kit's hybrid.IndexDoc, inlined, so the Search index maps them exactly as
// the embedded store's bleve index does; Vector holds one vector per window
// of Text.
type memoryDoc struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	hybrid.IndexDoc
	Turn      int         `json:"turn"`
	Timestamp *time.Time  `json:"timestamp,omitempty"`
	Hash      string      `json:"hash"`
	Key       string      `json:"key,omitempty"`
	Embedder  string      `json:"embedder,omitempty"`
	Created   time.Time   `json:"created"`
	Vector    [][]float32 `json:"vector,omitempty"`
}

func newMemoryDoc(m memory.Memory) memoryDoc {
	return memoryDoc{
		Type:      typeMemory,
		ID:        m.ID,
		IndexDoc:  hybrid.Doc(m),
		Turn:      m.Turn,
		Timestamp: m.Timestamp,
		Hash:      m.Hash,
		Key:       m.Key,
		Embedder:  m.Embedder,
		Created:   m.Created,
		Vector:    m.Vectors,
	}
}

// memory returns the stored memory without its vectors: like the embedded
// store, reads hand out what a prompt needs, and vectors stay in the store.
func (d memoryDoc) memory() memory.Memory {
	return memory.Memory{
		ID:          d.ID,
		Namespace:   d.Namespace,
		SessionID:   d.SessionID,
		SessionDate: d.SessionDate,
		Turn:        d.Turn,
		Role:        d.Role,
		Speaker:     d.Speaker,
		Text:        d.Text,
		Timestamp:   d.Timestamp,
		Hash:        d.Hash,
		Key:         d.Key,
		Embedder:    d.Embedder,
		Created:     d.Created,
	}
}

// sessionDoc lists the memories of one session, so reading a session does
// not depend on an index catching up. Its fields are named unlike the
// indexed ones so that no query can match it.
type sessionDoc struct {
	Type    string   `json:"type"`
	NS      string   `json:"ns"`
	Session string   `json:"session"`
	IDs     []string `json:"ids"`
	// Gone marks the turns forgotten by their ids or with their session
	// (memory.ForgottenTurns), and those an import brings
	// (memory.ForgottenMarks): a manifest that holds only marks lists no
	// session, and goes when the session is forgotten with Reimport or its
	// namespace is.
	Gone []goneTurn `json:"gone,omitempty"`
}

// goneTurn is the mark of a forgotten turn: no text.
type goneTurn struct {
	ID   string `json:"mid"`
	Turn int    `json:"pos"`
	Key  string `json:"cid,omitempty"`
	Hash string `json:"sum,omitempty"`
}

// with returns the manifest with ids added, sorted and without duplicates;
// a turn put where one was forgotten (an import) is not forgotten.
func (d sessionDoc) with(ids ...string) sessionDoc {
	d.IDs = append(slices.Clone(d.IDs), ids...)
	slices.Sort(d.IDs)
	d.IDs = slices.Compact(d.IDs)
	if len(d.Gone) > 0 {
		d.Gone = slices.DeleteFunc(slices.Clone(d.Gone), func(g goneTurn) bool { return slices.Contains(ids, g.ID) })
	}
	return d
}

// marked returns the manifest with marks added (an import's), each
// replacing the mark at its position; a mark at a position where the
// manifest lists a memory is left out: the memory wins.
func (d sessionDoc) marked(marks []goneTurn) sessionDoc {
	live := make(map[int]bool, len(d.IDs))
	for _, id := range d.IDs {
		live[turnOf(id)] = true
	}
	at := make(map[int]int, len(d.Gone)) // position -> index in d.Gone
	d.Gone = slices.Clone(d.Gone)
	for i, g := range d.Gone {
		at[g.Turn] = i
	}
	for _, g := range marks {
		i, ok := at[g.Turn]
		switch {
		case live[g.Turn]:
		case ok:
			d.Gone[i] = g
		default:
			at[g.Turn] = len(d.Gone)
			d.Gone = append(d.Gone, g)
		}
	}
	return d
}

// without returns the manifest with the memories gone removed, each
// marked as forgotten.
func (d sessionDoc) without(gone []memoryDoc) sessionDoc {
	ids := map[string]bool{}
	d.Gone = slices.Clone(d.Gone)
	for _, m := range gone {
		ids[m.ID] = true
		d.Gone = append(d.Gone, goneTurn{ID: m.ID, Turn: m.Turn, Key: m.Key, Hash: m.Hash})
	}
	d.IDs = slices.DeleteFunc(slices.Clone(d.IDs), func(id string) bool { return ids[id] })
	return d
}

// metaDoc records the embedder of the stored vectors.
type metaDoc struct {
	Type     string    `json:"type"`
	Embedder string    `json:"embedder"`
	Dims     int       `json:"dims"`
	Recipe   string    `json:"recipe,omitempty"` // absent before it was kept
	Updated  time.Time `json:"updated"`
}
