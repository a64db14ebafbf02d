package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// allowedTools are the read-only tools setup lets the model call without
// asking (permissions.allow): without them Claude Code asks the user at
// every recall, and refuses it in claude -p.
var allowedTools = []string{"mcp__agentmem__recall", "mcp__agentmem__today"}

// setAllowed adds those of allowedTools that doc's permissions.allow
// lacks, and returns them (added); or, to uninstall, removes those of
// ours, the ones setup noted adding, and returns them, with the rest of
// allowedTools it leaves (left): a rule the user wrote, the same as
// setup's, is theirs. The user's other rules stay as they are.
func setAllowed(doc map[string]any, ours []string, uninstall bool) (changed, left []string) {
	perms, _ := doc["permissions"].(map[string]any)
	if perms == nil {
		if uninstall {
			return nil, nil
		}
		perms = map[string]any{}
	}
	allow, _ := perms["allow"].([]any)
	has := func(t string) bool { return slices.Contains(allow, any(t)) }
	if uninstall {
		for _, t := range allowedTools {
			switch {
			case !has(t):
			case slices.Contains(ours, t):
				changed = append(changed, t)
			default:
				left = append(left, t)
			}
		}
		allow = slices.DeleteFunc(allow, func(a any) bool {
			s, ok := a.(string)
			return ok && slices.Contains(changed, s)
		})
	} else {
		for _, t := range allowedTools {
			if !has(t) {
				allow = append(allow, t)
				changed = append(changed, t)
			}
		}
	}
	if len(allow) == 0 {
		delete(perms, "allow")
	} else {
		perms["allow"] = allow
	}
	if len(perms) == 0 {
		delete(doc, "permissions")
	} else {
		doc["permissions"] = perms
	}
	return changed, left
}

// allowRecord is the file where setup notes, for each settings file, the
// permissions.allow rules it added, so that --uninstall removes those and
// never one the user had written before: agentmem's directory in the
// user's configuration directory.
func (c setupClaudeCmd) allowRecord() (string, error) {
	dir := filepath.Join(c.home, ".config") // tests
	if c.home == "" {
		var err error
		if dir, err = os.UserConfigDir(); err != nil {
			return "", fmt.Errorf("no configuration directory to note what setup adds in: %w", err)
		}
	}
	return filepath.Join(dir, "agentmem", "setup-claude-code.json"), nil
}

// addedRules maps a settings file to the permissions.allow rules setup
// added to it.
type addedRules map[string][]string

// readAllowRecord reads the record at path; none is an empty one.
func readAllowRecord(path string) (addedRules, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return addedRules{}, nil
	} else if err != nil {
		return nil, err
	}
	var rec struct {
		Allow addedRules `json:"allow"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("%s, where setup notes what it adds, is not its JSON (%v): fix or remove it, then run setup again", path, err)
	}
	if rec.Allow == nil {
		rec.Allow = addedRules{}
	}
	return rec.Allow, nil
}

// note records in path the rules setup just added to file, or, uninstalling,
// forgets those it removed; it writes only what changed.
func (a addedRules) note(path, file string, changed []string, uninstall bool) error {
	before := slices.Clone(a[file])
	if uninstall {
		a[file] = slices.DeleteFunc(a[file], func(t string) bool { return slices.Contains(changed, t) })
	} else {
		for _, t := range changed {
			if !slices.Contains(a[file], t) {
				a[file] = append(a[file], t)
			}
		}
	}
	if len(a[file]) == 0 {
		delete(a, file)
	}
	if slices.Equal(before, a[file]) {
		return nil
	}
	if len(a) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := json.MarshalIndent(map[string]any{"allow": a}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return replaceFile(path, append(b, '\n'))
}
