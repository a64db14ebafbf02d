package couchbase

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Document keys. A memory's key is derived from its namespace and its id
// (which is session:turn), so re-ingesting a session rewrites the same
// documents. Names are kept readable when they fit; a name that is too long
// or could be ambiguous is replaced by "#" and a hash of it.
//
//	m|<namespace>|<memory id>     a memory
//	s|<namespace>|<session id>    a session's manifest
//	p|<namespace>|<session id>#<n> page n of a session, written by agentmem
//	                              before session pages were removed; only
//	                              forgetting the namespace still removes them
//	agentmem|meta                 the embedder the vectors were made with
const (
	maxKey     = 250 // bytes in a Couchbase document key
	maxNSPart  = 128 // bytes of a namespace kept verbatim
	sep        = "|" // not allowed in namespaces, so the first two split a key unambiguously
	kindMemory = "m"
	kindSess   = "s"
	kindPage   = "p"
	metaKey    = "agentmem" + sep + "meta"
)

func memoryKey(ns, id string) string    { return key(kindMemory, ns, id) }
func sessionKey(ns, sess string) string { return key(kindSess, ns, sess) }

// nsPrefix is the key prefix of every document of kind in namespace ns.
func nsPrefix(kind, ns string) string {
	return kind + sep + nsPart(ns) + sep
}

func key(kind, ns, name string) string {
	p := nsPrefix(kind, ns)
	if plain(name) && !strings.HasPrefix(name, "#") && len(p)+len(name) <= maxKey {
		return p + name
	}
	return p + digest(name)
}

func nsPart(ns string) string {
	if plain(ns) && !strings.HasPrefix(ns, "#") && !strings.Contains(ns, sep) && len(ns) <= maxNSPart {
		return ns
	}
	return digest(ns)
}

// plain reports whether s can stand in a key as it is: non-empty UTF-8
// without control characters.
func plain(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// digest is 128 bits of SHA-256, enough that two names never share a key.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return "#" + hex.EncodeToString(h[:16])
}
