package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/tools/spec"
)

// checkCmd verifies an embedded store's data directory without changing
// it; it exits non-zero when it finds a problem.
type checkCmd struct{}

func (checkCmd) Run(e *env) error {
	if e.cfg.Store != "" && e.cfg.Store != "embedded" {
		return fmt.Errorf("check verifies the embedded store's files; the %s store checks its own data", e.cfg.Store)
	}
	dir, err := e.cfg.Dir()
	if err != nil {
		return err
	}
	store := filepath.Join(dir, "store")
	if _, err := os.Stat(store); err != nil {
		return fmt.Errorf("no store in %s: %w", dir, err)
	}
	r, err := embedded.Check(e.ctx, store)
	if err != nil {
		return err
	}
	if len(r.Records) > 0 {
		// counts of a file read only part way, and indexes not checked
		// against it, would mislead
		fmt.Printf("records %s: damaged (below); the text indexes and vector snapshots are not checked against damaged records\n", filepath.Join(store, "memories.db"))
	} else {
		printRecords(store, r)
		printIndexes(store, r)
		printSnapshots(store, r)
	}
	if r.OK() {
		fmt.Println("OK: the records are readable and the indexes match them")
		return nil
	}
	return checkProblems(store, r)
}

// printRecords prints what Check counted of the record file in store: its
// memories, sessions, vectors and marks of forgotten turns, and the
// memories a server or a reindex is yet to give vectors.
func printRecords(store string, r *embedded.Report) {
	fmt.Printf("records %s: %s, %s, %d with vectors", filepath.Join(store, "memories.db"), spec.Count(r.Memories, "memory"), spec.Count(r.Sessions, "session"), r.Vectors)
	if r.Marks > 0 {
		fmt.Printf(", %s", marksOf(r.Marks))
	}
	if r.Pending > 0 {
		fmt.Printf(", %d waiting for theirs (the next server makes them)", r.Pending)
	}
	if r.Reembedded > 0 {
		fmt.Printf("; %d embedded by another model than the store's (%s), by an interrupted `agentmem reindex` to it: run it again to finish (no damage; vector search leaves them out until then)", r.Reembedded, r.ReembeddedTo)
	}
	if r.Vectors > 0 && r.Recipe != memory.Recipe {
		fmt.Printf("; made by an earlier agentmem, without a vector for each sentence of a short turn: `agentmem serve` gives them theirs in the background, `agentmem reindex` at once (no damage)")
	}
	if r.LackWindows > 0 {
		fmt.Printf("; %d of them without a vector for each sentence of their short turn (an earlier agentmem wrote them after the store had this one's vectors): `agentmem reindex` gives them theirs (no damage)", r.LackWindows)
	}
	fmt.Println()
}

// printIndexes prints what Check counted of the text indexes in store.
func printIndexes(store string, r *embedded.Report) {
	fmt.Printf("text indexes %s: %s, %s", filepath.Join(store, "text"), spec.Count(r.Indexes, "namespace"), spec.Count(r.IndexDocuments, "document"))
	if r.Lagging > 0 {
		fmt.Printf("; %d of them not yet up to date with the journal, which the next server applies to them (a stop without a clean close), their documents not counted", r.Lagging)
	}
	if r.Outdated > 0 {
		fmt.Printf("; %d of them built by another version of agentmem, rebuilt from the records at their namespace's first use (or now by `agentmem reindex --text`), their documents not counted", r.Outdated)
	}
	fmt.Println()
}

// printSnapshots prints what Check found of the vector snapshots in
// store, or that there are none where the store has vectors.
func printSnapshots(store string, r *embedded.Report) {
	if r.Snapshotted+r.SnapshotsStale+r.SnapshotLeftovers+len(r.Snapshots) > 0 {
		var parts []string
		if r.Snapshotted > 0 {
			parts = append(parts, fmt.Sprintf("%s of %s, equal to the records (with the journal after them)", spec.Count(r.Snapshotted, "namespace"), spec.Count(r.SnapshotWindows, "vector")))
		}
		if r.SnapshotsStale > 0 {
			parts = append(parts, fmt.Sprintf("%s whose stamp is not the manifest's (a stop between saving it and writing the manifest), which the next server rebuilds from the records (no damage)", spec.Count(r.SnapshotsStale, "snapshot")))
		}
		if r.SnapshotLeftovers > 0 {
			parts = append(parts, fmt.Sprintf("%s no manifest names (left by a stop during a save), which the next server removes (no damage)", spec.Count(r.SnapshotLeftovers, "file")))
		}
		if len(r.Snapshots) > 0 {
			parts = append(parts, fmt.Sprintf("not used, as they do not match the records: %s, below", spec.Count(len(r.Snapshots), "problem")))
		}
		fmt.Printf("vector snapshots %s: %s\n", filepath.Join(store, "vectors"), strings.Join(parts, "; "))
	} else if r.Vectors > 0 {
		// a small store has none: say so, since the docs say check
		// reads them
		fmt.Printf("vector snapshots %s: none (a namespace is saved as one from %d vectors; a smaller one's are read from the records at every start, and checked with them above)\n", filepath.Join(store, "vectors"), embedded.SnapshotMin())
	}
}

// checkProblems prints the problems Check found in store, and returns the
// error that says what repairs them.
func checkProblems(store string, r *embedded.Report) error {
	for _, p := range r.Records {
		fmt.Println("records:", p)
	}
	for _, p := range r.Index {
		fmt.Println("index:", p)
	}
	for _, p := range r.Snapshots {
		fmt.Println("vectors:", p)
	}
	if len(r.Records) > 0 {
		return fmt.Errorf("the record file is damaged (%s above): stop agentmem and restore %s from a backup; the indexes are rebuilt from it afterwards", problems(r.Records), filepath.Join(store, "memories.db"))
	}
	switch {
	case len(r.Snapshots) == 0:
		return fmt.Errorf("the text index does not match the records (%s above); the records are intact: run `agentmem reindex --text` to rebuild the index from them now (a damaged segment is also rebuilt at its namespace's first use)", problems(r.Index))
	case len(r.Index) == 0:
		return fmt.Errorf("the vector snapshots do not match the records (%s above); the records are intact: run `agentmem reindex --vectors` to rebuild the vector index from them now (no re-embedding)", problems(r.Snapshots))
	}
	return fmt.Errorf("the text index and the vector snapshots do not match the records (%s above); the records are intact: run `agentmem reindex --text --vectors` to rebuild both from them now (no re-embedding)", problems(append(r.Index[:len(r.Index):len(r.Index)], r.Snapshots...)))
}

// problems counts a report's list of problems, whose last line says so
// when the list was cut ("more than 50 problems").
func problems(list []string) string {
	n := 0
	for _, p := range list {
		if p == embedded.MoreProblems {
			return fmt.Sprintf("more than %d problems", n)
		}
		n++
	}
	return spec.Count(n, "problem")
}
