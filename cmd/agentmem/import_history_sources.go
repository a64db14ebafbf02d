package main

import (
	"archive/zip"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agentmem/cmd/internal/hook"
	"agentmem/memory/history"
	"agentmem/memory/history/chatgpt"
	"agentmem/memory/history/claudeai"
	"agentmem/memory/history/claudecode"
	"agentmem/memory/history/codex"
	"agentmem/tools/spec"
)

// claudeCodeSource reads a Claude Code transcript, or every transcript
// under a directory (default ~/.claude/projects): one session per file,
// named by the file as the hooks name it (Claude Code's session id), read
// by the hooks' parser. Subagents' transcripts are left out, as their
// sidechain lines are.
func claudeCodeSource(path string) (histSource, string, error) {
	return filesSource(path, []string{".claude", "projects"}, transcripts, readTranscript, "Claude Code transcript")
}

// codexSource reads a Codex CLI rollout, or every rollout under a
// directory (default $CODEX_HOME/sessions, or ~/.codex/sessions, where
// Codex writes them): one session per file, named as Codex's hooks name
// it (its session id, from the rollout's session_meta), read by the hooks'
// parser.
func codexSource(path string) (histSource, string, error) {
	if home := os.Getenv("CODEX_HOME"); path == "" && home != "" {
		path = filepath.Join(home, "sessions")
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Errorf("no Codex rollout history at %s ($CODEX_HOME/sessions): give the directory that holds it, or one file", path)
		}
	}
	return filesSource(path, []string{".codex", "sessions"}, rollouts, readRollout, "Codex rollout")
}

// filesSource reads one session per file: path, or every file list finds
// under it when it is a directory (by default the directory home in the
// user's home directory), each with read.
func filesSource(path string, home []string, list func(string) ([]string, error), read func(string, bool) (histSession, error), what string) (histSource, string, error) {
	given := path != ""
	if !given {
		dir, err := os.UserHomeDir()
		if err != nil {
			return nil, "", fmt.Errorf("no FILE given and no home directory for ~/%s: %w", filepath.Join(home...), err)
		}
		path = filepath.Join(append([]string{dir}, home...)...)
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) && !given {
		return nil, "", fmt.Errorf("no %s history at %s: give the directory that holds it, or one file", what, path)
	}
	if err != nil {
		return nil, "", err
	}
	files := []string{path}
	if st.IsDir() {
		// a directory given as a symbolic link is walked where it leads
		// (filepath.WalkDir does not follow a link at its root)
		root, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, "", err
		}
		if files, err = list(root); err != nil {
			return nil, "", err
		}
		if len(files) == 0 {
			return nil, "", fmt.Errorf("found no %s under %s", what, path)
		}
	}
	src := func(yield func(histSession) error) error {
		for _, f := range files {
			s, err := read(f, !st.IsDir())
			if err != nil {
				return err
			}
			if err := yield(s); err != nil {
				return err
			}
		}
		return nil
	}
	return src, fmt.Sprintf("%s (%s)", path, spec.Count(len(files), what)), nil
}

// rollouts lists the rollout files under dir (rollout-*.jsonl), in order.
func rollouts(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && regularFile(p, d) && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	slices.Sort(files)
	return files, err
}

// readRollout reads a Codex rollout as one session, named by the session
// id of its session_meta line as the Codex hooks name it; explicit (a file
// given by name) makes a file that is not a rollout an error.
func readRollout(path string, explicit bool) (histSession, error) {
	s := histSession{Where: path, Skipped: claudecode.Skipped{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	res := codex.Parse(data, true)
	if res.Lines > 0 && len(res.Turns) == 0 && res.Skipped["session_meta"]+res.Skipped["model-side log (response_item)"] == 0 {
		if explicit {
			return s, fmt.Errorf("%s is not a Codex rollout (none of its %d lines is a rollout's)", path, res.Lines)
		}
		s.Skipped["file that is not a Codex rollout"]++
		return s, nil
	}
	s.Skipped = res.Skipped
	s.Bad = linesOf(path, res.Bad)
	s.ID = rolloutSession(path)
	for _, t := range res.Turns { // the session_meta line may come late, or not at all
		if t.Session != "" && hook.ValidSession(t.Session) {
			s.ID, s.CWD = t.Session, t.CWD
			break
		}
	}
	if !hook.ValidSession(s.ID) {
		if len(res.Turns) > 0 {
			s.Skipped["rollout without a session id"]++
		}
		s.ID = ""
		return s, nil
	}
	s.Turns = res.Turns // none: counted as a session without a turn to store
	if at := rolloutTime(path); !at.IsZero() {
		// an older rollout's lines have no time of their own, and without
		// its meta line its turns have none: the file's name says when
		for i := range s.Turns {
			if s.Turns[i].Time.IsZero() {
				s.Turns[i].Time = at
			}
		}
	}
	return s, nil
}

// rolloutTime is the time a rollout's file name starts with
// (rollout-2025-05-09T18-56-41-<uuid>.jsonl), in this machine's zone, as
// Codex names them; zero when the name has none.
func rolloutTime(path string) time.Time {
	name, ok := strings.CutPrefix(filepath.Base(path), "rollout-")
	if !ok || len(name) < len("2006-01-02T15-04-05") {
		return time.Time{}
	}
	at, err := time.ParseInLocation("2006-01-02T15-04-05", name[:len("2006-01-02T15-04-05")], time.Local)
	if err != nil {
		return time.Time{}
	}
	return at
}

// rolloutSession is the session id that ends a rollout's file name
// (rollout-2026-12-02T04-17-29-<uuid>.jsonl), or "".
func rolloutSession(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(name) < 36 {
		return ""
	}
	id := name[len(name)-36:]
	for i, c := range id {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		if dash != (c == '-') || !dash && !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return ""
		}
	}
	return id
}

// linesOf names lines of path, FILE:LINE, at most maxBadLines of them.
func linesOf(path string, lines []int) []string {
	var out []string
	for _, n := range lines[:min(len(lines), maxBadLines)] {
		out = append(out, fmt.Sprintf("%s:%d", path, n))
	}
	return out
}

// regularFile reports a regular file at p, or a symbolic link to one.
func regularFile(p string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink != 0 {
		st, err := os.Stat(p)
		return err == nil && st.Mode().IsRegular()
	}
	return d.Type().IsRegular()
}

// transcripts lists the session files under dir, in order, leaving out
// subagents' (…/subagents/agent-*.jsonl, and agent-*.jsonl of older
// versions).
func transcripts(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "subagents":
			return filepath.SkipDir
		case regularFile(p, d) && strings.HasSuffix(d.Name(), ".jsonl") && !strings.HasPrefix(d.Name(), "agent-"):
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// readTranscript reads one transcript as a session. A file none of whose
// lines is a transcript's is an error when it was named (explicit), and a
// counted skip in a directory.
func readTranscript(path string, explicit bool) (histSession, error) {
	s := histSession{Where: path, Skipped: claudecode.Skipped{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	res := claudecode.Parse(data, true)
	if res.Lines > 0 && len(res.Bad)+res.Skipped[claudecode.Untyped] == res.Lines {
		if explicit {
			return s, fmt.Errorf("%s is not a Claude Code transcript (none of its %d lines is a transcript's)", path, res.Lines)
		}
		s.Skipped["file that is not a Claude Code transcript"]++
		return s, nil
	}
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if !hook.ValidSession(id) {
		s.Skipped["file not named as a session id"]++
		return s, nil
	}
	s.ID, s.Skipped, s.Turns, s.Bad = id, res.Skipped, res.Turns, linesOf(path, res.Bad)
	if len(res.Turns) > 0 {
		s.CWD = res.Turns[0].CWD
	}
	return s, nil
}

// exportKind is what exportSource reads of an app's export.
type exportKind struct {
	app string // "ChatGPT", "Claude.ai"
	// shards: the export may hold its conversations in several files,
	// conversations-000.json, conversations-001.json, … (ChatGPT's newer
	// exports), beside or instead of conversations.json.
	shards bool
	// reader reads the files of one export in turn, as one: read each
	// file, then done.
	reader func() (read func(r io.Reader, where string, yield func(histSession) error) error, done func() error)
}

var (
	chatGPTExport  = exportKind{app: "ChatGPT", shards: true, reader: chatGPTReader}
	claudeAIExport = exportKind{app: "Claude.ai", reader: func() (func(io.Reader, string, func(histSession) error) error, func() error) {
		return readClaudeAI, func() error { return nil }
	}}
)

// files names the files an export's conversations are in, for messages.
func (k exportKind) files() string {
	if k.shards {
		return "conversations.json (nor conversations-000.json, conversations-001.json, … of a newer export)"
	}
	return "conversations.json"
}

// exportSource reads an export's conversations.json, or the zip holding
// it, or the folder it unzips to; with k.shards, every file of a sharded
// export (conversations-000.json, …) in turn, as one export. It is
// checked whole on the first pass, every file of it, and streamed on both.
func exportSource(file string, k exportKind) (histSource, string, error) {
	if file == "" {
		return nil, "", fmt.Errorf("give the %s export: its zip or its conversations.json", k.app)
	}
	if st, err := os.Stat(file); err == nil && st.IsDir() {
		return folderExport(file, k)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, "", err
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if n == 0 {
		return nil, "", fmt.Errorf("%s is empty: want the %s export's zip or its conversations.json", file, k.app)
	}
	if !bytes.Equal(head[:n], []byte("PK\x03\x04")) {
		return plainFiles([]string{file}, k), file, nil
	}
	return zippedExport(file, k)
}

// folderExport reads the folder an export unzips to.
func folderExport(dir string, k exportKind) (histSource, string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", err
	}
	var names []string
	for _, d := range entries {
		if regularFile(filepath.Join(dir, d.Name()), d) {
			names = append(names, d.Name())
		}
	}
	files := exportFiles(names, k.shards)
	if len(files) == 0 {
		return nil, "", fmt.Errorf("%s is a directory without a %s: want the %s export's zip, its conversations.json, or the folder it unzips to", dir, k.files(), k.app)
	}
	for i, f := range files {
		files[i] = filepath.Join(dir, f)
	}
	return plainFiles(files, k), label(dir, files), nil
}

// zippedExport reads the export's files in its zip, each named
// ZIP:ENTRY.
func zippedExport(file string, k exportKind) (histSource, string, error) {
	files, err := zipFiles(file, k)
	if err != nil {
		return nil, "", err
	}
	src := func(yield func(histSession) error) error {
		z, err := zip.OpenReader(file)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		defer z.Close()
		read, done := k.reader()
		for _, entry := range files {
			where := file + ":" + entry
			r, err := z.Open(entry)
			if err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
			err = read(r, where, yield)
			r.Close()
			if err != nil {
				return err
			}
		}
		return done()
	}
	if len(files) == 1 {
		return src, file + ":" + files[0], nil
	}
	return src, label(file, files), nil
}

// plainFiles reads the export's files, each named by its path.
func plainFiles(files []string, k exportKind) histSource {
	return func(yield func(histSession) error) error {
		read, done := k.reader()
		for _, p := range files {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			err = read(f, p, yield)
			f.Close()
			if err != nil {
				return err
			}
		}
		return done()
	}
}

// label names an export of files (in the folder or the zip file) in the
// report: the file itself when there is one.
func label(file string, files []string) string {
	if len(files) == 1 {
		return files[0]
	}
	first, last := filepath.Base(files[0]), filepath.Base(files[len(files)-1])
	return fmt.Sprintf("%s (%s, %s to %s)", file, spec.Count(len(files), "file"), first, last)
}

// zipFiles finds the export's files in the zip.
func zipFiles(file string, k exportKind) ([]string, error) {
	z, err := zip.OpenReader(file)
	if err != nil {
		return nil, fmt.Errorf("%s starts as a zip but is not one that can be read (%v): cut short?", file, err)
	}
	defer z.Close()
	var names []string
	for _, f := range z.File {
		if !f.FileInfo().IsDir() {
			names = append(names, f.Name)
		}
	}
	files := exportFiles(names, k.shards)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s is a zip but not a %s export: it holds no %s (%d files)", file, k.app, k.files(), len(z.File))
	}
	return files, nil
}

// exportFiles picks an export's files among names (slash-separated, as a
// zip names them): conversations.json, and with shards the files
// conversations-NNN.json, all of the least deep folder holding one (the
// top, or the one folder the zip holds), conversations.json first, then
// the shards in the order of their numbers.
func exportFiles(names []string, shards bool) []string {
	var found []string
	for _, n := range names {
		if base := path.Base(n); base == "conversations.json" || shards && shardNumber(base) != "" {
			found = append(found, n)
		}
	}
	if len(found) == 0 {
		return nil
	}
	depth := func(n string) int { return strings.Count(n, "/") }
	top := slices.MinFunc(found, func(a, b string) int {
		return cmp.Or(cmp.Compare(depth(a), depth(b)), cmp.Compare(path.Dir(a), path.Dir(b)))
	})
	found = slices.DeleteFunc(found, func(n string) bool { return path.Dir(n) != path.Dir(top) })
	slices.SortFunc(found, func(a, b string) int {
		na, nb := shardNumber(path.Base(a)), shardNumber(path.Base(b))
		// conversations.json (no number) first, then by number: 2 before 10
		return cmp.Or(cmp.Compare(len(na), len(nb)), cmp.Compare(na, nb), cmp.Compare(a, b))
	})
	return found
}

// shardNumber is the number of a shard's file name, conversations-NNN.json,
// without its leading zeros ("0" for zero), or "" for another name.
func shardNumber(name string) string {
	n, ok := strings.CutPrefix(name, "conversations-")
	if n, ok = strings.CutSuffix(n, ".json"); !ok || n == "" || strings.Trim(n, "0123456789") != "" {
		return ""
	}
	return cmp.Or(strings.TrimLeft(n, "0"), "0")
}

// chatGPTReader reads the files of a ChatGPT export as one: a
// conversation without a mapping is left out unless no conversation of
// any file has one (then it is not a ChatGPT export).
func chatGPTReader() (func(io.Reader, string, func(histSession) error) error, func() error) {
	var x chatgpt.Reader
	unmapped := "" // the file of the first conversation without a mapping
	seen := map[string]bool{}
	read := func(r io.Reader, where string, yield func(histSession) error) error {
		session := exportSession(where, "id", yield)
		return exportError(x.Read(r, func(c history.Conversation) error {
			if c.LeftOut && unmapped == "" {
				unmapped = where
			}
			if !c.LeftOut && c.ID != "" {
				if seen[c.ID] { // in an earlier file of the export: read once
					c.LeftOut, c.Skipped = true, history.Skipped{"conversation repeated in another file of the export": 1}
				}
				seen[c.ID] = true
			}
			return session(c)
		}), where, "ChatGPT")
	}
	return read, func() error { return exportError(x.Err(), unmapped, "ChatGPT") }
}

func readClaudeAI(r io.Reader, where string, yield func(histSession) error) error {
	return exportError(claudeai.Read(r, exportSession(where, "uuid", yield)), where, "Claude.ai")
}

// exportSession yields an export's conversation as a session, its turns
// said in it; one left out whole yields only its counts.
func exportSession(where, idName string, yield func(histSession) error) func(history.Conversation) error {
	return func(c history.Conversation) error {
		s := histSession{ID: c.ID, Title: c.Title, Date: c.Create, Skipped: c.Skipped,
			Where: fmt.Sprintf("%s: conversation %d (%s %s, at byte %d)", where, c.Index, idName, c.ID, c.Offset)}
		if c.LeftOut {
			if err := yield(histSession{Where: s.Where, Skipped: c.Skipped}); err != nil {
				return errStop{err}
			}
			return nil
		}
		for _, t := range c.Turns {
			t.Session = c.ID
			s.Turns = append(s.Turns, t)
		}
		return validSession(s, yield)
	}
}

// errStop marks an error of the import's own (a remember call), which the
// reader returns as it is.
type errStop struct{ error }

func (e errStop) Unwrap() error { return e.error }

// validSession checks what remember would refuse of the whole session
// before anything is stored: its id, and turns without ids or with one id
// twice.
func validSession(s histSession, yield func(histSession) error) error {
	if !hook.ValidSession(s.ID) {
		// an export that can be read, with an id remember refuses: said
		// as it is (errStop), not as a file that is no export
		return errStop{fmt.Errorf("%s: the id %q is not a session id (1 to 200 letters, digits, '.', '_' or '-'; not . or ..)", s.Where, s.ID)}
	}
	// (a repeated id is left out with every source's, by keepInRange)
	kept := s.Turns[:0]
	for _, t := range s.Turns {
		if t.ID == "" {
			s.Skipped["message without an id"]++
			continue
		}
		kept = append(kept, t)
	}
	s.Turns = kept
	if err := yield(s); err != nil {
		return errStop{err}
	}
	return nil
}

func exportError(err error, where, app string) error {
	var stop errStop
	if err == nil || errors.As(err, &stop) {
		if stop.error != nil {
			return stop.error
		}
		return err
	}
	return fmt.Errorf("%s: not a %s export that can be read: %w", where, app, err)
}
