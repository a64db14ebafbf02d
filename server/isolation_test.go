package server_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// tenant is one namespace of TestNamespaceIsolation: its sessions, and
// words that no other namespace's memories hold.
type tenant struct {
	name  string
	words []string
	texts map[string]bool     // every text it holds
	ids   map[string]bool     // memory ids of its own sessions (not "common")
	turns map[string][]string // session -> texts in turn order
}

// Three namespaces hold memories with words of their own (and one session
// id, "common", that all three use, so that their memory ids are the same
// strings). From each, every way the tools and the resources offer to read
// or delete another namespace's memories is tried: recall with the other's
// exact texts and words in every fusion mode, with its session ids, with
// neighbouring turns; forget by its memory ids (also dressed up with its
// namespace name) and its session ids; remember over its session ids; the
// sessions and transcripts of the attacker's own namespace; namespace names
// that look like the other's. No answer holds another namespace's text, no
// delete or write crosses, and every victim memory is there at the end.
func TestNamespaceIsolation(t *testing.T) {
	start := time.Now()
	ts := httpServer(t, "")
	ctx := context.Background()
	c, err := dial(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	tenants := []*tenant{
		{name: "alpha", words: []string{"quokka", "zeppelin", "marzipan"}},
		{name: "beta", words: []string{"narwhal", "trombone", "saffron"}},
		{name: "gamma", words: []string{"axolotl", "harpsichord", "wasabi"}},
	}
	const turnsPerSession = 3
	n := 0 // makes every text distinct
	for _, tn := range tenants {
		tn.texts, tn.ids, tn.turns = map[string]bool{}, map[string]bool{}, map[string][]string{}
		for _, session := range []string{tn.name + "-s1", tn.name + "-s2", "common"} {
			var msgs []spec.Message
			for i := range turnsPerSession {
				w := tn.words
				text := fmt.Sprintf("Turn %d of the note: the %s and the %s met the %s %d", i, w[i%3], w[(i+1)%3], w[(i+2)%3], n)
				n++
				msgs = append(msgs, spec.Message{Role: "user", Content: text})
				tn.texts[text] = true
				tn.turns[session] = append(tn.turns[session], text)
			}
			res, _, err := c.Remember(ctx, spec.RememberArgs{Namespace: tn.name, SessionID: session, SessionDate: "2023-05-07", Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stored != turnsPerSession {
				t.Fatalf("%s/%s: stored %d, want %d", tn.name, session, res.Stored, turnsPerSession)
			}
			if session != "common" {
				for _, id := range res.IDs {
					tn.ids[id] = true
				}
			}
		}
	}
	perTenant := len(tenants[0].texts)

	attempts, refused := 0, 0
	// leak fails the test if an answer to attacker holds another
	// namespace's text or words.
	leak := func(attacker *tenant, what, text string, memories []spec.Recalled) {
		t.Helper()
		for _, m := range memories {
			if !attacker.texts[m.Text] {
				t.Errorf("%s: %s returned a memory it does not hold: %s %q", attacker.name, what, m.ID, m.Text)
			}
		}
		for _, other := range tenants {
			if other == attacker {
				continue
			}
			for _, w := range other.words {
				if strings.Contains(text, w) {
					t.Errorf("%s: %s returned %s's word %q:\n%s", attacker.name, what, other.name, w, text)
				}
			}
		}
	}
	// answered accepts a tool error (the attempt refused) and fails on
	// anything else.
	answered := func(what string, err error) bool {
		t.Helper()
		attempts++
		var te *client.ToolError
		if errors.As(err, &te) {
			if strings.Contains(te.Text, "internal error") {
				t.Errorf("%s: %v", what, err)
			}
			refused++
			return false
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return true
	}
	fusions := []string{"rrf", "rsf", "text", "vector", "rerank"}
	recall := func(attacker *tenant, args spec.RecallArgs) {
		t.Helper()
		what := fmt.Sprintf("recall %+v", args)
		res, text, err := c.Recall(ctx, args)
		if answered(what, err) {
			leak(attacker, what, text, res.Memories)
		}
	}

	for _, a := range tenants {
		for _, v := range tenants {
			if v == a {
				continue
			}
			var queries []string
			for text := range v.texts {
				queries = append(queries, text)
			}
			slices.Sort(queries)
			queries = append(queries, v.words...)
			queries = append(queries, strings.Join(v.words, " "))
			for _, f := range fusions {
				for _, q := range queries {
					recall(a, spec.RecallArgs{Namespace: a.name, Query: q, Fusion: f, K: 100})
				}
				for _, s := range []string{v.name + "-s1", v.name + "-s2"} {
					recall(a, spec.RecallArgs{Namespace: a.name, Query: v.words[0], SessionID: s, Fusion: f})
				}
				// neighbouring turns, and "common", whose ids both hold
				zero := 0
				recall(a, spec.RecallArgs{Namespace: a.name, Query: strings.Join(v.words, " "), Fusion: f, K: 100, Context: 3, Excerpt: &zero})
				recall(a, spec.RecallArgs{Namespace: a.name, Query: strings.Join(v.words, " "), SessionID: "common", Fusion: f, Context: 3, Order: "chronological"})
			}
			// namespace names that look like the victim's
			for _, ns := range []string{v.name + "/", v.name + ".", strings.ToUpper(v.name), v.name + "/..", a.name + "/../" + v.name, v.name + "\x1f", v.name + "*", " " + v.name} {
				recall(a, spec.RecallArgs{Namespace: ns, Query: strings.Join(v.words, " "), K: 100})
			}

			// deletes in the attacker's namespace, by the victim's ids and
			// sessions
			var ids []string
			for id := range v.ids {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			var tries [][]string
			for _, id := range ids {
				tries = append(tries, []string{id}, []string{v.name + "\x1f" + id}, []string{v.name + "/" + id}, []string{v.name + ":" + id})
			}
			tries = append(tries, ids)
			for _, try := range tries {
				res, _, err := c.Forget(ctx, spec.ForgetArgs{Namespace: a.name, IDs: try})
				if answered(fmt.Sprintf("forget %q in %s", try, a.name), err) && res.Deleted != 0 {
					t.Errorf("%s: forget %q deleted %d", a.name, try, res.Deleted)
				}
			}
			for _, s := range []string{v.name + "-s1", v.name + "-s2"} {
				res, _, err := c.Forget(ctx, spec.ForgetArgs{Namespace: a.name, SessionID: s})
				if answered(fmt.Sprintf("forget session %s in %s", s, a.name), err) && res.Deleted != 0 {
					t.Errorf("%s: forget session %s deleted %d", a.name, s, res.Deleted)
				}
				// the victim's session read through the attacker's namespace
				_, err = c.Transcript(ctx, a.name, s)
				attempts++
				if err == nil || !strings.Contains(err.Error(), "not found") {
					t.Errorf("%s: transcript of %s: %v", a.name, s, err)
				}
			}
		}

		// the attacker's own resources hold only its own sessions
		page, err := c.Sessions(ctx, a.name, "", "", 0, "")
		attempts++
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 3 || len(page.Sessions) != 3 {
			t.Errorf("%s: sessions resource lists %d (total %d), want 3", a.name, len(page.Sessions), page.Total)
		}
		for _, s := range page.Sessions {
			if s.Namespace != a.name || !strings.HasPrefix(s.ID, a.name+"-") && s.ID != "common" || !previewOf(a, s.Preview) {
				t.Errorf("%s: sessions resource lists %+v", a.name, s)
			}
		}
		text, err := c.Transcript(ctx, a.name, "common")
		attempts++
		if err != nil {
			t.Fatal(err)
		}
		leak(a, "transcript of common", text, nil)
	}

	// every victim memory is still there, in its sessions
	check := func(when string, want map[string]int) {
		t.Helper()
		nss, err := c.Namespaces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, n := range nss {
			got[n.Name] = n.Memories
		}
		for _, tn := range tenants {
			if got[tn.name] != want[tn.name] {
				t.Errorf("%s: %s holds %d memories, want %d", when, tn.name, got[tn.name], want[tn.name])
			}
			for session, texts := range tn.turns {
				if want[tn.name] != perTenant && session == "common" {
					continue
				}
				tr, err := c.Transcript(ctx, tn.name, session)
				if err != nil {
					t.Errorf("%s: %s/%s: %v", when, tn.name, session, err)
					continue
				}
				for _, text := range texts {
					if !strings.Contains(tr, text) {
						t.Errorf("%s: %s/%s lost %q", when, tn.name, session, text)
					}
				}
			}
		}
	}
	all := map[string]int{"alpha": perTenant, "beta": perTenant, "gamma": perTenant}
	check("after the attempts", all)

	// writes over the victim's session ids, at the victim's positions, land
	// in the attacker's namespace
	for _, a := range tenants {
		for _, v := range tenants {
			if v == a {
				continue
			}
			zero := 0
			_, _, err := c.Remember(ctx, spec.RememberArgs{Namespace: a.name, SessionID: v.name + "-s1", Turn: &zero, Messages: []spec.Message{{Role: "user", Content: "overwritten by " + a.name}}})
			attempts++
			if err != nil {
				t.Fatal(err)
			}
			res, _, err := c.Forget(ctx, spec.ForgetArgs{Namespace: a.name, SessionID: v.name + "-s1"})
			attempts++
			if err != nil || res.Deleted != 1 {
				t.Fatalf("%s: forgetting its own copy of %s-s1: %+v %v", a.name, v.name, res, err)
			}
		}
	}
	check("after writes over the victims' session ids", all)

	// the same ids in two namespaces: deleting one namespace's leaves the
	// other's
	res, _, err := c.Forget(ctx, spec.ForgetArgs{Namespace: "alpha", IDs: []string{"common:0", "common:1", "common:2"}})
	attempts++
	if err != nil || res.Deleted != turnsPerSession {
		t.Fatalf("alpha forgetting its common session by id: %+v %v", res, err)
	}
	res, _, err = c.Forget(ctx, spec.ForgetArgs{Namespace: "beta", SessionID: "common"})
	attempts++
	if err != nil || res.Deleted != turnsPerSession {
		t.Fatalf("beta forgetting its common session: %+v %v", res, err)
	}
	// a fourth namespace deletes all it holds
	if _, _, err := c.Remember(ctx, spec.RememberArgs{Namespace: "mallory", Messages: []spec.Message{{Role: "user", Content: "mallory was here"}}}); err != nil {
		t.Fatal(err)
	}
	res, _, err = c.Forget(ctx, spec.ForgetArgs{Namespace: "mallory", All: true, Confirm: true})
	attempts++
	if err != nil || res.Deleted != 1 {
		t.Fatalf("mallory forgetting all: %+v %v", res, err)
	}
	check("after deleting same-id sessions and another namespace", map[string]int{"alpha": perTenant - turnsPerSession, "beta": perTenant - turnsPerSession, "gamma": perTenant})
	tr, err := c.Transcript(ctx, "gamma", "common")
	if err != nil || !strings.Contains(tr, tenants[2].turns["common"][0]) {
		t.Errorf("gamma's common session after alpha and beta deleted theirs: %v\n%s", err, tr)
	}
	t.Logf("%d cross-namespace read, delete and write attempts (%d refused as bad input) against %d memories in %d namespaces, in %v",
		attempts, refused, len(tenants)*perTenant, len(tenants), time.Since(start).Round(time.Millisecond))
}

// previewOf says whether preview is the start of one of tn's texts.
func previewOf(tn *tenant, preview string) bool {
	p := strings.TrimSuffix(strings.TrimSpace(preview), "…")
	for text := range tn.texts {
		if strings.HasPrefix(text, strings.TrimSpace(p)) {
			return true
		}
	}
	return false
}
