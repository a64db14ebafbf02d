package couchbase

import (
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name, ns, id string
		want         string // "" means hashed: only checked for its shape
	}{
		{"plain", "alice", "s-may:3", "m|alice|s-may:3"},
		{"punctuation kept", "team/a@b+c", "sess.1_2-3:0", "m|team/a@b+c|sess.1_2-3:0"},
		{"long id", "alice", long, ""},
		{"id like a digest", "alice", "#abc", ""},
		{"control character", "alice", "a\nb", ""},
		{"invalid utf-8", "alice", "a\xffb", ""},
		{"empty id", "alice", "", ""},
		{"separator in namespace", "a|b", "x", ""},
		{"long namespace", strings.Repeat("n", 129), "x", ""},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := memoryKey(tc.ns, tc.id)
			if len(k) > maxKey {
				t.Errorf("key of %d bytes, limit %d", len(k), maxKey)
			}
			if !strings.HasPrefix(k, nsPrefix(kindMemory, tc.ns)) {
				t.Errorf("key %q lacks its namespace prefix %q", k, nsPrefix(kindMemory, tc.ns))
			}
			if strings.Count(k[:len(nsPrefix(kindMemory, tc.ns))], sep) != 2 {
				t.Errorf("prefix of %q does not split at two separators", k)
			}
			if tc.want != "" && k != tc.want {
				t.Errorf("key %q, want %q", k, tc.want)
			}
			if tc.want == "" && !strings.Contains(k, "#") {
				t.Errorf("key %q should hold a digest", k)
			}
			if k != memoryKey(tc.ns, tc.id) {
				t.Error("keys are not stable")
			}
			if other, dup := seen[k]; dup {
				t.Errorf("key %q also made for %s", k, other)
			}
			seen[k] = tc.name
		})
	}
}

func TestKeysDistinct(t *testing.T) {
	// Pairs that a naive join would merge.
	pairs := [][2][2]string{
		{{"a", "b|c"}, {"a|b", "c"}},
		{{"a:b", "c"}, {"a", "b:c"}},
		{{"alice", "#" + digest("x")[1:]}, {"alice", "x"}},
	}
	for _, p := range pairs {
		a, b := memoryKey(p[0][0], p[0][1]), memoryKey(p[1][0], p[1][1])
		if a == b {
			t.Errorf("%v and %v share the key %q", p[0], p[1], a)
		}
	}
	if memoryKey("a", "s") == sessionKey("a", "s") {
		t.Error("a memory and a manifest share a key")
	}
	if strings.HasPrefix(metaKey, kindMemory+sep) || strings.HasPrefix(metaKey, kindSess+sep) {
		t.Error("the meta key falls inside a namespace scan")
	}
}
