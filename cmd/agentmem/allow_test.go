package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Setup lets the model call the read-only tools without asking, keeps
// the user's own rules, and uninstall takes back only what it added: a
// rule the user had written before, the same as one of setup's, stays.
func TestSetupAllowsReadOnlyTools(t *testing.T) {
	doc := map[string]any{"permissions": map[string]any{"allow": []any{"Bash(ls:*)"}, "deny": []any{"WebFetch"}}}
	added, _ := setAllowed(doc, nil, false)
	again, _ := setAllowed(doc, added, false) // twice: no duplicates
	allow := doc["permissions"].(map[string]any)["allow"].([]any)
	if !slices.Equal(allow, []any{"Bash(ls:*)", "mcp__agentmem__recall", "mcp__agentmem__today"}) || !slices.Equal(added, allowedTools) || len(again) != 0 {
		t.Errorf("allow = %v, added %v then %v", allow, added, again)
	}
	if removed, left := setAllowed(doc, added, true); !slices.Equal(removed, allowedTools) || len(left) != 0 {
		t.Errorf("uninstall removed %v, left %v", removed, left)
	}
	if got := doc["permissions"].(map[string]any); !slices.Equal(got["allow"].([]any), []any{"Bash(ls:*)"}) || got["deny"] == nil {
		t.Errorf("after uninstall: %v", got)
	}
	fresh := map[string]any{}
	added, _ = setAllowed(fresh, nil, false)
	setAllowed(fresh, added, true)
	if len(fresh) != 0 {
		t.Errorf("a fresh settings file keeps %v after uninstall", fresh)
	}

	mine := map[string]any{"permissions": map[string]any{"allow": []any{"mcp__agentmem__recall"}}}
	added, _ = setAllowed(mine, nil, false)
	if !slices.Equal(added, []string{"mcp__agentmem__today"}) {
		t.Errorf("added %v to a file that allowed recall already", added)
	}
	removed, left := setAllowed(mine, added, true)
	if got := mine["permissions"].(map[string]any)["allow"].([]any); !slices.Equal(got, []any{"mcp__agentmem__recall"}) || !slices.Equal(removed, added) || !slices.Equal(left, []string{"mcp__agentmem__recall"}) {
		t.Errorf("after uninstall the user's own rule: allow %v, removed %v, left %v", got, removed, left)
	}
}

// The record of what setup added keeps the first run's rules through a
// second run (which adds nothing), and is removed with the last of them.
func TestSetupRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agentmem", "setup-claude-code.json")
	rec, err := readSetupRecord(path)
	if err != nil || len(rec.Allow) != 0 || len(rec.Created) != 0 {
		t.Fatalf("no record: %+v, %v", rec, err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	rec.noteAllow("/a/settings.json", allowedTools, false)
	rec.noteAllow("/a/settings.json", nil, false)
	rec.noteAllow("/b/settings.json", allowedTools[:1], false)
	rec.noteFiles(fileOutcome{created: []string{"/b/settings.json"}})
	must(rec.save(path))
	back, err := readSetupRecord(path)
	if err != nil || !slices.Equal(back.Allow["/a/settings.json"], allowedTools) || !slices.Equal(back.Allow["/b/settings.json"], allowedTools[:1]) || !slices.Equal(back.Created, []string{"/b/settings.json"}) {
		t.Fatalf("record read back %+v, %v", back, err)
	}
	back.noteAllow("/a/settings.json", allowedTools, true)
	back.noteAllow("/b/settings.json", allowedTools[:1], true)
	back.noteFiles(fileOutcome{removed: []string{"/b/settings.json"}})
	must(back.save(path))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the emptied record is left: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("the emptied record's folder is left: %v", err)
	}
	must(os.MkdirAll(filepath.Dir(path), 0o700))
	must(os.WriteFile(path, []byte("{"), 0o600))
	if _, err := readSetupRecord(path); err == nil {
		t.Error("a record that is not JSON read without an error")
	}
}
