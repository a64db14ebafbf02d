package embedded

import (
	bolt "go.etcd.io/bbolt"

	"agentmem/memory"
	"agentmem/memory/hybrid"
)

// The text index holds a document per memory (hybrid.Doc), derived from
// its record. Writes journal the keys of the documents they change, so a
// replay, or a rebuild, derives them again from the records.

// keysOf lists the index keys of the memories ms, each once: the documents
// a write or a delete of them changes.
func keysOf(ms []memory.Memory) []string {
	seen := make(map[string]bool, len(ms))
	keys := make([]string, 0, len(ms))
	for _, m := range ms {
		if k := key(m.Namespace, m.ID); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// derive reads from tx the documents of keys; keys whose record is gone
// are returned as deletions (so is a session page's key, journalled by an
// agentmem that indexed pages: it names no record).
func derive(tx *bolt.Tx, keys []string) (docs map[string]hybrid.IndexDoc, deletes []string, err error) {
	mem := tx.Bucket(bucketMem)
	docs = make(map[string]hybrid.IndexDoc, len(keys))
	for _, k := range keys {
		m, err := getMemory(mem, []byte(k))
		if err != nil {
			return nil, nil, err
		}
		if m == nil {
			deletes = append(deletes, k)
			continue
		}
		docs[k] = hybrid.Doc(*m)
	}
	return docs, deletes, nil
}
