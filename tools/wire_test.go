package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/store/embedded"
	"agentmem/server"
)

// The tools/list answer exactly as a client reads it off the wire (the
// JSON-RPC response the stdio transport writes, byte for byte, and not
// re-encoded through mcp-go's types as TestToolSchemas compares it): the
// names, descriptions, annotations and both schemas of every tool, with
// their key order. A change here is a change of the public contract:
// review it, and run go test ./tools -update.
func TestToolsListWire(t *testing.T) {
	ctx := context.Background()
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Now: func() time.Time { return time.Date(2023, 5, 7, 14, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(svc, server.Options{})
	s.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	got, err := json.Marshal(s.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "tools_list.json", got)
}

// The error a client gets for each kind of bad argument, exactly: it names
// the argument and the limit (testdata/argument_errors.txt, one call a
// line; go test ./tools -update rewrites it).
func TestArgumentErrorsWire(t *testing.T) {
	c := connect(t)
	long := strings.Repeat("é", 4097)
	var got strings.Builder
	for _, a := range [][2]string{
		{"recall", `{}`}, {"recall", `{"query":""}`}, {"recall", `{"query":"` + long + `"}`},
		{"recall", `{"query":"x","k":0}`}, {"recall", `{"query":"x","k":101}`}, {"recall", `{"query":"x","k":2.5}`},
		{"recall", `{"query":"x","k":"ten"}`}, {"recall", `{"query":"x","k":null}`}, {"recall", `{"query":"x","pool":0}`},
		{"recall", `{"query":"x","weights":{"text":-1}}`}, {"recall", `{"query":"x","weights":{"text":1e308}}`},
		{"recall", `{"query":"x","weights":{"rank_constant":0}}`}, {"recall", `{"query":"x","weights":{"bogus":1}}`},
		{"recall", `{"query":"x","weights":[]}`}, {"recall", `{"query":"x","order":"random"}`},
		{"recall", `{"query":"x","namespace":"no spaces"}`}, {"recall", `{"query":"x","limit":5}`},
		{"recall", `{"query":"x","k":0,"limit":3,"order":"y"}`}, {"recall", `{"query":"x","excerpt":-1}`},
		{"recall", `{"query":"x","before":"` + strings.Repeat("9", 65) + `"}`}, {"recall", `{"query":"x","format":"xml"}`},
		{"recall", `{"query":"x","explain":true}`}, {"recall", `{"query":"x","weights":{"learned":2}}`}, {"recall", `{"query":"x","budget":"tokens"}`},
		{"remember", `{}`}, {"remember", `{"messages":[]}`}, {"remember", `{"messages":"hello"}`},
		{"remember", `{"messages":[{"role":"user"}]}`}, {"remember", `{"messages":[{"role":"user","content":"a"},{"role":"robot","content":"b"}]}`},
		{"remember", `{"messages":[{"role":"user","content":5}]}`}, {"remember", `{"messages":[{"role":"user","content":2000000000}]}`},
		{"remember", `{"messages":[{"role":"user","content":"a","extra":1}]}`},
		{"remember", `{"messages":[{"role":"user","contnet":"a misspelt name is named, not the one it hides"}]}`},
		{"remember", `{"messages":[{"role":"user","content":"a"}],"turn":-1}`},
		{"remember", `{"messages":[{"role":"user","content":"a"}],"turn":2000000000}`}, {"remember", `{"messages":[{"role":"user","content":"a"}],"session_id":"a b"}`},
		{"forget", `{"ids":[""]}`}, {"forget", `{"ids":"x"}`}, {"forget", `{"all":"yes"}`}, {"today", `{"x":1}`},
	} {
		var args any
		if err := json.Unmarshal([]byte(a[1]), &args); err != nil {
			t.Fatal(err)
		}
		text, _, isErr := call(t, c, a[0], args)
		if !isErr {
			t.Errorf("%s %s: no error", a[0], a[1])
		}
		fmt.Fprintf(&got, "%s %.80s => %s\n", a[0], a[1], text)
	}
	golden(t, "argument_errors.txt", []byte(got.String()))
}

// golden compares got with testdata/name (go test ./tools -update
// rewrites it): a change there is a change of what clients see.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	got = bytes.TrimSpace(got)
	if *update {
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tools -update)", err)
	}
	if !bytes.Equal(bytes.TrimSpace(want), got) {
		t.Errorf("testdata/%s changed (the public contract); if intended, run go test ./tools -update and review the diff:\n%s", name, got)
	}
}
