package evals

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentmem/evals/peers/peertest"
	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/server"
)

// helperEnv makes the test binary a stdio MCP server (see TestMain), so
// the Stdio dialer is tested against a real spawned process without
// building agentmem.
const helperEnv = "AGENTMEM_EVALS_STDIO_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(fakePeerEnv) != "" {
		os.Exit(peertest.Main(os.Args[1:]))
	}
	if dir := os.Getenv(helperEnv); dir != "" {
		if err := serveHelper(dir, os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveHelper serves args[0] as the clock and args[1] as the worker.
func serveHelper(dir string, args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("want now and worker, got %q", args)
	}
	now, err := time.Parse(time.RFC3339, args[0])
	if err != nil {
		return err
	}
	ctx := context.Background()
	st, err := embedded.Open(ctx, filepath.Join(dir, "w"+args[1]), embedded.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return now }})
	if err != nil {
		return err
	}
	return server.ServeStdio(ctx, server.New(svc, server.Options{}), os.Stdin, os.Stdout, slog.New(slog.DiscardHandler))
}

func TestStdioDialer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(helperEnv, t.TempDir())
	d := loadLoCoMo(t)
	dialer := Stdio{Command: fmt.Sprintf("'%s' {now} {worker}", exe)}
	out, err := Run(context.Background(), testOptions(t, d, t.TempDir(), dialer))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != d.Questions() {
		t.Fatalf("%d results", len(out.Results))
	}
	for _, r := range out.Results {
		if r.Question == "conv-1/q0" && !r.Retrieval.Turn.All {
			t.Errorf("the spawned server did not find the evidence: %+v", r)
		}
	}

	// The clock reaches the spawned server.
	conn, err := dialer.Dial(context.Background(), time.Date(2023, 6, 28, 12, 0, 0, 0, time.UTC), 9)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, text, err := conn.Today(context.Background())
	if err != nil || !strings.HasPrefix(text, "Today is Wednesday, 28 June 2023") {
		t.Errorf("today: %q, %v", text, err)
	}
}
