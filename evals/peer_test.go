package evals

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentmem/evals/peers"
	"agentmem/evals/peers/peertest"
)

// fakePeerEnv makes the test binary serve the fake server-memory of package
// peertest (see TestMain), so that RunPeer meets a real spawned peer
// without Node.js.
const fakePeerEnv = "AGENTMEM_EVALS_FAKE_PEER"

func fakePeer(t *testing.T) peers.Installation {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakePeerEnv, "1")
	return peers.Installation{Node: exe, NodeMajor: 22, Entry: "-test.run=^$", Dir: filepath.Dir(exe),
		Package: peers.NewServerMemory().Package()}
}

// TestRunPeerFailures runs the comparison on the mini LoCoMo with the fake
// server-memory and questions that make it crash, answer garbage and hang:
// each failure is counted by kind and scored as a miss, a crashed or hung
// peer is restarted with the conversation stored again (the questions
// after it are still answered), and compare.md shows it all beside
// agentmem's row.
func TestRunPeerFailures(t *testing.T) {
	d := loadLoCoMo(t)
	d.Units = d.Units[:1]
	u := &d.Units[0]
	q := func(id, text string, evidence ...string) Question {
		return Question{ID: u.ID + "/" + id, Category: "single-hop", Text: text, Date: u.Now, EvidenceTurns: evidence}
	}
	u.Questions = []Question{
		q("dog", "What breed is Melanie's dog Biscuit?", "D1:4"),
		q("crash", "Did the museum go "+peertest.CrashWord+"?", "D2:4"),
		q("lisbon", "Where did Caroline move for her museum job?", "D2:2"),
		q("garbage", "Was the cello "+peertest.MalformedWord+"?", "D2:1"),
		q("hang", "Was the dog in a "+peertest.HangWord+"?", "D1:2"),
		q("cello", "What instrument did Melanie start learning?", "D2:1"),
	}
	dir := t.TempDir()
	agentmem := testOptions(t, d, dir, inProcess(t))
	out, err := Run(context.Background(), agentmem)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(d, agentmem.Configs, out, Meta{Data: "mini", Server: "test server"})

	store, err := OpenResults(filepath.Join(dir, "peers", "server-memory"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close(nil)
	o := PeerOptions{
		Data: d, DataID: "mini", Name: "server-memory", Installation: fakePeer(t), K: s.K,
		Workers: 1, Timeout: 2 * time.Second, Tokenizer: agentmem.Tokenizer, Results: store,
	}
	start := time.Now()
	pout, err := RunPeer(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the run took %v: a hung peer cost more than its timeout", took)
	}
	if len(pout.Results) != len(u.Questions) {
		t.Fatalf("%d results for %d questions", len(pout.Results), len(u.Questions))
	}
	byQ := map[string]Result{}
	for _, r := range pout.Results {
		byQ[strings.TrimPrefix(r.Question, u.ID+"/")] = r
	}
	for id, want := range map[string]string{"crash": peers.Crash, "garbage": peers.Malformed, "hang": peers.Timeout} {
		r := byQ[id]
		if r.FailureKind != want || r.Failure == "" || len(r.Recalled) != 0 || r.Retrieval.Turn == nil || r.Retrieval.Turn.Any {
			t.Errorf("%s: %+v, want a %s failure scored as a miss", id, r, want)
		}
		if r.Restarted != (want != peers.Malformed) {
			t.Errorf("%s: restarted %v", id, r.Restarted)
		}
	}
	for _, id := range []string{"dog", "lisbon", "cello"} {
		r := byQ[id]
		if r.FailureKind != "" || !r.Retrieval.Turn.All || r.Tokens == 0 || len(r.Recalled) == 0 || len(r.Recalled) > s.K {
			t.Errorf("%s (asked after a restart or not) was not answered: %+v", id, r)
		}
	}
	if st := pout.Ingest[ByTurn]; len(st) != 1 || st[0].Turns != 8 {
		t.Errorf("ingest stats %+v: want one, of the first store only", st)
	}

	sys := SummarizePeer(d, o, pout)
	if sys.Errors[peers.Crash] != 1 || sys.Errors[peers.Timeout] != 1 || sys.Errors[peers.Malformed] != 1 || sys.Restarts != 2 {
		t.Errorf("failures %v, restarts %d", sys.Errors, sys.Restarts)
	}
	if sys.Answered != 6 || *sys.Retrieval.RecallAll != 0.5 || sys.IngestTurnsPerS == 0 {
		t.Errorf("summary: answered %d, recall_all %v, ingest %v", sys.Answered, *sys.Retrieval.RecallAll, sys.IngestTurnsPerS)
	}
	cmp := Compare(s, []System{AgentmemSystem(s), sys})
	if err := WriteComparison(dir, cmp); err != nil {
		t.Fatal(err)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "compare.md"))
	for _, want := range []string{
		"| agentmem | 6 |", "| server-memory | 6 | 50.0% |",
		"| 1 | 1 | 1 | 0 | 2 |\n", // crash, timeout, malformed, error, restarts
		"(Node.js 22, stdio)", "## recall_all by category", "single-hop",
	} {
		if !strings.Contains(string(report), want) {
			t.Errorf("compare.md lacks %q:\n%s", want, report)
		}
	}
	chart, _ := os.ReadFile(filepath.Join(dir, "compare.svg"))
	if !strings.HasPrefix(string(chart), "<svg") || strings.Count(string(chart), "<rect x=") < 4 {
		t.Errorf("compare.svg: %.300s", chart)
	}

	// A rerun asks again only what failed.
	again, err := RunPeer(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again.Results {
		if id := strings.TrimPrefix(r.Question, u.ID+"/"); slices.Contains([]string{"dog", "lisbon", "cello"}, id) && r.RecallMS != byQ[id].RecallMS {
			t.Errorf("%s was asked again", id)
		}
	}
}
