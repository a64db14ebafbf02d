package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// agentmem setup codex registers the MCP server and the hooks in Codex
// CLI's configuration: the hooks in <codex home>/hooks.json (merged with
// the user's, backed up first, like Claude Code's settings), the server in
// config.toml, and the trust of agentmem's hooks, without which Codex skips
// them silently. config.toml is written by Codex itself, through its
// app-server's config API (config/batchWrite, which keeps the file's
// comments and layout), and the trust is the hash Codex computes for each
// hook (hooks/list): so setup needs the codex binary. Running it twice
// changes nothing; --uninstall removes the server, agentmem's hooks and
// their trust entries.

type setupCodexCmd struct {
	hookFlags
	Optional  bool   `name:"optional" help:"Register the MCP server as optional: Codex then starts without waiting for it (its first request may leave before agentmem's tools are listed)."`
	DryRun    bool   `name:"dry-run" help:"Print what would change; change nothing."`
	Uninstall bool   `name:"uninstall" help:"Remove what setup added."`
	Codex     string `name:"codex" placeholder:"PATH" default:"codex" help:"The codex binary, which writes config.toml and computes the hooks' trust."`

	home string // tests set it; "" is the user's home
}

// codexHome is $CODEX_HOME, or ~/.codex.
func (c setupCodexCmd) codexHome() (string, error) {
	if h := os.Getenv("CODEX_HOME"); h != "" && c.home == "" {
		return filepath.Abs(h)
	}
	home := c.home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home directory: %w", err)
		}
		home = h
	}
	return filepath.Join(home, ".codex"), nil
}

func (c setupCodexCmd) Run(e *env) error {
	if err := c.check(); err != nil {
		return err
	}
	dir, err := c.codexHome()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fmt.Errorf("finding the agentmem binary: %w", err)
	}
	global := carried(e.cfg)
	server := c.serverEntry(exe, global)
	hookExe, why := hookBinary(exe)
	hook := shellJoin(append(append([]string{hookExe}, global...), c.hookArgs("codex")...))
	hooksFile := filepath.Join(dir, "hooks.json")
	ch := fileChange{file: hooksFile, edit: func(doc map[string]any) { setCodexHooks(doc, hook, c.events(), c.Uninstall) }}
	record, rec, err := c.record()
	if err != nil {
		return err
	}
	// the hooks.json setup created, which uninstall removes when it holds
	// nothing else (as Claude Code's settings); a dry run says so too
	ch.removeEmpty = c.Uninstall && slices.Contains(rec.Created, samePath(hooksFile))
	if c.DryRun {
		return c.dryRun(dir, server, ch)
	}
	if _, err := exec.LookPath(c.Codex); err != nil {
		return fmt.Errorf("%w (%v); nothing changed", errNoCodex, err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	if c.Uninstall {
		done, err := c.uninstall(ctx, dir, ch, rec.Trusted)
		if err == nil {
			rec.noteFiles(done)
			rec.noteTrust(hooksFile, nil)
			err = rec.save(record)
		}
		return err
	}
	created, err := c.installWithHooks(ctx, dir, server, hook, ch, rec)
	if err != nil {
		return err
	}
	if created {
		rec.noteFiles(fileOutcome{created: []string{hooksFile}})
	}
	if err := rec.save(record); err != nil {
		fmt.Fprintf(os.Stderr, "agentmem: noting what setup added: %v (--uninstall may leave %s, or trust entries in config.toml)\n", err, hooksFile)
	}
	fmt.Printf("Codex now starts %s as its MCP server \"agentmem\" and captures every session through its hooks (%s), trusted, run by %s.\n%s", exe, strings.Join(c.events(), ", "), hookExe, why)
	return nil
}

// record is where setup notes what it added to Codex's configuration
// (the hooks.json it created, the trust entries it wrote), and what it
// holds.
func (c setupCodexCmd) record() (string, *setupRecord, error) {
	path, err := recordFile(c.home, "setup-codex.json")
	if err != nil {
		return "", nil, err
	}
	rec, err := readSetupRecord(path)
	return path, rec, err
}

// serverEntry is Codex's mcp_servers.agentmem: exe serve, with the global
// flags carried, required unless --optional.
func (c setupCodexCmd) serverEntry(exe string, global []string) map[string]any {
	server := map[string]any{"command": exe, "args": append(slices.Clone(global), "serve")}
	if !c.Optional {
		server["required"] = true
	}
	return server
}

// dryRun prints what setup would change, in Codex's home dir and in
// hooks.json (ch), changing nothing.
func (c setupCodexCmd) dryRun(dir string, server map[string]any, ch fileChange) error {
	if err := ch.apply(true); err != nil {
		return err
	}
	if c.Uninstall {
		fmt.Printf("%s: would lose mcp_servers.agentmem and the trust of agentmem's hooks\n", filepath.Join(dir, "config.toml"))
	} else {
		b, _ := json.Marshal(server)
		fmt.Printf("%s: would hold mcp_servers.agentmem = %s, and the trust of agentmem's hooks\n", filepath.Join(dir, "config.toml"), b)
	}
	return nil
}

// installWithHooks writes hooks.json (ch) first, since Codex reads it to
// list the hooks to trust, then installs the server and trusts the hooks
// (install); if Codex then fails, hooks.json is put back as it was, so a
// failed setup leaves no half-install. created: hooks.json was not there
// before.
func (c setupCodexCmd) installWithHooks(ctx context.Context, dir string, server map[string]any, hook string, ch fileChange, rec *setupRecord) (created bool, err error) {
	hooksFile := ch.file
	before, readErr := os.ReadFile(hooksFile)
	if err := ch.apply(false); err != nil {
		return false, err
	}
	if err := c.install(ctx, dir, server, hook, rec); err != nil {
		var rerr error
		if readErr == nil {
			rerr = os.WriteFile(hooksFile, before, 0o600)
		} else if errors.Is(readErr, fs.ErrNotExist) {
			rerr = os.Remove(hooksFile)
		}
		if rerr != nil {
			return false, fmt.Errorf("%w; putting %s back failed too: %v", err, hooksFile, rerr)
		}
		return false, fmt.Errorf("%w; %s was put back as it was", err, hooksFile)
	}
	return errors.Is(readErr, fs.ErrNotExist), nil
}

// install writes the server and the trust of agentmem's hooks into
// config.toml through Codex, removes the trust entries an earlier setup
// wrote for hooks of agentmem's that are no longer where they were (a
// hook before them removed: Codex keys trust by a hook's place), and
// notes the trust entries of agentmem's hooks in rec.
func (c setupCodexCmd) install(ctx context.Context, dir string, server map[string]any, hook string, rec *setupRecord) error {
	as, err := startAppServer(ctx, c.Codex, dir)
	if err != nil {
		return err
	}
	defer as.close()
	var edits []configEdit
	cfg, err := as.config(ctx)
	if err != nil {
		return err
	}
	cur := cfg.MCPServers["agentmem"]
	if cur != nil && !isAgentmem(cur) {
		return fmt.Errorf("config.toml already has an MCP server named agentmem that is not agentmem (command %v): rename or remove it, then run setup again", cur["command"])
	}
	if !sameServer(cur, server) {
		edits = append(edits, configEdit{KeyPath: "mcp_servers.agentmem", Value: server, MergeStrategy: "replace"})
	}
	hooks, err := as.hooks(ctx, filepath.Join(dir, "hooks.json"))
	if err != nil {
		return err
	}
	trust, ours := map[string]any{}, map[string]string{}
	for _, h := range hooks {
		if h.Command != hook {
			continue
		}
		ours[h.Key] = h.CurrentHash
		if h.TrustStatus != "trusted" {
			trust[h.Key] = map[string]any{"trusted_hash": h.CurrentHash}
		}
	}
	if len(ours) != len(c.events()) {
		return fmt.Errorf("codex lists %d of agentmem's %d hooks in %s; is %s the Codex that reads %s?", len(ours), len(c.events()), filepath.Join(dir, "hooks.json"), c.Codex, dir)
	}
	for _, key := range staleTrust(cfg, rec.Trusted, ours) {
		edits = append(edits, configEdit{KeyPath: "hooks.state." + strconv.Quote(key), MergeStrategy: "replace"})
	}
	if len(trust) > 0 {
		edits = append(edits, configEdit{KeyPath: "hooks.state", Value: trust, MergeStrategy: "upsert"})
	}
	if err := as.write(ctx, filepath.Join(dir, "config.toml"), edits); err != nil {
		return err
	}
	rec.noteTrust(filepath.Join(dir, "hooks.json"), ours)
	return nil
}

// noteTrust notes the trust entries of agentmem's hooks in hooks (those of
// one Codex home: each key names its hooks.json), in place of those noted
// for that file before; the other homes' stay.
func (r *setupRecord) noteTrust(hooks string, ours map[string]string) {
	file := samePath(hooks)
	maps.DeleteFunc(r.Trusted, func(key, _ string) bool { return samePath(parseTrustKey(key).file) == file })
	if len(ours) > 0 && r.Trusted == nil {
		r.Trusted = map[string]string{}
	}
	maps.Copy(r.Trusted, ours)
}

// trustKey is what a key of Codex's hooks.state names: the hooks.json, the
// event, and the hook's group and place in it (the key is those,
// colon-separated, the file's path first, which may hold colons itself).
type trustKey struct {
	file, event  string
	group, place int
}

func parseTrustKey(key string) trustKey {
	var f [3]string
	for i := 2; i >= 0; i-- {
		if j := strings.LastIndexByte(key, ':'); j >= 0 {
			key, f[i] = key[:j], key[j+1:]
		}
	}
	group, _ := strconv.Atoi(f[1])
	place, _ := strconv.Atoi(f[2])
	return trustKey{file: key, event: f[0], group: group, place: place}
}

// staleTrust is the keys of recorded (the trust entries an earlier setup
// noted for agentmem's hooks) that config.toml still holds with the hash
// noted, and that are not among keep: entries of agentmem's, left where
// its hooks no longer are. An entry whose hash changed since is the
// user's (they trusted another hook there) and stays.
func staleTrust(cfg codexConfig, recorded, keep map[string]string) []string {
	var out []string
	for key, hash := range recorded {
		if _, ok := keep[key]; ok {
			continue
		}
		if st, ok := cfg.Hooks.State[key].(map[string]any); ok && st["trusted_hash"] == hash {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// uninstall removes the trust of agentmem's hooks (listed before they
// go), the hooks, and the server; the user's hooks that move up in
// hooks.json as agentmem's go keep their trust (Codex keys it by place).
func (c setupCodexCmd) uninstall(ctx context.Context, dir string, ch fileChange, recorded map[string]string) (fileOutcome, error) {
	as, err := startAppServer(ctx, c.Codex, dir)
	if err != nil {
		return fileOutcome{}, err
	}
	defer as.close()
	before, err := as.hooks(ctx, ch.file)
	if err != nil {
		return fileOutcome{}, err
	}
	cfg, err := as.config(ctx)
	if err != nil {
		return fileOutcome{}, err
	}
	done, err := applyAll([]fileChange{ch}, false)
	if err != nil {
		return done, err
	}
	after, err := as.hooks(ctx, ch.file)
	if err != nil {
		return done, err
	}
	return done, as.write(ctx, filepath.Join(dir, "config.toml"), uninstallEdits(cfg, before, after, recorded))
}

// uninstallEdits are the edits of config.toml that --uninstall makes: the
// trust entries of agentmem's hooks (before lists them where they were,
// recorded where an earlier setup put them) go, the user's hooks that
// moved (after lists them where they are now) keep the trust they had,
// and the server goes.
func uninstallEdits(cfg codexConfig, before, after []codexHook, recorded map[string]string) []configEdit {
	listed := map[string]string{}
	for _, h := range before {
		if _, trusted := cfg.Hooks.State[h.Key]; trusted && isOurHook(h.Command, "codex") {
			listed[h.Key] = h.CurrentHash
		}
	}
	moved, left, keep := carryTrust(cfg, before, after)
	// and those an earlier setup noted, where agentmem's hooks no longer are
	gone := append(slices.Sorted(maps.Keys(listed)), staleTrust(cfg, recorded, listed)...)
	gone = slices.DeleteFunc(append(gone, left...), func(k string) bool { return keep[k] })
	slices.Sort(gone)
	gone = slices.Compact(gone)
	var edits []configEdit
	for _, key := range gone {
		edits = append(edits, configEdit{KeyPath: "hooks.state." + strconv.Quote(key), MergeStrategy: "replace"})
	}
	if len(keep) == 0 && len(gone) > 0 && len(gone) == len(cfg.Hooks.State) {
		// only agentmem's trust entries: the table goes with them
		edits = []configEdit{{KeyPath: "hooks.state", MergeStrategy: "replace"}}
	}
	if len(moved) > 0 {
		edits = append(edits, configEdit{KeyPath: "hooks.state", Value: moved, MergeStrategy: "upsert"})
	}
	if cur := cfg.MCPServers["agentmem"]; cur != nil && isAgentmem(cur) {
		edits = append(edits, configEdit{KeyPath: "mcp_servers.agentmem", MergeStrategy: "replace"})
	}
	return edits
}

// carryTrust pairs the user's hooks before agentmem's went with the same
// hooks after (removing agentmem's moves the others up, each event's in
// their order): a hook the user had trusted is trusted at its new place
// (keep; moved, where config.toml does not hold that trust yet), the entry
// of its old place goes (left), and so does an entry that would make a
// hook the user had not trusted trusted at its new place.
func carryTrust(cfg codexConfig, before, after []codexHook) (moved map[string]any, left []string, keep map[string]bool) {
	trustedAt := func(key, hash string) bool {
		st, ok := cfg.Hooks.State[key].(map[string]any)
		return ok && st["trusted_hash"] == hash
	}
	b, a := usersByEvent(before), usersByEvent(after)
	moved, keep = map[string]any{}, map[string]bool{}
	for event, bs := range b {
		as := a[event]
		if len(as) != len(bs) {
			continue // not agentmem's hooks alone went: pair nothing
		}
		for i, bh := range bs {
			ah := as[i]
			switch {
			case trustedAt(bh.Key, bh.CurrentHash):
				keep[ah.Key] = true
				if !trustedAt(ah.Key, ah.CurrentHash) {
					moved[ah.Key] = map[string]any{"trusted_hash": ah.CurrentHash}
				}
				left = append(left, bh.Key)
			case trustedAt(ah.Key, ah.CurrentHash):
				left = append(left, ah.Key)
			}
		}
	}
	return moved, left, keep
}

// usersByEvent is the user's hooks (not agentmem's) of each event, in
// their order in hooks.json.
func usersByEvent(hooks []codexHook) map[string][]codexHook {
	out := map[string][]codexHook{}
	for _, h := range hooks {
		if !isOurHook(h.Command, "codex") {
			event := parseTrustKey(h.Key).event
			out[event] = append(out[event], h)
		}
	}
	for _, hs := range out {
		slices.SortStableFunc(hs, func(x, y codexHook) int {
			a, b := parseTrustKey(x.Key), parseTrustKey(y.Key)
			return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.place, b.place))
		})
	}
	return out
}

// sameServer says whether the configured server cur is want.
func sameServer(cur, want map[string]any) bool {
	if cur == nil {
		return false
	}
	args := func(m map[string]any) []string {
		var out []string
		switch a := m["args"].(type) {
		case []any:
			for _, v := range a {
				out = append(out, fmt.Sprint(v))
			}
		case []string:
			out = a
		}
		return out
	}
	req := func(m map[string]any) bool { b, _ := m["required"].(bool); return b }
	return cur["command"] == want["command"] && reflect.DeepEqual(args(cur), args(want)) && req(cur) == req(want)
}

// setCodexHooks is setHooks for Codex's hooks.json: SessionEnd's timeout
// is Codex's limit for it, and a "hooks" left empty (or that was not an
// object) goes.
func setCodexHooks(doc map[string]any, cmd string, events []string, uninstall bool) {
	setHooks(doc, "codex", cmd, events, map[string]int{"SessionEnd": 3}, uninstall)
	if hooks, _ := doc["hooks"].(map[string]any); len(hooks) == 0 {
		delete(doc, "hooks")
	}
}

var errNoCodex = errors.New("agentmem setup codex needs the codex binary (it writes config.toml and computes the hooks' trust): put codex on PATH or pass --codex PATH")
