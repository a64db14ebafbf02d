package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/cmd/internal/backend"
	"agentmem/cmd/internal/hook"
	"agentmem/memory"
	"agentmem/memory/dates"
	"agentmem/memory/history/claudecode"
	"agentmem/memory/history/codex"
)

// The import of other programs' histories driven through the command, on
// a data dir of its own, without an embedding model.

func importHistory(t testing.TB, e *env, c importCmd) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := c.history(e, &out)
	return out.String(), err
}

func mustImport(t testing.TB, e *env, c importCmd) string {
	t.Helper()
	out, err := importHistory(t, e, c)
	if err != nil {
		t.Fatalf("import --from %s %s: %v", c.From, c.File, err)
	}
	return out
}

func fromCmd(from, file string) importCmd {
	return importCmd{historyOptions: historyOptions{From: from}, File: file}
}

// The hooks, then the import of the same projects directory; then the
// import first and the hooks after, and the import twice: every turn once,
// with the hook's ids, times and session date.
func TestImportClaudeCodeAndHooks(t *testing.T) {
	for _, order := range []string{"hooks first", "import first"} {
		t.Run(order, func(t *testing.T) {
			e := hookEnv(t)
			x := newTranscript(t, sess1, "/home/sam/src/garden")
			x.write(t, x.exchange("I adopted a golden retriever named Biscuit last week.", "Congratulations!", "Goldens love water.", "notes"))
			x.write(t, x.exchange("Mi hermana Ana se mudó a Lisboa 🇵🇹", "¡Qué bien! 🌊", "素晴らしい。", "ok"))
			projects := filepath.Dir(filepath.Dir(x.path))
			// a subagent's transcript, left out like its sidechain lines
			sub := filepath.Join(filepath.Dir(x.path), sess1, "subagents", "agent-a1b2.jsonl")
			if err := os.MkdirAll(filepath.Dir(sub), 0o700); err != nil {
				t.Fatal(err)
			}
			y := newTranscript(t, "agent-a1b2", "/home/sam/src/garden")
			if err := os.WriteFile(sub, y.exchange("a subagent's prompt", "its reply", "more", "r"), 0o600); err != nil {
				t.Fatal(err)
			}
			if order == "hooks first" {
				x.stop(t, e)
				out := mustImport(t, e, fromCmd("claude-code", projects))
				if !strings.Contains(out, "Stored 0 memories; 6 were already stored") {
					t.Errorf("import after the hooks:\n%s", out)
				}
			} else {
				out := mustImport(t, e, fromCmd("claude-code", projects))
				if !strings.Contains(out, "Read 1 session, 6 turns") || !strings.Contains(out, "Stored 6 memories; 0 were already") {
					t.Errorf("import:\n%s", out)
				}
				x.stop(t, e)
				mustImport(t, e, fromCmd("claude-code", x.path))
			}
			checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
			if got := stored(t, e, "default", "agent-a1b2"); got != nil {
				t.Errorf("a subagent's transcript was imported: %d memories", len(got))
			}
			// the hooks capture what the session said after the import
			x.write(t, x.exchange("Biscuit loves the beach.", "Noted.", "Which beach?", "r"))
			x.stop(t, e)
			mustImport(t, e, fromCmd("claude-code", projects))
			checkStored(t, stored(t, e, "default", sess1), x.want, x.want[0].at)
		})
	}
}

// A turn the hooks captured and the user then forgot by its id stays
// forgotten: the import of the same transcript leaves it out and says so,
// and so does the next capture of a rewritten transcript (read whole).
func TestImportLeavesForgottenTurnsOut(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	said := x.exchange("My bank PIN is 4512, keep it.", "Noted.", "I will.", "r")
	x.write(t, said)
	x.stop(t, e)
	ms := stored(t, e, "default", sess1)
	if len(ms) != 3 || !strings.Contains(ms[0].Text, "PIN") {
		t.Fatalf("captured %d turns: %+v", len(ms), ms)
	}
	b, err := backend.Open(context.Background(), e.cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Service.Forget(context.Background(), memory.ForgetRequest{Namespace: "default", IDs: []string{ms[0].ID}}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	out := mustImport(t, e, fromCmd("claude-code", x.path))
	if !strings.Contains(out, "Stored 0 memories; 2 were already stored") || !strings.Contains(out, "Left out 1 turn forgotten (agentmem forget) since a capture or an import stored it.") {
		t.Errorf("import after a forget:\n%s", out)
	}
	// the transcript rewritten shorter than the hooks' cursor: read whole
	short := said[:bytes.LastIndexByte(said[:len(said)-1], '\n')+1]
	if err := os.WriteFile(x.path, short, 0o600); err != nil {
		t.Fatal(err)
	}
	x.stop(t, e)
	if got := stored(t, e, "default", sess1); len(got) != 2 || strings.Contains(got[0].Text, "PIN") {
		t.Fatalf("after the transcript was read whole again: %+v, want the 2 turns not forgotten", got)
	}
}

// --per-project puts a session where the hooks' --per-project put it.
func TestImportClaudeCodePerProject(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/Mes Projets/jardín ☀")
	x.write(t, x.exchange("Which project?", "This one.", "Sure.", "r"))
	x.stop(t, e, func(c *claudeHookCmd) { c.PerProject = true })
	// without --per-project: the session is the hooks' already, in its
	// project's namespace, so it is left out, not stored again
	c := fromCmd("claude-code", filepath.Dir(x.path))
	if out := mustImport(t, e, c); !strings.Contains(out, "Read 0 sessions, 0 turns") || !strings.Contains(out, "Stored 0 memories") || !strings.Contains(out, "Left out 1 session already stored in another namespace ("+hook.ProjectNamespace(x.cwd)+" 1)") {
		t.Errorf("import without --per-project after the hooks with it:\n%s", out)
	}
	c.PerProject = true
	if out := mustImport(t, e, c); !strings.Contains(out, "Stored 0 memories; 3 were already stored") {
		t.Errorf("import --per-project after the hooks:\n%s", out)
	}
	checkStored(t, stored(t, e, hook.ProjectNamespace(x.cwd), sess1), x.want, x.want[0].at)
	if got := stored(t, e, "default", sess1); got != nil {
		t.Errorf("--per-project stored %d memories in the default namespace", len(got))
	}
	if _, err := importHistory(t, e, importCmd{historyOptions: historyOptions{From: "chatgpt", PerProject: true}, File: x.path}); err == nil || !strings.Contains(err.Error(), "--per-project is for --from claude-code") {
		t.Errorf("--per-project with chatgpt: %v", err)
	}
}

// Hooks set up with another --namespace stored the session there: an
// import into the default namespace leaves it out and names where it is
// (it was stored a second time, while the report said nothing was).
func TestImportAfterHooksInAnotherNamespace(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/garden")
	x.write(t, x.exchange("Which namespace?", "Work's.", "Sure.", "r"))
	work := *e
	work.cfg.Namespace = "work"
	x.stop(t, &work)
	c := fromCmd("claude-code", filepath.Dir(x.path))
	if out := mustImport(t, e, c); !strings.Contains(out, "Stored 0 memories") || !strings.Contains(out, "Left out 1 session already stored in another namespace (work 1)") {
		t.Errorf("import into default after the hooks stored in work:\n%s", out)
	}
	if got := stored(t, e, "default", sess1); got != nil {
		t.Errorf("the session was stored again in default: %d memories", len(got))
	}
}

const chatgptFixture = "../../memory/history/chatgpt/testdata/conversations.json"
const claudeAIFixture = "../../memory/history/claudeai/testdata/conversations.json"

// The ChatGPT and Claude.ai fixtures, from the file and from a zip of the
// export, twice: stored once, on the branch the user ended on, each turn
// with its id and time; --dry-run stores nothing.
func TestImportExports(t *testing.T) {
	for _, tc := range []struct {
		from, file, session string
		turns               int
		texts               []string
	}{
		{"chatgpt", chatgptFixture, "6760a1b2-0c3d-8004-9e5f-1a2b3c4d5e6f", 9, []string{
			"I adopted a golden retriever named Biscuit last week.", "Congratulations on Biscuit! 🎉", "Where should I walk him in Lisbon?",
			"Try Parque Eduardo VII — 公園は広いです。", "What breed is this? Ésta es mi foto.", "Looks like a golden retriever.\n\n- ears\n- coat", "No time on this one."}},
		{"claude-ai", claudeAIFixture, "c0ffee00-1111-4222-8333-444455557777", 8, []string{"Name a pasta shape.", "Farfalle 🦋", "Why bow ties?"}},
	} {
		t.Run(tc.from, func(t *testing.T) {
			e := hookEnv(t)
			c := fromCmd(tc.from, tc.file)
			c.DryRun = true
			out := mustImport(t, e, c)
			if !strings.Contains(out, fmt.Sprintf("Would import 2 sessions, %d turns", tc.turns)) || !strings.Contains(out, "Nothing stored (--dry-run)") || !strings.Contains(out, "other branch (edited or regenerated)") {
				t.Errorf("--dry-run:\n%s", out)
			}
			if ns := namespaces(t, e); len(ns) != 0 {
				t.Errorf("--dry-run stored %v", ns)
			}
			zipped := zipExport(t, tc.file)
			for i, file := range []string{tc.file, zipped, tc.file} {
				out := mustImport(t, e, fromCmd(tc.from, file))
				want := fmt.Sprintf("Stored %d memories; 0 were already stored", tc.turns)
				if i > 0 {
					want = fmt.Sprintf("Stored 0 memories; %d were already stored", tc.turns)
				}
				if !strings.Contains(out, want) {
					t.Errorf("import %d of %s: want %q in\n%s", i+1, file, want, out)
				}
			}
			ms := stored(t, e, "default", tc.session)
			if len(ms) != len(tc.texts) {
				t.Fatalf("session %s holds %d turns, want %d", tc.session, len(ms), len(tc.texts))
			}
			for i, m := range ms {
				if m.Text != tc.texts[i] || m.Key == "" {
					t.Errorf("turn %d = %s %q, want %q with its id", i, m.Key, m.Text, tc.texts[i])
				}
			}
		})
	}
}

// A ChatGPT conversation whose mapping is null is left out and counted,
// and the export's others imported (it stopped the whole import, a
// new-user trial found); an export none of whose conversations has a
// mapping is still not a ChatGPT export.
func TestImportChatGPTWithoutMapping(t *testing.T) {
	data, err := os.ReadFile(chatgptFixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "conversations.json")
	null := `{"id":"6760ffff-0000-8000-9000-000000000001","title":"New chat","create_time":1700000000,"mapping":null,"current_node":null}`
	os.WriteFile(p, []byte(`[`+null+`,`+strings.TrimPrefix(strings.TrimSpace(string(data)), "[")), 0o600)
	e := hookEnv(t)
	c := fromCmd("chatgpt", p)
	c.DryRun = true
	out := mustImport(t, e, c)
	for _, want := range []string{"Would import 2 sessions, 9 turns", "     1  conversation without a mapping (no messages in the export)\n", "     1  session without a turn to store\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("--dry-run: want %q in\n%s", want, out)
		}
	}
	if out := mustImport(t, e, fromCmd("chatgpt", p)); !strings.Contains(out, "Stored 9 memories") {
		t.Errorf("import:\n%s", out)
	}
	none := filepath.Join(dir, "none.json")
	os.WriteFile(none, []byte(`[`+null+`,{"id":"c2","title":"t"}]`), 0o600)
	if _, err := importHistory(t, e, fromCmd("chatgpt", none)); err == nil || !strings.Contains(err.Error(), "none.json: not a ChatGPT export that can be read: conversation 1 (id 6760ffff-0000-8000-9000-000000000001): mapping is missing") {
		t.Errorf("no conversation with a mapping: %v", err)
	}
}

// A newer ChatGPT export holds its conversations in shards,
// conversations-000.json, conversations-001.json, … and no
// conversations.json (a new-user trial found it refused as "not a
// ChatGPT export"): its zip and the folder it unzips to are read as the
// one file, in the shards' order, with the same counts and listing; a
// shard that cannot be read is named, and stores nothing of the others.
func TestImportChatGPTShards(t *testing.T) {
	data, err := os.ReadFile(chatgptFixture)
	if err != nil {
		t.Fatal(err)
	}
	var convs []json.RawMessage
	if err := json.Unmarshal(data, &convs); err != nil || len(convs) != 3 {
		t.Fatalf("the fixture: %d conversations, %v", len(convs), err)
	}
	array := func(cs ...json.RawMessage) string { b, _ := json.Marshal(cs); return string(b) }
	shards := map[string]string{
		"conversations-000.json": array(convs[0]), "conversations-001.json": array(convs[1:]...), "conversations-002.json": "[]",
		"export_manifest.json": `{"files":[]}`, "chat.html": "<html></html>", "user.json": "{}", "conversations.json.index": "{}",
	}
	dir := t.TempDir()
	zipped := filepath.Join(dir, "export.zip")
	writeZip(t, zipped, shards)
	folder := filepath.Join(dir, "unzipped")
	os.Mkdir(folder, 0o700)
	for name, content := range shards {
		os.WriteFile(filepath.Join(folder, name), []byte(content), 0o600)
	}
	dryRun := func(e *env, file string) string {
		c := fromCmd("chatgpt", file)
		c.DryRun = true
		out := mustImport(t, e, c)
		// all but the source's name
		return strings.Replace(out, file, "FILE", 1)
	}
	e := hookEnv(t)
	one := dryRun(e, chatgptFixture)
	one = strings.Replace(one, "FILE.", "FILE (3 files, conversations-000.json to conversations-002.json).", 1)
	for _, file := range []string{zipped, folder} {
		if got := dryRun(e, file); got != one {
			t.Errorf("--dry-run of %s:\n%s\nwant, as of the one file:\n%s", file, got, one)
		}
	}
	if out := mustImport(t, e, fromCmd("chatgpt", zipped)); !strings.Contains(out, "Stored 9 memories; 0 were already stored") {
		t.Errorf("import of the zip:\n%s", out)
	}
	if out := mustImport(t, e, fromCmd("chatgpt", chatgptFixture)); !strings.Contains(out, "Stored 0 memories; 9 were already stored") {
		t.Errorf("import of the one file after the shards:\n%s", out)
	}

	// a shard of conversations without a mapping alone: left out, as
	// long as another shard's conversations have theirs
	null := `[{"id":"6760ffff-0000-8000-9000-000000000001","mapping":null}]`
	os.WriteFile(filepath.Join(folder, "conversations-003.json"), []byte(null), 0o600)
	if out := dryRun(e, folder); !strings.Contains(out, "Would import 2 sessions, 9 turns") || !strings.Contains(out, "1  conversation without a mapping") {
		t.Errorf("--dry-run with a shard of a conversation without a mapping:\n%s", out)
	}
	// a conversation in two shards: read once, the other counted
	twice := t.TempDir()
	os.WriteFile(filepath.Join(twice, "conversations-000.json"), []byte(array(convs...)), 0o600)
	os.WriteFile(filepath.Join(twice, "conversations-001.json"), []byte(array(convs[0])), 0o600)
	if out := dryRun(e, twice); !strings.Contains(out, "Would import 2 sessions, 9 turns") || !strings.Contains(out, "1  conversation repeated in another file of the export") {
		t.Errorf("--dry-run with a conversation in two shards:\n%s", out)
	}
	nulls := t.TempDir()
	for _, name := range []string{"conversations-000.json", "conversations-001.json"} {
		os.WriteFile(filepath.Join(nulls, name), []byte(null), 0o600)
	}
	if _, err := importHistory(t, e, fromCmd("chatgpt", nulls)); err == nil || !strings.Contains(err.Error(), filepath.Join(nulls, "conversations-000.json")+": not a ChatGPT export that can be read: conversation 1 (id 6760ffff-0000-8000-9000-000000000001): mapping is missing") {
		t.Errorf("no shard's conversation with a mapping: %v", err)
	}

	// the last shard cut short: named, and nothing of the first stored
	shards["conversations-001.json"] = array(convs[1:]...)[:200]
	writeZip(t, zipped, shards)
	os.WriteFile(filepath.Join(folder, "conversations-001.json"), []byte(shards["conversations-001.json"]), 0o600)
	for _, file := range []string{zipped, folder} {
		e := hookEnv(t)
		_, err := importHistory(t, e, fromCmd("chatgpt", file))
		name := map[string]string{zipped: zipped + ":conversations-001.json", folder: filepath.Join(folder, "conversations-001.json")}[file]
		if err == nil || !strings.Contains(err.Error(), name+": not a ChatGPT export that can be read: truncated") || !strings.Contains(err.Error(), "nothing stored") {
			t.Errorf("a shard cut short in %s: %v, want it named", file, err)
		}
		if ns := namespaces(t, e); len(ns) != 0 {
			t.Errorf("stored %v", ns)
		}
	}
}

// exportFiles picks the export's files of a zip's or a folder's names.
func TestExportFiles(t *testing.T) {
	for _, tc := range []struct {
		names  []string
		shards bool
		want   []string
	}{
		{[]string{"chat.html", "conversations.json", "user.json"}, true, []string{"conversations.json"}},
		{[]string{"conversations-10.json", "conversations-002.json", "conversations-000.json", "conversations.json.index", "export_manifest.json", "conversations-001.json"}, true,
			[]string{"conversations-000.json", "conversations-001.json", "conversations-002.json", "conversations-10.json"}},
		{[]string{"conversations-001.json", "conversations.json"}, true, []string{"conversations.json", "conversations-001.json"}},
		{[]string{"conversations-001.json", "conversations.json"}, false, []string{"conversations.json"}},
		{[]string{"conversations-001.json", "conversations-x.json", "conversations-.json", "my-conversations-002.json"}, false, nil},
		// the least deep folder holding one
		{[]string{"export/conversations-001.json", "export/conversations-000.json", "export/old/conversations.json"}, true, []string{"export/conversations-000.json", "export/conversations-001.json"}},
		{[]string{"b/conversations.json", "a/conversations-000.json"}, true, []string{"a/conversations-000.json"}},
		{[]string{"photos/IMG_0001.jpg"}, true, nil},
	} {
		if got := exportFiles(tc.names, tc.shards); !slices.Equal(got, tc.want) {
			t.Errorf("exportFiles(%q, %v) = %q, want %q", tc.names, tc.shards, got, tc.want)
		}
	}
}

// zipExport writes file as an export's zip: conversations.json among the
// export's other files.
func zipExport(t testing.TB, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "export.zip")
	writeZip(t, path, map[string]string{"chat.html": "<html></html>", "user.json": "{}", "conversations.json": string(data)})
	return path
}

func writeZip(t testing.TB, path string, files map[string]string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for name, content := range files {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// Bad input: a clear error naming the file (and the conversation and the
// field), and nothing stored.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, err := os.ReadFile(chatgptFixture)
	if err != nil {
		t.Fatal(err)
	}
	notExport := filepath.Join(dir, "photos.zip")
	writeZip(t, notExport, map[string]string{"IMG_0001.jpg": "jpeg"})
	for _, tc := range []struct{ name, from, file, want string }{
		{"zip not an export", "chatgpt", notExport, "photos.zip is a zip but not a ChatGPT export: it holds no conversations.json"},
		{"zip cut short", "chatgpt", write("cut.zip", "PK\x03\x04garbage"), "cut.zip starts as a zip but is not one that can be read"},
		{"Claude.ai given as ChatGPT", "chatgpt", claudeAIFixture, "conversation 1: mapping is missing and it has chat_messages: this is a Claude.ai export (use --from claude-ai)"},
		{"ChatGPT given as Claude.ai", "claude-ai", chatgptFixture, "conversation 1: chat_messages is missing and it has a mapping: this is a ChatGPT export"},
		{"another JSON", "chatgpt", write("other.json", `{"messages": []}`), "other.json: not a ChatGPT export that can be read: the top level is an object: want a JSON array of conversations"},
		{"an agentmem export", "claude-ai", write("mem.jsonl", `{"type":"header"}`+"\n"), "the top level is an object"},
		{"truncated", "chatgpt", write("truncated.json", string(good[:len(good)*2/3])), "truncated: the file ends inside element"},
		{"empty", "chatgpt", write("empty.json", ""), "empty.json is empty"},
		{"wrong type", "chatgpt", write("type.json", `[{"id":"c1","mapping":{"n1":{"id":"n1","message":{"id":"n1","author":{"role":7}}}}}]`), "conversation 1 (id c1): mapping.message.author.role has the wrong type"},
		{"bad session id", "claude-ai", write("id.json", `[{"uuid":"a b","chat_messages":[{"uuid":"m1","sender":"human","text":"hi"}]}]`), `conversation 1 (uuid a b, at byte 1): the id "a b" is not a session id`},
		{"not a transcript", "claude-code", write("notes.jsonl", `{"a":1}`+"\n"+`plain text`+"\n"), "notes.jsonl is not a Claude Code transcript (none of its 2 lines is a transcript's)"},
		{"no file", "chatgpt", filepath.Join(dir, "missing.json"), "missing.json: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := hookEnv(t)
			_, err := importHistory(t, e, fromCmd(tc.from, tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("import --from %s %s: %v, want an error with %q", tc.from, tc.file, err, tc.want)
			}
			if ns := namespaces(t, e); len(ns) != 0 {
				t.Errorf("stored %v", ns)
			}
		})
	}
}

// A truncated export stores nothing, even of its complete conversations:
// it is read whole before anything is stored.
func TestImportTruncatedStoresNothing(t *testing.T) {
	e := hookEnv(t)
	var convs []string
	for i := range 50 {
		convs = append(convs, fmt.Sprintf(`{"uuid":"conv-%d","name":"n","created_at":"2024-01-01T00:00:00Z","chat_messages":[{"uuid":"m%d","sender":"human","text":"hello %d","created_at":"2024-01-01T00:00:00Z"}]}`, i, i, i))
	}
	data := "[" + strings.Join(convs, ",") + "]"
	p := filepath.Join(t.TempDir(), "conversations.json")
	os.WriteFile(p, []byte(data[:len(data)-40]), 0o600)
	if _, err := importHistory(t, e, fromCmd("claude-ai", p)); err == nil || !strings.Contains(err.Error(), "ends inside element 50") || !strings.Contains(err.Error(), "nothing stored") {
		t.Errorf("truncated: %v", err)
	}
	if ns := namespaces(t, e); len(ns) != 0 {
		t.Errorf("stored %v", ns)
	}
}

// A conversation of 10,000 messages (100,000 take 50 s here) goes in remember calls within its
// limits; an import cut short after its first call is completed by the
// next run, every turn once.
func TestImportLongConversationResumes(t *testing.T) {
	e := hookEnv(t)
	const n = 10_000
	var b strings.Builder
	b.WriteString(`[{"uuid":"long-1","name":"long","created_at":"2024-01-01T00:00:00Z","chat_messages":[`)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		sender := []string{"human", "assistant"}[i%2]
		fmt.Fprintf(&b, `{"uuid":"m-%d","sender":%q,"created_at":%q,"content":[{"type":"text","text":"turn %d ü"}]}`, i, sender, start.Add(time.Duration(i)*time.Second).Format(time.RFC3339), i)
	}
	b.WriteString(`]}]`)
	p := filepath.Join(t.TempDir(), "conversations.json")
	os.WriteFile(p, []byte(b.String()), 0o600)

	// the first call of the session, as a run killed after it left it
	var first []histSession
	readClaudeAI(strings.NewReader(b.String()), p, func(s histSession) error { first = append(first, s); return nil })
	cl, done, err := connect(e, true)
	if err != nil {
		t.Fatal(err)
	}
	s := first[0]
	s.Turns = s.Turns[:2500]
	if _, err := storeSession(e.ctx, cl, "default", s, func(int) {}); err != nil {
		t.Fatal(err)
	}
	done()

	out := mustImport(t, e, fromCmd("claude-ai", p))
	if want := fmt.Sprintf("Stored %d memories; 2500 were already stored", n-2500); !strings.Contains(out, want) {
		t.Errorf("want %q in\n%s", want, out)
	}
	ms := stored(t, e, "default", "long-1")
	if len(ms) != n {
		t.Fatalf("%d turns stored, want %d", len(ms), n)
	}
	for i, m := range ms {
		if m.Text != fmt.Sprintf("turn %d ü", i) || m.Key != fmt.Sprintf("m-%d", i) || !m.Timestamp.Equal(start.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("turn %d = %s %q %v", i, m.Key, m.Text, m.Timestamp)
		}
	}
}

// --json prints the report; a date out of range is a counted skip.
func TestImportJSONReport(t *testing.T) {
	c := fromCmd("chatgpt", chatgptFixture)
	c.JSON = true
	var rep historyReport
	// print writes to stdout: read the report from history's counting
	src, _, err := c.source()
	if err != nil {
		t.Fatal(err)
	}
	rep.Skipped = claudecode.Skipped{}
	if err := src(func(s histSession) error { rep.count(keepInRange(s)); return nil }); err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 2 || rep.Turns != 9 || rep.Skipped["date out of range"] != 1 || rep.First != "2023-11-14T22:13:21Z" {
		b, _ := json.Marshal(rep)
		t.Errorf("report %s", b)
	}
}

// The import's listing and summary give the days of the configured zone,
// as the store dates the sessions: 01:30Z on 21 November is the 20th in
// Los Angeles.
func TestImportDaysInTheConfiguredZone(t *testing.T) {
	e := hookEnv(t)
	e.cfg.Timezone = "America/Los_Angeles"
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.now = time.Date(2026, 11, 21, 1, 30, 0, 0, time.UTC)
	x.write(t, x.exchange("Yesterday I repotted the fig tree.", "Nice.", "Figs like sun.", "ok"))
	c := fromCmd("claude-code", filepath.Dir(filepath.Dir(x.path)))
	c.DryRun = true
	out := mustImport(t, e, c)
	if !strings.Contains(out, "2026-11-20  "+sess1) || !strings.Contains(out, ", 2026-11-20 to 2026-11-20,") {
		t.Errorf("--dry-run in Los Angeles:\n%s\nwant the session and the span on 2026-11-20", out)
	}
	mustImport(t, e, fromCmd("claude-code", filepath.Dir(filepath.Dir(x.path))))
	if ms := stored(t, e, "default", sess1); len(ms) == 0 || ms[0].SessionDate.Format("2006-01-02") != "2026-11-20" {
		t.Errorf("stored %+v, want the session dated 2026-11-20", ms)
	}
}

// Codex rollouts: the hooks, then the import of the sessions directory
// (the fixture of memory/history/codex, in Codex's dated directories, and
// a file that is not a rollout beside it), which stores nothing twice;
// then the import alone into another data dir, by --dry-run first, every
// turn stored once, with the hook's ids, in its project's namespace with
// --per-project.
func TestImportCodex(t *testing.T) {
	data := append(codexRollout(t), '\n')
	sessions := filepath.Join(t.TempDir(), "sessions")
	path := filepath.Join(sessions, "2026", "12", "02", "rollout-2026-12-02T04-17-29-"+codexSession+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "2026", "notes.jsonl"), []byte("not a rollout\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := codex.Parse(data, true).Turns

	e := hookEnv(t)
	runCodexHook(t, e, codexEvent("Stop", path), hookOptions{})
	hooked := stored(t, e, "default", codexSession)
	if out := mustImport(t, e, fromCmd("codex", sessions)); !strings.Contains(out, fmt.Sprintf("Stored 0 memories; %d were already stored", len(hooked))) || !strings.Contains(out, "(1 Codex rollout)") {
		t.Errorf("import after the hooks:\n%s", out)
	}

	e = hookEnv(t)
	c := fromCmd("codex", sessions)
	c.DryRun, c.PerProject = true, true
	dry := mustImport(t, e, c)
	if !strings.Contains(dry, fmt.Sprintf("Would import 1 session, %d turns", len(want))) || !strings.Contains(dry, codexSession) || strings.Contains(dry, " \n") {
		t.Errorf("--dry-run:\n%s", dry)
	}
	c.DryRun = false
	mustImport(t, e, c)
	ns := namespaces(t, e)
	if len(ns) != 1 || ns[0].Name == "default" {
		t.Fatalf("--per-project stored in %v, want the project's namespace", ns)
	}
	if !strings.Contains(dry, "→ "+ns[0].Name) {
		t.Errorf("--dry-run --per-project:\n%s\nwant the session's namespace, %s", dry, ns[0].Name)
	}
	got := stored(t, e, ns[0].Name, codexSession)
	if len(got) != len(hooked) || len(got) != len(want) {
		t.Fatalf("imported %d turns, the hooks %d, the reader %d", len(got), len(hooked), len(want))
	}
	for i, m := range got {
		if m.Key != hooked[i].Key || m.Text != want[i].Text || !m.Timestamp.Equal(want[i].Time) {
			t.Errorf("turn %d = %s %q %v, want the hook's %s, %q %v", i, m.Key, m.Text, m.Timestamp, hooked[i].Key, want[i].Text, want[i].Time)
		}
	}
}

// A rollout of Codex before the envelope (until mid-2025: the session's
// meta, then record_type state lines and the model-side items as they
// are; the fixture of memory/history/codex) is imported, in a directory
// and named alone (it was counted as "not a Codex rollout", and refused
// when named): the meta's id and timestamp are the session's and its
// turns', the environment context's cwd its project, every turn once.
func TestImportCodexOldRollout(t *testing.T) {
	const oldSession = "5a1b2c3d-0000-4000-8000-00000000abcd"
	data, err := os.ReadFile(filepath.Join("..", "..", "memory", "history", "codex", "testdata", "old.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(t.TempDir(), "sessions")
	path := filepath.Join(sessions, "2025", "05", "09", "rollout-2025-05-09T18-56-41-"+oldSession+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	want := codex.Parse(data, true).Turns
	start := time.Date(2025, 5, 9, 18, 56, 41, 364e6, time.UTC)
	e := hookEnv(t)
	c := fromCmd("codex", sessions)
	c.DryRun, c.PerProject = true, true
	dry := mustImport(t, e, c)
	project := hook.ProjectNamespace("/home/user/proj")
	for _, w := range []string{"2025-05-09  " + oldSession + "  7 turns  → " + project, "Would import 1 session, 7 turns, 2025-05-09 to 2025-05-09", "1  context Codex injects (environment_context)", "1  item function_call\n"} {
		if !strings.Contains(dry, w) {
			t.Errorf("--dry-run: want %q in\n%s", w, dry)
		}
	}
	if out := mustImport(t, e, fromCmd("codex", path)); !strings.Contains(out, "Stored 7 memories; 0 were already stored") {
		t.Errorf("the rollout named alone:\n%s", out)
	}
	if out := mustImport(t, e, fromCmd("codex", sessions)); !strings.Contains(out, "Stored 0 memories; 7 were already stored") {
		t.Errorf("the directory after the file:\n%s", out)
	}
	got := stored(t, e, "default", oldSession)
	if len(got) != len(want) {
		t.Fatalf("stored %d turns, the reader %d", len(got), len(want))
	}
	for i, m := range got {
		if m.Key != want[i].ID || m.Text != want[i].Text || !m.Timestamp.Equal(start) || m.SessionDate.UTC().Format("2006-01-02") != "2025-05-09" {
			t.Errorf("turn %d = %s %q %v (session %v), want %s %q at the meta's time", i, m.Key, m.Text, m.Timestamp, m.SessionDate, want[i].ID, want[i].Text)
		}
	}

	// the same rollout without its meta line: its turns have no time, and
	// the file's name says when (they were dated the day of the import)
	headless := filepath.Join(t.TempDir(), filepath.Base(path))
	_, rest, _ := strings.Cut(string(data), "\n")
	if err := os.WriteFile(headless, []byte(rest), 0o600); err != nil {
		t.Fatal(err)
	}
	e = hookEnv(t)
	mustImport(t, e, fromCmd("codex", headless))
	got = stored(t, e, "default", oldSession)
	if len(got) == 0 {
		t.Fatal("the rollout without its meta line stored nothing")
	}
	for _, m := range got {
		if m.Timestamp == nil || m.Timestamp.Year() != 2025 || m.SessionDate.Year() != 2025 {
			t.Errorf("a turn of the rollout without its meta line dated %v (session %v), want its file name's day in 2025", m.Timestamp, m.SessionDate)
		}
	}
}

// What is not a Codex history says so: a JSON file that is no rollout
// named explicitly, and a directory without rollouts; a rollout without
// its session_meta line is named by the session id ending its file name.
func TestImportCodexInput(t *testing.T) {
	e := hookEnv(t)
	dir := t.TempDir()
	foreign := filepath.Join(dir, "notes.jsonl")
	if err := os.WriteFile(foreign, []byte(`{"a":1}`+"\n"+`{"type":"user","message":{"role":"user","content":"hi"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := importHistory(t, e, fromCmd("codex", foreign)); err == nil || !strings.Contains(err.Error(), "is not a Codex rollout") {
		t.Errorf("a JSON file that is no rollout: %v", err)
	}
	if _, err := importHistory(t, e, fromCmd("codex", t.TempDir())); err == nil || !strings.Contains(err.Error(), "found no Codex rollout under") {
		t.Errorf("a directory without rollouts: %v", err)
	}
	var kept []byte
	for line := range bytes.Lines(append(codexRollout(t), '\n')) {
		if !bytes.Contains(line, []byte(`"type": "session_meta"`)) {
			kept = append(kept, line...)
		}
	}
	noMeta := filepath.Join(dir, "rollout-2026-12-02T04-17-29-"+codexSession+".jsonl")
	if err := os.WriteFile(noMeta, kept, 0o600); err != nil {
		t.Fatal(err)
	}
	mustImport(t, e, fromCmd("codex", noMeta))
	if got, want := len(stored(t, e, "default", codexSession)), len(codex.Parse(kept, true).Turns); got == 0 || got != want {
		t.Errorf("a rollout without its session_meta: %d turns stored under its file's session id, want %d", got, want)
	}
	if ns := namespaces(t, e); len(ns) != 1 {
		t.Errorf("namespaces after the imports: %+v, want default alone", ns)
	}
	// without a FILE: $CODEX_HOME/sessions, where Codex writes when it is set
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	if _, err := importHistory(t, e, fromCmd("codex", "")); err == nil || !strings.Contains(err.Error(), filepath.Join(codexHome, "sessions")) {
		t.Errorf("no FILE, CODEX_HOME set and empty: %v, want its sessions directory named", err)
	}
}

// A message that remember would refuse (an id of 300 characters, one with
// a bidi control, an id repeated) is left out and counted, as the hooks
// leave it out, and a conversation id of ".." is no session: the first
// pass sees what the second stores, so an import that passes it is never
// stored in part (a new-user trial had the second conversation fail after
// the first was stored, every run again).
func TestImportLeavesOutWhatRememberRefuses(t *testing.T) {
	e := hookEnv(t)
	long := strings.Repeat("x", 300)
	data := `[{"uuid":"conv-a","name":"n","created_at":"2024-01-01T00:00:00Z","chat_messages":[{"uuid":"a1","sender":"human","text":"the first conversation","created_at":"2024-01-01T00:00:00Z"}]},` +
		`{"uuid":"conv-b","name":"n","created_at":"2024-01-02T00:00:00Z","chat_messages":[` +
		`{"uuid":"b1","sender":"human","text":"kept","created_at":"2024-01-02T00:00:00Z"},` +
		`{"uuid":"` + long + `","sender":"assistant","text":"an id too long","created_at":"2024-01-02T00:00:01Z"},` +
		`{"uuid":"b\u202e3","sender":"human","text":"an id with a bidi control","created_at":"2024-01-02T00:00:02Z"},` +
		`{"uuid":"b1","sender":"assistant","text":"an id repeated","created_at":"2024-01-02T00:00:03Z"}]}]`
	p := filepath.Join(t.TempDir(), "conversations.json")
	os.WriteFile(p, []byte(data), 0o600)
	out, err := importHistory(t, e, fromCmd("claude-ai", p))
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, want := range []string{"message id that remember refuses", "message id repeated"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not count a %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "Stored 2 memories") {
		t.Errorf("want the two storable turns stored:\n%s", out)
	}
	if got := stored(t, e, "default", "conv-b"); len(got) != 1 || got[0].Text != "kept" {
		t.Errorf("conv-b holds %+v, want only its first turn", got)
	}
	// a conversation id remember refuses is found by the first pass
	dots := filepath.Join(t.TempDir(), "conversations.json")
	os.WriteFile(dots, []byte(`[{"uuid":"conv-c","name":"n","created_at":"2024-01-03T00:00:00Z","chat_messages":[{"uuid":"c1","sender":"human","text":"fine","created_at":"2024-01-03T00:00:00Z"}]},`+
		`{"uuid":"..","name":"n","created_at":"2024-01-03T00:00:00Z","chat_messages":[{"uuid":"d1","sender":"human","text":"a dot-dot conversation","created_at":"2024-01-03T00:00:00Z"}]}]`), 0o600)
	if _, err := importHistory(t, e, fromCmd("claude-ai", dots)); err == nil || !strings.Contains(err.Error(), `the id ".." is not a session id`) || !strings.Contains(err.Error(), "nothing stored") || strings.Contains(err.Error(), "not a Claude.ai export") || strings.Count(err.Error(), dots) != 1 {
		t.Errorf("a conversation id of ..: %v, want it said once, of an export that can be read", err)
	}
	if got := stored(t, e, "default", "conv-c"); len(got) != 0 {
		t.Errorf("conv-c was stored from a file refused: %+v", got)
	}
}

// A history directory given as a symbolic link (a projects folder moved
// to another disk), a transcript that is a link, and a ChatGPT export's
// unzipped folder are read as what they lead to (a new-user trial found
// each one imported nothing).
func TestImportFollowsLinksAndExportFolders(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("I adopted a golden retriever named Biscuit last week.", "Congratulations!", "Goldens love water.", "notes"))
	projects := filepath.Dir(filepath.Dir(x.path))
	links := t.TempDir()
	linked := filepath.Join(links, "projects")
	if err := os.Symlink(projects, linked); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	c := fromCmd("claude-code", linked)
	c.DryRun = true
	if out := mustImport(t, e, c); !strings.Contains(out, "Would import 1 session") {
		t.Errorf("a linked projects directory:\n%s", out)
	}
	// a directory whose transcript is a link to the file
	dir := filepath.Join(t.TempDir(), "p")
	os.MkdirAll(dir, 0o700)
	if err := os.Symlink(x.path, filepath.Join(dir, filepath.Base(x.path))); err != nil {
		t.Fatal(err)
	}
	c = fromCmd("claude-code", dir)
	c.DryRun = true
	if out := mustImport(t, e, c); !strings.Contains(out, "Would import 1 session") {
		t.Errorf("a linked transcript:\n%s", out)
	}
	// the folder a ChatGPT export unzips to
	unzipped := t.TempDir()
	data, err := os.ReadFile(chatgptFixture)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(unzipped, "conversations.json"), data, 0o600)
	c = fromCmd("chatgpt", unzipped)
	c.DryRun = true
	if out := mustImport(t, e, c); !strings.Contains(out, "Would import 2 sessions") {
		t.Errorf("an unzipped export folder:\n%s", out)
	}
	if _, err := importHistory(t, e, fromCmd("chatgpt", t.TempDir())); err == nil || !strings.Contains(err.Error(), "is a directory without a conversations.json") {
		t.Errorf("an empty folder: %v", err)
	}
}

// The report names the lines that are not JSON, FILE:LINE, as the hooks
// do (it gave only their count, which left a damaged file to be hunted).
func TestImportNamesBadLines(t *testing.T) {
	e := hookEnv(t)
	x := newTranscript(t, sess1, "/home/sam/src/garden")
	x.write(t, x.exchange("I adopted a golden retriever named Biscuit last week.", "Congratulations!", "Goldens love water.", "notes"))
	before, err := os.ReadFile(x.path)
	if err != nil {
		t.Fatal(err)
	}
	x.write(t, []byte("{not json\n"))
	x.write(t, x.exchange("Where should I walk him?", "A park.", "ok", "fine"))
	c := fromCmd("claude-code", filepath.Dir(filepath.Dir(x.path)))
	c.DryRun = true
	out := mustImport(t, e, c)
	if want := fmt.Sprintf("Lines that are not JSON: %s:%d.", x.path, bytes.Count(before, []byte("\n"))+1); !strings.Contains(out, want) {
		t.Errorf("the report:\n%s\nwant %q", out, want)
	}
}

// A history dated at the edge of the years a session may have imports
// again: the look for the sessions held elsewhere keeps its day's margin
// within those years (it asked for sessions after 1677-12-31, and the
// second import failed naming an internal resource).
func TestImportAtTheEdgeOfTheYears(t *testing.T) {
	e := hookEnv(t)
	for _, at := range []time.Time{time.Date(dates.MinYear, 1, 1, 12, 0, 0, 0, time.UTC), time.Date(dates.MaxYear, 12, 31, 10, 0, 0, 0, time.UTC)} {
		x := newTranscript(t, sess1, "/home/sam/garden")
		x.now = at
		x.write(t, x.exchange("Which year?", "An old one.", "Sure.", "r"))
		c := fromCmd("claude-code", filepath.Dir(x.path))
		mustImport(t, e, c)
		if out := mustImport(t, e, c); !strings.Contains(out, "Stored 0 memories; 3 were already stored") {
			t.Errorf("import again at %v:\n%s", at, out)
		}
	}
}

// --dry-run lists a directory's sessions by their start, as they are
// stored and recalled, not by their files' names (the list is sorted
// before the text or the JSON is written).
func TestImportDryRunListsByStart(t *testing.T) {
	e := hookEnv(t)
	first := newTranscript(t, sess1, "/home/sam/src/garden")
	dir := filepath.Dir(first.path)
	for i, id := range []string{sess3, sess2, sess1} { // by name: sess1, sess2, sess3
		x := first
		if id != sess1 {
			x = &transcript{path: filepath.Join(dir, id+".jsonl"), session: id, cwd: first.cwd}
		}
		x.now = time.Date(2026, 11, 10+5*i, 9, 0, 0, 0, time.UTC)
		x.write(t, x.exchange(fmt.Sprintf("Session %d: the fig tree.", i), "Nice.", "Figs like sun.", "ok"))
	}
	c := fromCmd("claude-code", filepath.Dir(dir))
	c.DryRun = true
	out := mustImport(t, e, c)
	at := func(id string) int { return strings.Index(out, id) }
	if !(at(sess3) >= 0 && at(sess3) < at(sess2) && at(sess2) < at(sess1)) {
		t.Errorf("--dry-run, sessions of 2026-11-10 (%s), 11-15 (%s) and 11-20 (%s):\n%s\nwant them in that order", sess3[:8], sess2[:8], sess1[:8], out)
	}
}
