package memory_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
)

// openPlain is open (no embedder) that returns the store too.
func openPlain(t *testing.T) (*memory.Service, memory.Store) {
	t.Helper()
	st, err := embedded.Open(bg, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, st
}

// A namespace whose every session was forgotten holds only marks: export
// --ns names it as any other, and its marks move (an export of every
// namespace carries them; one that names it refused it as a namespace
// that does not exist, and a move namespace by namespace lost them).
func TestExportOfANamespaceThatHoldsOnlyMarks(t *testing.T) {
	src := open(t, nil)
	fill(t, src)
	carol := pin
	carol.Namespace = "carol"
	if _, err := src.Remember(bg, carol); err != nil {
		t.Fatal(err)
	}
	if res, err := src.Forget(bg, memory.ForgetRequest{Namespace: "carol", SessionID: "bank"}); err != nil || res.Deleted != 3 {
		t.Fatalf("forget = %+v, %v", res, err)
	}
	var buf bytes.Buffer
	res, err := src.Export(bg, &buf, memory.ExportOptions{Namespaces: []string{"carol"}})
	if err != nil || res.Marks != 3 || res.Memories != 0 {
		t.Fatalf("export --ns carol = %+v, %v; want its 3 marks", res, err)
	}
	if file := buf.String(); !strings.Contains(file, `"version":3`) || strings.Contains(file, "alice") || strings.Contains(file, "4512") {
		t.Fatalf("export --ns carol:\n%s", file)
	}
	dst := open(t, nil)
	if res, err := dst.Import(bg, textOpener(buf.String()), memory.ImportOptions{}); err != nil || res.Marks != 3 {
		t.Fatalf("import = %+v, %v", res, err)
	}
	if again, err := dst.Remember(bg, carol); err != nil || again.Stored != 0 || again.Forgotten != 3 {
		t.Errorf("the session resent after the move = %+v, %v; want nothing stored", again, err)
	}
	// a namespace that holds neither memories nor marks is still refused
	var nf *memory.NotFoundError
	if _, err := src.Export(bg, &bytes.Buffer{}, memory.ExportOptions{Namespaces: []string{"nobody"}}); !errors.As(err, &nf) {
		t.Errorf("export --ns nobody: %v, want a NotFoundError", err)
	}
}
