package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// sayLeft tells the user of the rules of allowedTools uninstall left in
// file's permissions.allow, which setup has no record of adding.
func sayLeft(file string, left []string) {
	if len(left) == 0 {
		return
	}
	them, were := "them", "they were"
	if len(left) == 1 {
		them, were = "it", "it was"
	}
	fmt.Printf("%s: left %s in permissions.allow: setup has no record of adding %s (%s there before it, or a setup before this version added %s); remove %s by hand if you do not want %s.\n", file, strings.Join(left, " and "), them, were, them, them, them)
}

// recordPath is the file where setup notes what it added that it could
// not tell apart from the user's own afterwards: for each settings file,
// the permissions.allow rules it added, and the files it created; so that
// --uninstall removes those and never a rule the user had written before,
// nor a file they had. It is agentmem's in the user's configuration
// directory.
func (c setupClaudeCmd) recordPath() (string, error) {
	return recordFile(c.home, "setup-claude-code.json")
}

// recordFile is the record name in agentmem's directory of the user's
// configuration directory (of home/.config when tests give a home).
func recordFile(home, name string) (string, error) {
	dir := filepath.Join(home, ".config") // tests
	if home == "" {
		var err error
		if dir, err = os.UserConfigDir(); err != nil {
			return "", fmt.Errorf("no configuration directory to note what setup adds in: %w", err)
		}
	}
	return filepath.Join(dir, "agentmem", name), nil
}

// setupRecord is what recordPath holds: the permissions.allow rules setup
// added, by settings file, and the files it created; for Codex, the trust
// entries of agentmem's hooks, by key, with the hash each trusts.
type setupRecord struct {
	Allow   map[string][]string `json:"allow,omitempty"`
	Created []string            `json:"created,omitempty"`
	Trusted map[string]string   `json:"trusted,omitempty"`
	read    []byte              // as read, to write only a change
}

// readSetupRecord reads the record at path; none is an empty one.
func readSetupRecord(path string) (*setupRecord, error) {
	rec := &setupRecord{}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		rec.Allow = map[string][]string{}
		return rec, nil
	} else if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("%s, where setup notes what it adds, is not its JSON (%v): fix or remove it, then run setup again", path, err)
	}
	if rec.Allow == nil {
		rec.Allow = map[string][]string{}
	}
	rec.read, _ = rec.encode()
	return rec, nil
}

// noteAllow notes the rules setup just added to file, or, uninstalling,
// forgets those it removed.
func (r *setupRecord) noteAllow(file string, changed []string, uninstall bool) {
	if uninstall {
		r.Allow[file] = slices.DeleteFunc(r.Allow[file], func(t string) bool { return slices.Contains(changed, t) })
	} else {
		for _, t := range changed {
			if !slices.Contains(r.Allow[file], t) {
				r.Allow[file] = append(r.Allow[file], t)
			}
		}
	}
	if len(r.Allow[file]) == 0 {
		delete(r.Allow, file)
	}
}

// noteFiles notes the files setup created, and forgets those it removed.
func (r *setupRecord) noteFiles(done fileOutcome) {
	for _, f := range done.created {
		if f = samePath(f); !slices.Contains(r.Created, f) {
			r.Created = append(r.Created, f)
		}
	}
	r.Created = slices.DeleteFunc(r.Created, func(f string) bool {
		return slices.ContainsFunc(done.removed, func(g string) bool { return samePath(g) == f })
	})
}

// samePath is file as the record names it: its directory with symbolic
// links resolved, so that a project reached by another path (a link, or
// /tmp and /private/tmp on macOS) is the same project. The file itself is
// not resolved: setup writes through a link to it, and notes the link.
func samePath(file string) string {
	rest := filepath.Base(file)
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return file
		}
		rest = filepath.Join(filepath.Base(dir), rest) // not made yet
	}
}

func (r *setupRecord) encode() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	return append(b, '\n'), err
}

// save writes the record to path if it changed; an empty one is removed.
func (r *setupRecord) save(path string) error {
	b, err := r.encode()
	if err != nil || bytes.Equal(b, r.read) {
		return err
	}
	if len(r.Allow) == 0 && len(r.Created) == 0 && len(r.Trusted) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		os.Remove(filepath.Dir(path)) // agentmem's folder, if nothing else is in it
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := replaceFile(path, b); err != nil {
		return err
	}
	r.read = b
	return nil
}
