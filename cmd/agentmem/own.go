package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"agentmem/cmd/internal/backend"
	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/tools/client"
	"agentmem/tools/spec"

	"github.com/mark3labs/mcp-go/mcp"
)

// See, move and own the memory. namespaces, sessions and show read the
// resources through the typed MCP client, as any MCP client would (and so
// also while a server holds the data dir, through its socket); export and
// import stream between a file and the store through the memory service,
// which needs the store to itself.

type namespacesCmd struct{ output }

func (c namespacesCmd) Run(e *env) error {
	return withClient(e, func(cl *client.Client) error {
		ns, err := cl.Namespaces(e.ctx)
		if err != nil {
			return err
		}
		if c.JSON {
			return c.print(ns, "")
		}
		if len(ns) == 0 {
			fmt.Println("No memories stored yet.")
			return nil
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAMESPACE\tMEMORIES\tSESSIONS\tFIRST\tLAST")
		for _, n := range ns {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", n.Name, n.Memories, n.Sessions, day(n.First), day(n.Last))
		}
		return tw.Flush()
	})
}

func day(rfc3339 string) string {
	t, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		return rfc3339
	}
	return t.Format("2006-01-02 Mon")
}

type sessionsCmd struct {
	output
	NS     string `name:"ns" help:"Namespace (default --namespace)."`
	After  string `name:"after" help:"Only sessions on or after this date."`
	Before string `name:"before" help:"Only sessions on or before this date (a bare date includes that day)."`
	Limit  int    `name:"limit" default:"50" help:"Sessions per page (1-1000)."`
	Cursor string `name:"cursor" help:"Start after the page that printed this cursor."`
}

// bounds says which sessions the dates given keep.
func (c sessionsCmd) bounds() string {
	switch {
	case c.After != "" && c.Before != "":
		return "from " + c.After + " to " + c.Before
	case c.After != "":
		return "with a turn on or after " + c.After
	case c.Before != "":
		return "begun on or before " + c.Before
	}
	return "on this page"
}

func (c sessionsCmd) Run(e *env) error {
	// 0 and negative numbers would be left out of the URI (the default)
	if c.Limit < 1 || c.Limit > memory.MaxSessionPage {
		return fmt.Errorf("sessions: --limit must be at least 1 and at most %d, got %d", memory.MaxSessionPage, c.Limit)
	}
	ns := cmp.Or(c.NS, e.cfg.Namespace)
	return withClient(e, func(cl *client.Client) error {
		page, err := cl.Sessions(e.ctx, ns, c.After, c.Before, c.Limit, c.Cursor)
		if errors.Is(err, mcp.ErrResourceNotFound) {
			return c.print(spec.SessionsPage{Sessions: []spec.Session{}}, emptyNamespace(ns))
		}
		if err != nil {
			return err
		}
		if c.JSON {
			return c.print(page, "")
		}
		if len(page.Sessions) == 0 {
			fmt.Printf("No sessions in namespace %s %s (it holds %s).\n", ns, c.bounds(), spec.Count(page.Total, "session"))
			return nil
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DATE\tSESSION\tTURNS\tFIRST WORDS")
		for _, s := range page.Sessions {
			when := day(s.Date)
			if s.Last != "" { // resumed on a later day
				when += " – " + day(s.Last)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", when, s.ID, s.Turns, s.Preview)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if page.Next != "" {
			fmt.Printf("\nMore: agentmem sessions --ns %s --cursor %s\n", ns, page.Next)
		}
		return nil
	})
}

type showCmd struct {
	Session string `arg:"" help:"Session id (as 'agentmem sessions' lists it), or the start of a UUID id as recall shows it."`
	NS      string `name:"ns" help:"Namespace (default --namespace)."`
}

// Run prints a session in turn order: the resource
// agentmem://{namespace}/sessions/{session_id}.
func (c showCmd) Run(e *env) error {
	if strings.TrimSpace(c.Session) == "" {
		return errors.New("show: the session id must not be empty (agentmem sessions lists them)")
	}
	ns := cmp.Or(c.NS, e.cfg.Namespace)
	return withClient(e, func(cl *client.Client) error {
		text, err := cl.Transcript(e.ctx, ns, c.Session)
		if err != nil {
			return err
		}
		fmt.Print(text)
		return nil
	})
}

type exportCmd struct {
	NS      []string `name:"ns" help:"Export only this namespace (repeat for several). Default: every namespace."`
	Vectors bool     `name:"vectors" help:"Include the stored vectors (larger; without them, import embeds again)."`
	Out     string   `name:"out" short:"o" placeholder:"FILE" help:"Write to FILE instead of stdout."`
	Salvage bool     `name:"salvage" help:"Of a store whose records are damaged (agentmem check says so), export every memory that can be read, naming those left out, to import into a new data dir when there is no backup."`
}

func (c exportCmd) Run(e *env) error {
	// a new or mistyped --data-dir holds nothing to export: say so, and
	// create no store there
	if dir, none, err := noStore(e); err != nil {
		return err
	} else if none {
		return fmt.Errorf("no store in %s: nothing to export (is --data-dir right?)", dir)
	}
	b, err := openOwned(e)
	if err != nil {
		return err
	}
	defer b.Close()
	export := func(w io.Writer) error {
		res, err := b.Service.Export(e.ctx, w, memory.ExportOptions{Namespaces: c.NS, Vectors: c.Vectors, Version: version, Salvage: c.Salvage})
		if err != nil {
			if errors.Is(err, embedded.ErrDamaged) && !c.Salvage {
				err = fmt.Errorf("%w\nWithout a backup, export what can be read with agentmem export --salvage, then import it into a new data dir", err)
			}
			return err
		}
		what := spec.Count(res.Memories, "memory")
		if res.Marks > 0 {
			what += " and " + marksOf(res.Marks) + ","
		}
		fmt.Fprintf(os.Stderr, "exported %s of %s\n", what, spec.Count(res.Namespaces, "namespace"))
		if len(res.Damaged) > 0 {
			fmt.Fprintf(os.Stderr, "left out %s whose records are damaged: %s\n", spec.Count(len(res.Damaged), "memory"), strings.Join(readableKeys(res.Damaged), ", "))
		}
		if len(res.NoVectors) > 0 {
			fmt.Fprintf(os.Stderr, "exported %s without their damaged vectors (import embeds them again): %s\n", spec.Count(len(res.NoVectors), "memory"), strings.Join(readableKeys(res.NoVectors), ", "))
		}
		return nil
	}
	if c.Out == "" || c.Out == "-" {
		return export(os.Stdout)
	}
	return writeFile(c.Out, export)
}

// readableKeys shows the store's keys of memories (namespace, a unit
// separator, id) as namespace/id.
func readableKeys(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.Replace(k, "\x1f", "/", 1)
	}
	return out
}

// writeFile writes path whole or not at all: beside it, synced, then
// renamed over it (and the directory synced), so that a failed export
// never leaves a partial file under its name, nor a crash an empty one. It
// replaces a regular file only: a symlink, a FIFO, a device or a directory
// stays what it is.
func writeFile(path string, write func(io.Writer) error) error {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("-o %s: it is a %s, not a regular file; export replaces regular files only (write to it with > %s instead)", path, fileKind(fi.Mode()), path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".agentmem-export-*")
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		// its name is the temporary file's: say the user's
		return fmt.Errorf("-o %s: %w", path, pe.Err)
	}
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	case m&os.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

type importCmd struct {
	output
	historyOptions
	File string `arg:"" optional:"" help:"An export file (agentmem export), or - for stdin; with --from, the other program's history."`
}

func (c importCmd) Run(e *env) error {
	if c.From != "" {
		return c.history(e, os.Stdout)
	}
	path, done, err := c.exportFile()
	if err != nil {
		return err
	}
	defer done()
	open := openOwned
	if c.DryRun {
		open = openDry
	}
	b, err := open(e)
	if err != nil {
		return err
	}
	defer b.Close()
	var pb bar // made at the first progress, which tells the total
	progress := func(done, total int) {
		if pb.b == nil {
			pb = newBar(total, "importing")
		}
		pb.set(done)
	}
	res, err := b.Service.Import(e.ctx, func() (io.ReadCloser, error) { return os.Open(path) }, memory.ImportOptions{Progress: progress, DryRun: c.DryRun})
	pb.finish()
	var le *memory.LineError
	if errors.As(err, &le) && le.Line == 1 {
		if from := historyKind(path); from != "" {
			return fmt.Errorf("%s: %w; it reads as a %s history: import it with --from %s", c.File, err, from, from)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	return c.print(res, importSummary(res))
}

// historyKind is the --from that the first line of the file at path
// reads as: a Claude Code transcript's line (its sessionId), a Codex
// rollout's (session_meta), a ChatGPT or claude.ai export's
// conversations.json (an array); "" for none of them.
func historyKind(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	switch t := strings.TrimSpace(line); {
	case strings.Contains(t, `"sessionId"`):
		return "claude-code"
	case strings.Contains(t, `"session_meta"`):
		return "codex"
	case strings.HasPrefix(t, "[") && strings.Contains(t, `"mapping"`):
		return "chatgpt"
	case strings.HasPrefix(t, "[") && strings.Contains(t, `"chat_messages"`):
		return "claude-ai"
	}
	return ""
}

// exportFile is the export file to import (stdin spooled to a file, which
// import reads twice: check, then store) and what removes the spool. It
// refuses the flags that are for --from only.
func (c importCmd) exportFile() (string, func(), error) {
	switch {
	case c.PerProject:
		return "", nil, errors.New("--per-project is for --from claude-code or codex: an agentmem export keeps each memory's namespace")
	case c.NoWait:
		return "", nil, errors.New("--no-wait is for --from: the import of an agentmem export stores each memory with its vectors (the file's, or made again as it goes)")
	case c.File == "":
		return "", nil, errors.New("give the export file to import (agentmem export writes one), or --from claude-code|codex|chatgpt|claude-ai")
	case c.File != "-":
		fi, err := os.Stat(c.File)
		if err == nil && fi.IsDir() {
			err = fmt.Errorf("%s is a directory: import reads an agentmem export file; a directory of Claude Code transcripts is imported with --from claude-code, one of Codex rollouts with --from codex (--from chatgpt and --from claude-ai read their export's zip or conversations.json)", c.File)
		}
		return c.File, func() {}, err
	}
	tmp, err := os.CreateTemp("", "agentmem-import-*.jsonl")
	if err != nil {
		return "", nil, err
	}
	done := func() { os.Remove(tmp.Name()) }
	_, err = io.Copy(tmp, os.Stdin)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		done()
		return "", nil, err
	}
	return tmp.Name(), done, nil
}

func importSummary(r memory.ImportResult) string {
	if r.DryRun {
		return fmt.Sprintf("Would import %s in %s (%d already stored, to skip; %d to embed again)%s. Nothing stored (--dry-run).", spec.Count(r.Imported, "memory"), spec.Count(r.Sessions, "session"), r.Skipped, r.Reembedded, marksSummary(r))
	}
	return fmt.Sprintf("Imported %s in %s (%d already stored, skipped; %d embedded again)%s.", spec.Count(r.Imported, "memory"), spec.Count(r.Sessions, "session"), r.Skipped, r.Reembedded, marksSummary(r))
}

// marksSummary is what an import summary says of the file's marks of
// forgotten turns: nothing when it holds none.
func marksSummary(r memory.ImportResult) string {
	var b strings.Builder
	if r.Marks+r.MarksSkipped > 0 {
		skipped := "skipped"
		if r.DryRun {
			skipped = "to skip"
		}
		fmt.Fprintf(&b, " and %s (%d already held, %s)", marksOf(r.Marks), r.MarksSkipped, skipped)
	}
	if r.MarksLive > 0 {
		what := "the turn itself (forget it here too)"
		if r.MarksLive > 1 {
			what = "those turns themselves (forget them here too)"
		}
		fmt.Fprintf(&b, "; %s left out: this store holds %s", marksOf(r.MarksLive), what)
	}
	if r.MarksNotKept > 0 {
		fmt.Fprintf(&b, "; %s not kept: this store keeps no marks, and a resend of their sessions stores those turns again", marksOf(r.MarksNotKept))
	}
	return b.String()
}

// marksOf counts marks of forgotten turns.
func marksOf(n int) string {
	if n == 1 {
		return "1 mark of a forgotten turn"
	}
	return fmt.Sprintf("%d marks of forgotten turns", n)
}

// noStore reports whether e's memory is an embedded store that its data
// dir (dir) does not hold yet: opening it would create one.
func noStore(e *env) (dir string, none bool, err error) {
	if dir, err = e.cfg.Dir(); err != nil || e.cfg.Store == "couchbase" {
		return dir, false, err
	}
	_, err = os.Stat(filepath.Join(dir, "store"))
	return dir, errors.Is(err, fs.ErrNotExist), nil
}

// openDry opens the memory a dry run checks the file against: the data
// dir's, or, when it holds no store yet, an empty one in a temporary
// directory, so that a dry run creates nothing.
func openDry(e *env) (*backend.Backend, error) {
	if _, none, err := noStore(e); err != nil {
		return nil, err
	} else if !none {
		return openOwned(e)
	}
	tmp, err := os.MkdirTemp("", "agentmem-dry-run-*")
	if err != nil {
		return nil, err
	}
	cfg := e.cfg
	cfg.DataDir = tmp
	b, err := backend.Open(e.ctx, cfg, e.log)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	b.OnClose(func() error { return os.RemoveAll(tmp) })
	return b, nil
}

// openOwned opens the memory for a command that streams the whole store:
// it cannot go through another process's socket.
func openOwned(e *env) (*backend.Backend, error) {
	b, err := backend.Open(e.ctx, e.cfg, e.log)
	if errors.Is(err, memory.ErrInUse) {
		return nil, fmt.Errorf("%w: export and import need the store to themselves; stop the agentmem server using it, or let the command that holds it (an import, a reindex) finish, then run this again", err)
	}
	return b, err
}
