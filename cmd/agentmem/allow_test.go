package main

import (
	"slices"
	"testing"
)

// Setup lets the model call the read-only tools without asking, keeps
// the user's own rules, and uninstall takes back only its own.
func TestSetupAllowsReadOnlyTools(t *testing.T) {
	doc := map[string]any{"permissions": map[string]any{"allow": []any{"Bash(ls:*)"}, "deny": []any{"WebFetch"}}}
	setAllowed(doc, false)
	setAllowed(doc, false) // twice: no duplicates
	allow := doc["permissions"].(map[string]any)["allow"].([]any)
	if !slices.Equal(allow, []any{"Bash(ls:*)", "mcp__agentmem__recall", "mcp__agentmem__today"}) {
		t.Errorf("allow = %v", allow)
	}
	setAllowed(doc, true)
	if got := doc["permissions"].(map[string]any); !slices.Equal(got["allow"].([]any), []any{"Bash(ls:*)"}) || got["deny"] == nil {
		t.Errorf("after uninstall: %v", got)
	}
	fresh := map[string]any{}
	setAllowed(fresh, false)
	setAllowed(fresh, true)
	if len(fresh) != 0 {
		t.Errorf("a fresh settings file keeps %v after uninstall", fresh)
	}
}
