package embedded

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// The text index holds two kinds of documents, both derived from the
// records: a document per memory (hybrid.Doc, with its neighbouring turns
// as context) and a document per page of a session (hybrid.Page). The
// context and the pages serve only weights.neighbours and weights.session,
// off by default, and cost about twice the ingest time: they are indexed only when
// Options.Context is set; otherwise a memory's document has no context and
// there are no pages. Writes
// journal the keys of every document they change, so a replay, or a
// rebuild, derives them again from the records.

// pageMark starts the id part of a page's key: memory ids never hold it.
const pageMark = "\x00page\x1f"

// pageKey is the index key of page p of a session.
func pageKey(ns, session string, p int) string {
	return ns + "\x1f" + pageMark + session + "\x1f" + strconv.Itoa(p)
}

// parsePageKey is the inverse of pageKey; ok is false for a memory's key.
func parsePageKey(k string) (ns, session string, p int, ok bool) {
	ns, rest, found := strings.Cut(k, "\x1f")
	if !found || !strings.HasPrefix(rest, pageMark) {
		return "", "", 0, false
	}
	rest = rest[len(pageMark):]
	i := strings.LastIndexByte(rest, '\x1f')
	if i < 0 {
		return "", "", 0, false
	}
	p, err := strconv.Atoi(rest[i+1:])
	if err != nil {
		return "", "", 0, false
	}
	return ns, rest[:i], p, true
}

// affected lists the index keys whose documents change when the memories
// ms are written or deleted in tx: the memories' own keys, the nearest
// turns before and after each run of them in its session (their context
// changes), and the pages that hold them. It is called after a write and
// before a delete: bbolt's cursors can loop forever moving backwards over
// leaves emptied earlier in the same transaction, so no cursor moves back
// over a bucket after deletes in it. It reads only the window of each
// session around the turns, so appending to a long session costs the same
// as to a short one. Without context (withContext false) only the memories'
// own keys are affected.
func affected(tx *bolt.Tx, ms []memory.Memory, withContext bool) []string {
	seen := map[string]bool{}
	var keys []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	type group struct {
		ns, session string
		turns       []int
	}
	var groups []*group
	byName := map[string]*group{}
	for _, m := range ms {
		add(key(m.Namespace, m.ID))
		if !withContext {
			continue
		}
		add(pageKey(m.Namespace, m.SessionID, hybrid.PageOf(m.Turn)))
		name := m.Namespace + "\x1f" + m.SessionID
		g := byName[name]
		if g == nil {
			g = &group{ns: m.Namespace, session: m.SessionID}
			byName[name] = g
			groups = append(groups, g)
		}
		g.turns = append(g.turns, m.Turn)
	}
	sess := tx.Bucket(bucketSession)
	for _, g := range groups {
		slices.Sort(g.turns)
		changed := map[int]bool{}
		for _, t := range g.turns {
			changed[t] = true
		}
		// a stored turn next to a written (or deleted) one is affected
		win := sessionWindow(sess, g.ns, g.session, g.turns[0], g.turns[len(g.turns)-1])
		for i, st := range win {
			if changed[st.turn] {
				continue
			}
			if i > 0 && changed[win[i-1].turn] || i+1 < len(win) && changed[win[i+1].turn] {
				add(key(g.ns, st.id))
			}
		}
	}
	return keys
}

type storedTurn struct {
	turn int
	id   string
}

// sessionWindow is the stored turns of a session from the last one before
// lo (or lo) to the first one after hi (or hi), in order.
func sessionWindow(sess *bolt.Bucket, ns, session string, lo, hi int) []storedTurn {
	prefix := sessionPrefix(ns, session)
	inSession := func(k []byte) bool { return len(k) == len(prefix)+4 && bytes.HasPrefix(k, prefix) }
	var out []storedTurn
	c := sess.Cursor()
	k, v := c.Seek(sessionKey(ns, session, lo))
	// one step back: the turn before lo
	var pk, pv []byte
	if k == nil {
		pk, pv = c.Last()
	} else {
		pk, pv = c.Prev()
	}
	if pk != nil && inSession(pk) {
		out = append(out, storedTurn{turnOf(pk), string(pv)})
	}
	k, v = c.Seek(sessionKey(ns, session, lo)) // back where the seek was
	for ; k != nil && inSession(k); k, v = c.Next() {
		t := turnOf(k)
		out = append(out, storedTurn{t, string(v)})
		if t > hi {
			break
		}
	}
	return out
}

// neighbourIDs are the ids of the nearest stored turns before and after
// turn n of a session ("" where there is none).
func neighbourIDs(sess *bolt.Bucket, ns, session string, n int) (prev, next string) {
	for _, st := range sessionWindow(sess, ns, session, n, n) {
		switch {
		case st.turn < n:
			prev = st.id
		case st.turn > n && next == "":
			next = st.id
		}
	}
	return prev, next
}

func turnOf(sessionKey []byte) int {
	return int(binary.BigEndian.Uint32(sessionKey[len(sessionKey)-4:]))
}

// derive reads from tx the documents of keys: a memory's document with its
// neighbours, or a page's; keys whose record (or page) is gone are returned
// as deletions. Without context (withContext false) a memory's document has
// no neighbours and every page is a deletion (one left by an index built
// with context, or journalled by a store that had it).
func derive(tx *bolt.Tx, keys []string, withContext bool) (docs map[string]any, deletes []string, err error) {
	mem, sess := tx.Bucket(bucketMem), tx.Bucket(bucketSession)
	docs = make(map[string]any, len(keys))
	// a turn is read by its own document, its neighbours' and its page's:
	// each is decoded once, and its entities extracted once
	var dv hybrid.Deriver
	loaded := make(map[string]*memory.Memory, len(keys))
	load := func(ns, id string) (*memory.Memory, error) {
		k := key(ns, id)
		if m, ok := loaded[k]; ok {
			return m, nil
		}
		m, err := getMemory(mem, []byte(k))
		if err == nil {
			loaded[k] = m
		}
		return m, err
	}
	for _, k := range keys {
		if ns, session, p, ok := parsePageKey(k); ok {
			if !withContext {
				deletes = append(deletes, k)
				continue
			}
			var turns []memory.Memory
			prefix := sessionPrefix(ns, session)
			c := sess.Cursor()
			for sk, id := c.Seek(sessionKey(ns, session, p*hybrid.PageTurns)); sk != nil && len(sk) == len(prefix)+4 && bytes.HasPrefix(sk, prefix) && hybrid.PageOf(turnOf(sk)) == p; sk, id = c.Next() {
				m, err := load(ns, string(id))
				if err != nil {
					return nil, nil, err
				}
				if m != nil {
					turns = append(turns, *m)
				}
			}
			if len(turns) == 0 {
				deletes = append(deletes, k)
			} else {
				docs[k] = dv.Page(turns)
			}
			continue
		}
		ns, id := splitKey(k)
		m, err := load(ns, id)
		if err != nil {
			return nil, nil, err
		}
		if m == nil {
			deletes = append(deletes, k)
			continue
		}
		var n hybrid.Neighbours
		if !withContext {
			docs[k] = dv.Doc(*m, n)
			continue
		}
		prev, next := neighbourIDs(sess, ns, m.SessionID, m.Turn)
		if prev != "" {
			if n.Prev, err = load(ns, prev); err != nil {
				return nil, nil, err
			}
		}
		if next != "" {
			if n.Next, err = load(ns, next); err != nil {
				return nil, nil, err
			}
		}
		docs[k] = dv.Doc(*m, n)
	}
	return docs, deletes, nil
}
