package main_test

import (
	"bufio"
	"bytes"
	le "encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// agentmem check passes a healthy data dir, names a lost text index (which
// the next command rebuilds) and a damaged record file with exit status 1;
// a command on a damaged record file fails with a clear message and no
// stack trace.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (string, int) { t.Helper(); return agentmemIn(t, dir, args...) }
	for _, text := range []string{"My locker code is 4417.", "The boiler was serviced in March.", "Pixel the greyhound likes carrots."} {
		if out, code := run("remember", text); code != 0 {
			t.Fatalf("remember: %d\n%s", code, out)
		}
	}
	if out, code := run("check"); code != 0 || !strings.Contains(out, "3 memories") || !strings.Contains(out, "OK") {
		t.Fatalf("check of a healthy store: exit %d\n%s", code, out)
	}
	if out, code := run("remember", "--session-id", "pin", "My PIN is 7203."); code != 0 {
		t.Fatalf("remember: %d\n%s", code, out)
	}
	if out, code := run("forget", "pin:0"); code != 0 {
		t.Fatalf("forget: %d\n%s", code, out)
	}
	if out, code := run("check"); code != 0 || !strings.Contains(out, "3 memories, 3 sessions, ") || !strings.Contains(out, "with vectors, 1 mark of a forgotten turn") {
		t.Fatalf("check of a store with a forgotten turn: exit %d\n%s", code, out)
	}

	store := filepath.Join(dir, "store")
	os.RemoveAll(filepath.Join(store, "text"))
	if out, code := run("check"); code != 1 || !strings.Contains(out, "text index") || !strings.Contains(out, "is missing") || !strings.Contains(out, "agentmem reindex --text") {
		t.Fatalf("check of a store without its index: exit %d\n%s", code, out)
	}
	if out, code := run("recall", "boiler"); code != 0 || !strings.Contains(out, "The boiler was serviced") || !strings.Contains(out, "rebuilding it from the records") {
		t.Fatalf("recall after the index was lost (rebuilt at open, saying so): exit %d\n%s", code, out)
	}
	if out, code := run("check"); code != 0 {
		t.Fatalf("check after the rebuild: exit %d\n%s", code, out)
	}
	// this store has no embedder (agentmemIn): no vectors to rebuild
	for args, want := range map[string]string{"--vectors": "holds no vectors", "--text --vectors": "Rebuilt the vector and text indexes"} {
		if out, code := run(append([]string{"reindex"}, strings.Fields(args)...)...); code != 0 || !strings.Contains(out, want) {
			t.Fatalf("reindex %s: exit %d\n%s", args, code, out)
		}
	}
	if out, code := run("recall", "boiler"); code != 0 || !strings.Contains(out, "The boiler was serviced") {
		t.Fatalf("recall after reindex --text --vectors: exit %d\n%s", code, out)
	}

	// zero the freelist page the newer meta page names
	db := filepath.Join(store, "memories.db")
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	var txid, freelist uint64
	for p := range 2 {
		m := raw[p*4096+16:]
		if id := le.LittleEndian.Uint64(m[48:]); id >= txid {
			txid, freelist = id, le.LittleEndian.Uint64(m[32:])
		}
	}
	clear(raw[freelist*4096 : (freelist+1)*4096])
	if err := os.WriteFile(db, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"recall", "boiler"}, {"remember", "one more"}} {
		out, code := run(args...)
		if code != 1 || !strings.Contains(out, "memories.db is damaged") || !strings.Contains(out, "backup") || strings.Contains(out, "goroutine ") || strings.Contains(out, "panic") {
			t.Errorf("%s on a damaged record file: exit %d\n%s", args[0], code, out)
		}
	}
	if out, code := run("check"); code != 1 || !strings.Contains(out, "invalid freelist page") || !strings.Contains(out, "restore") || strings.Contains(out, "0 memories") {
		t.Errorf("check of a damaged record file: exit %d\n%s", code, out)
	}
}

// The exit statuses docs/tools.md gives: 1 when a tool refuses its
// arguments (the reason on stderr), 80 on a usage error the parser
// catches before anything runs.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"recall", "-k", "500", "anything"}, 1, "invalid argument k: must be at most 100, got 500"},
		{[]string{"frobnicate"}, 80, "unexpected argument frobnicate"},
		{[]string{"recall"}, 80, "expected \"<query>"},
		{[]string{"recall", "--bogus", "x"}, 80, "unknown flag --bogus"},
		{[]string{"--timezone", "Mars/Olympus", "recall", "x"}, 1, "agentmem: timezone: unknown time zone Mars/Olympus"},
		// settings that can never work fail serve at start, naming the flag,
		// not in every call of a server that seems to run
		{[]string{"--text-cache=-1", "serve"}, 1, "agentmem: --text-cache: must be between 0 and"},
		{[]string{"--namespace", "a%b", "serve"}, 1, "agentmem: --namespace: \"a%b\" has the character '%'"},
		{[]string{"--reranker-url", "localhost:8080/rerank", "serve"}, 1, "agentmem: --reranker-url: "},
	} {
		out, code := agentmemIn(t, dir, c.args...)
		if code != c.code || !strings.Contains(out, c.says) {
			t.Errorf("agentmem %s: exit %d, %q; want %d saying %q", strings.Join(c.args, " "), code, out, c.code, c.says)
		}
	}
}

// A usage error prints the usage on stderr, beside the error: stdout is
// the protocol's when a host runs agentmem serve, and stays empty.
func TestUsageErrorsOnStderr(t *testing.T) {
	for _, args := range [][]string{{"recall"}, {"serve", "--bogus"}} {
		cmd := exec.Command(binary(t), append([]string{"--data-dir", t.TempDir()}, args...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 80 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "Usage: agentmem") {
			t.Errorf("agentmem %s: %v, stdout %q, stderr %q; want status 80, the usage on stderr and nothing on stdout", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
	}
}

// A shell command whose memory cannot be opened says why once, as its
// error: the log line a server writes for its clients is not repeated.
func TestOpenFailureSaidOnce(t *testing.T) {
	out, code := agentmemIn(t, t.TempDir(), "--reranker-url", "ftp://x", "recall", "x")
	if code != 1 || strings.Count(out, "reranker url") != 1 || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("exit %d, %q; want status 1 and one line naming the reranker url", code, out)
	}
}

// A damaged embedding cache (only a cache) is moved away and started
// anew, with a warning: the command works, and embeds as it would have.
func TestDamagedEmbeddingCache(t *testing.T) {
	dir := t.TempDir()
	run := builtinIn(t, dir)
	if out, err := run("remember", "Pixel the greyhound likes carrots."); err != nil {
		t.Fatalf("remember: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "embeddings.db")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no embedding cache in the data dir: %v", err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	out, err := run("recall", "What does Pixel like?")
	if err != nil || !strings.Contains(out, "carrots") || !strings.Contains(out, "the embedding cache was damaged") {
		t.Fatalf("recall with a damaged cache: %v\n%s", err, out)
	}
	if _, err := os.Stat(path + ".damaged"); err != nil {
		t.Errorf("the damaged cache was not moved away: %v", err)
	}
	if out, err := run("recall", "What does Pixel like?"); err != nil || strings.Contains(out, "damaged") {
		t.Errorf("the next command still met damage: %v\n%s", err, out)
	}
}

// A record file whose damage the store does not see at open (one byte of
// a record's key flipped: the session lists a memory no key names) is
// found by check, and reindex refuses to rebuild from it, which would
// make the damage permanent.
func TestReindexRefusesDamagedRecords(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) (string, int) { t.Helper(); return agentmemIn(t, dir, args...) }
	for _, text := range []string{"My locker code is 4417.", "The boiler was serviced in March.", "Pixel the greyhound likes carrots."} {
		if out, code := run("remember", "--session-id", "s-keys", text); code != 0 {
			t.Fatalf("remember: %d\n%s", code, out)
		}
	}
	db := filepath.Join(dir, "store", "memories.db")
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	k := []byte("default\x1fs-keys:1")
	if bytes.Count(raw, k) == 0 {
		t.Fatalf("no key %q in the record file", k)
	}
	raw = bytes.ReplaceAll(raw, k, []byte("default\x1fs-keys:7"))
	if err := os.WriteFile(db, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := run("check"); code != 1 || !strings.Contains(out, "records:") {
		t.Fatalf("check of a record file with a changed key: exit %d\n%s", code, out)
	}
	// the session lists the memory its key no longer names: the damage,
	// not a session of two turns
	if out, code := run("show", "s-keys"); code != 1 || !strings.Contains(out, "memories.db is damaged") || !strings.Contains(out, `names memory "s-keys:1"`) {
		t.Errorf("show of a session whose memory's key changed: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"reindex", "--text"}, {"reindex", "--vectors"}, {"reindex"}} {
		if out, code := run(args...); code != 1 || !strings.Contains(out, "nothing was reindexed") || !strings.Contains(out, "backup") {
			t.Errorf("%s on damaged records: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
}

// agentmemIn runs agentmem on the data dir dir without an embedder, and
// returns its output and exit status.
func agentmemIn(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--data-dir", dir, "--embedder", "none"}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// A store whose vectors were made before the recipe was recorded (an
// earlier agentmem: no vector for each sentence of a short turn) opens as
// it is; its commands warn, check says so without calling it damage, and
// a reindex ends both.
func TestEarlierRecipeUntilReindex(t *testing.T) {
	dir := t.TempDir()
	run := builtinIn(t, dir)
	if out, err := run("remember", "--speaker", "John", "Hey Maria! I started kickboxing last month. My knees hurt though."); err != nil {
		t.Fatalf("remember: %v\n%s", err, out)
	}
	if out, err := run("check"); err != nil || strings.Contains(out, "earlier agentmem") {
		t.Fatalf("check of a store of today's recipe: %v\n%s", err, out)
	}
	forgetRecipe(t, dir)
	if out, err := run("recall", "What martial art did John start?"); err != nil || !strings.Contains(out, "kickboxing") || !strings.Contains(out, "agentmem reindex") {
		t.Fatalf("recall on a store of an earlier recipe: %v\n%s", err, out)
	}
	if out, err := run("check"); err != nil || !strings.Contains(out, "made by an earlier agentmem") || !strings.Contains(out, "OK") {
		t.Fatalf("check of a store of an earlier recipe: %v\n%s", err, out)
	}
	if out, err := run("reindex"); err != nil {
		t.Fatalf("reindex: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"check"}, {"recall", "kickboxing"}} {
		if out, err := run(args...); err != nil || strings.Contains(out, "earlier agentmem") {
			t.Errorf("%s after reindex: %v\n%s", args[0], err, out)
		}
	}
}

// forgetRecipe leaves the record file of dir as an earlier agentmem left
// it: no recipe recorded.
func forgetRecipe(t *testing.T, dir string) {
	t.Helper()
	records(t, dir, true, func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Delete([]byte("recipe")) })
}

// records runs fn on the record file of dir (the store closed), in a
// writable transaction with write.
func records(t *testing.T, dir string, write bool, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, "store", "memories.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run := db.View
	if write {
		run = db.Update
	}
	if err := run(fn); err != nil {
		t.Fatal(err)
	}
}

// turnVectorOnly leaves each memory of dir with its first vector only, as
// an earlier agentmem embedded a short turn (no vector for each
// sentence), and drops the vector snapshots, so the store reads them.
func turnVectorOnly(t *testing.T, dir string) {
	t.Helper()
	records(t, dir, true, func(tx *bolt.Tx) error {
		dims, err := strconv.Atoi(string(tx.Bucket([]byte("meta")).Get([]byte("dims"))))
		if err != nil {
			return err
		}
		vec := tx.Bucket([]byte("vec"))
		cut := map[string][]byte{}
		vec.ForEach(func(k, v []byte) error {
			if len(v) > 4*dims {
				cut[string(k)] = append([]byte(nil), v[:4*dims]...)
			}
			return nil
		})
		if len(cut) == 0 {
			return errors.New("no memory has a vector for each sentence")
		}
		for k, v := range cut {
			if err := vec.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err := os.RemoveAll(filepath.Join(dir, "store", "vectors")); err != nil {
		t.Fatal(err)
	}
}

// agentmem serve gives the memories of an earlier recipe this one's
// vectors in the background, says so, and records the recipe: the next
// commands no longer warn.
func TestEarlierRecipeUpgradedByServe(t *testing.T) {
	dir := t.TempDir()
	run := builtinIn(t, dir)
	if out, err := run("remember", "--speaker", "John", "Hey Maria! I started kickboxing last month. My knees hurt though."); err != nil {
		t.Fatalf("remember: %v\n%s", err, out)
	}
	forgetRecipe(t, dir)
	turnVectorOnly(t, dir)
	cmd := exec.Command(binary(t), "serve", "--data-dir", dir, "--log-level", "info")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() }) // when the test fails before serve ends
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var seen []string
	timeout := time.After(2 * time.Minute)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve ended before it upgraded the vectors:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if strings.Contains(l, "have this agentmem's vectors") {
				break wait
			}
		case <-timeout:
			t.Fatalf("serve did not upgrade the vectors within 2 minutes:\n%s", strings.Join(seen, "\n"))
		}
	}
	in.Close()
	for range lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, strings.Join(seen, "\n"))
	}
	if all := strings.Join(seen, "\n"); !strings.Contains(all, "earlier agentmem") || !strings.Contains(all, "memories_embedded=1 memories_replaced=1") {
		t.Errorf("serve's log does not say what it upgraded:\n%s", all)
	}
	if n := windows(t, dir); n != 4 {
		t.Errorf("after serve the memory has %d vectors; want 4 (its turn and its 3 sentences)", n)
	}
	for _, args := range [][]string{{"check"}, {"recall", "kickboxing"}} {
		if out, err := run(args...); err != nil || strings.Contains(out, "earlier agentmem") {
			t.Errorf("%s after serve: %v\n%s", args[0], err, out)
		}
	}
}

// Memories an earlier agentmem wrote after the store was upgraded (one
// vector where this recipe gives one per sentence: a downgrade, then this
// version again) are counted by check, which names the fix, and a
// reindex gives them theirs.
func TestCheckCountsMemoriesWithoutTheirWindows(t *testing.T) {
	dir := t.TempDir()
	run := builtinIn(t, dir)
	if out, err := run("remember", "--speaker", "John", "Hey Maria! I started kickboxing last month. My knees hurt though.", "Short one."); err != nil {
		t.Fatalf("remember: %v\n%s", err, out)
	}
	if out, err := run("check"); err != nil || strings.Contains(out, "without a vector for each sentence") {
		t.Fatalf("check of a store of today's recipe: %v\n%s", err, out)
	}
	turnVectorOnly(t, dir)
	if out, err := run("check"); err != nil || !strings.Contains(out, "; 1 of them without a vector for each sentence") || !strings.Contains(out, "agentmem reindex") || !strings.Contains(out, "OK") {
		t.Fatalf("check of a memory without its windows: %v\n%s", err, out)
	}
	if out, err := run("reindex"); err != nil {
		t.Fatalf("reindex: %v\n%s", err, out)
	}
	if out, err := run("check"); err != nil || strings.Contains(out, "without a vector for each sentence") {
		t.Errorf("check after reindex: %v\n%s", err, out)
	}
}

// windows is how many vectors the one memory of dir has.
func windows(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	records(t, dir, false, func(tx *bolt.Tx) error {
		dims, _ := strconv.Atoi(string(tx.Bucket([]byte("meta")).Get([]byte("dims"))))
		_, v := tx.Bucket([]byte("vec")).Cursor().First()
		n = len(v) / (4 * max(dims, 1))
		return nil
	})
	return n
}

// builtinIn runs agentmem with its default (built-in) embedder on dir.
func builtinIn(t *testing.T, dir string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		cmd := exec.Command(binary(t), append([]string{"--data-dir", dir}, args...)...)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
}

// A store too small for a vector snapshot says so, where check's output
// named only the records and the text indexes; one without vectors says
// nothing of snapshots.
func TestCheckSaysWhyNoSnapshot(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "remember", "The boiler was serviced in March.")
	if out := run(t, dir, "check"); !strings.Contains(out, "vector snapshots ") || !strings.Contains(out, ": none (a namespace is saved as one from 10000 vectors") {
		t.Errorf("check of a small store with vectors:\n%s", out)
	}
	plain := t.TempDir()
	run(t, plain, "--embedder", "none", "remember", "The boiler was serviced in March.")
	if out := run(t, plain, "--embedder", "none", "check"); strings.Contains(out, "vector snapshots") {
		t.Errorf("check of a store without vectors speaks of snapshots:\n%s", out)
	}
}
