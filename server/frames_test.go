package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
	"agentmem/server"
)

// frame is one line sent to the stdio server. A frame with an id must be
// answered with that id: a JSON-RPC error or a tool error whose message
// contains want (lower case).
type frame struct {
	name string
	line string
	id   int // 0: none
	want string
	// nullID: the server cannot read the id of this request (a member of
	// the wrong JSON type fails its decoding of the whole message), so the
	// answer is a parse error with a null id, as JSON-RPC allows
	nullID bool
}

// The stdio transport in this process is sent malformed frames, each
// followed by a valid call: invalid and truncated JSON, wrong JSON-RPC
// versions, unknown methods and tools, params and tool arguments of the
// wrong types, deep nesting, requests without an id, lines of megabytes,
// binary garbage, empty lines. The server never panics or stops: it answers
// each request that has an id with an error that names the problem, every
// valid call in between, and a remember and a recall after all of it.
func TestMalformedFrames(t *testing.T) {
	start := time.Now()
	ctx := context.Background()
	e := &fake.Embedder{Name: "t"}
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true, EmbedderID: e.ID(), Dims: e.Dims()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Embedder: e})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- server.ServeStdio(ctx, server.New(svc, server.Options{}), inR, outW, slog.New(slog.DiscardHandler))
		outW.Close()
	}()

	type response struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"` // a notification from the server
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	responses := make(chan response, 1024)
	go func() {
		defer close(responses)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var resp response
				if err := json.Unmarshal(line, &resp); err != nil {
					t.Errorf("the server wrote a line that is not JSON: %q", line)
				}
				responses <- resp
			}
			if err != nil {
				return
			}
		}
	}()

	byID := map[int]response{}
	nullErrors, notifications := 0, 0
	// read takes the next response, or gives up at timeout (false): a
	// notification is counted, an error without a usable id too, and any
	// other response is kept by its id.
	read := func(timeout <-chan time.Time, waiting string) bool {
		t.Helper()
		select {
		case r, open := <-responses:
			if !open {
				t.Fatalf("the server stopped (%v) while %s was awaited", <-served, waiting)
			}
			if r.Method != "" {
				notifications++
				return true
			}
			var n int
			if string(r.ID) == "null" || json.Unmarshal(r.ID, &n) != nil {
				if r.Error == nil {
					t.Errorf("a response without a usable id that is no error: %s", r.ID)
				}
				nullErrors++
				return true
			}
			if _, dup := byID[n]; dup {
				t.Errorf("two responses to request %d", n)
			}
			byID[n] = r
			return true
		case <-timeout:
			return false
		}
	}
	// await reads responses until the one with id arrives.
	await := func(id int) (response, bool) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			if r, ok := byID[id]; ok {
				return r, true
			}
			if !read(timeout, fmt.Sprint("request ", id)) {
				t.Errorf("no response to request %d in 20 s", id)
				return response{}, false
			}
		}
	}
	// awaitNull reads responses until more than before errors without a
	// usable id have come (the server may answer the next request first:
	// mcp-go handles requests concurrently), or 20 s have passed.
	awaitNull := func(before int) {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for nullErrors <= before && read(timeout, "an error with a null id") {
		}
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("writing a frame: %v (server: %v)", err, <-served)
		}
	}

	nextID := 1
	id := func() int { nextID++; return nextID }
	call := func(name string, args string) (string, int) {
		n := id()
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, n, name, args), n
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if r, _ := await(1); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	var frames []frame
	add := func(name, line string, n int, want string) {
		frames = append(frames, frame{name: name, line: line, id: n, want: want})
	}
	// no usable id: answered by a parse error, or not at all
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(rng.IntN(256))
		if garbage[i] == '\n' {
			garbage[i] = 0
		}
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	valid, _ := call("recall", `{"query":"x"}`)
	for _, f := range []struct{ name, line string }{
		{"empty line", ""},
		{"blank line", "   \t "},
		{"not JSON", "hello"},
		{"binary garbage", string(garbage)},
		{"NUL bytes", "\x00\x00\x00"},
		{"invalid UTF-8", "\xff\xfe{\"jsonrpc\":\"2.0\"}"},
		{"truncated request", valid[:len(valid)/2]},
		{"truncated after the id", `{"jsonrpc":"2.0","id":999999`},
		{"unclosed string", `{"jsonrpc":"2.0","method":"ping","id":"`},
		{"trailing comma", `{"jsonrpc":"2.0","method":"ping",}`},
		{"a bare number", "42"},
		{"a bare string", `"tools/call"`},
		{"null", "null"},
		{"an empty object", "{}"},
		{"an empty batch", "[]"},
		{"a batch", `[{"jsonrpc":"2.0","method":"ping","id":999998}]`},
		{"3 MB of garbage", strings.Repeat("x{[\"", 3<<20/4)},
		{"nesting past the decoder's limit", `{"jsonrpc":"2.0","id":999997,"method":"tools/call","params":{"name":"recall","arguments":` + deep(20000) + `}}`},
		{"notification without a method", `{"jsonrpc":"2.0"}`},
		{"tools/call without an id", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"forget","arguments":{"all":true,"confirm":true}}}`},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/nope"}`},
		{"cancel of nothing", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":424242}}`},
		{"a response nobody asked for", `{"jsonrpc":"2.0","id":777777,"result":{}}`},
	} {
		add(f.name, f.line, 0, "")
	}

	// with an id: each is answered, by an error naming the problem
	n := id()
	add("JSON-RPC 1.0", fmt.Sprintf(`{"jsonrpc":"1.0","id":%d,"method":"ping"}`, n), n, "json-rpc version")
	n = id()
	frames = append(frames, frame{name: "JSON-RPC version a number", line: fmt.Sprintf(`{"jsonrpc":2,"id":%d,"method":"ping"}`, n), id: n, nullID: true})
	n = id()
	add("no jsonrpc member", fmt.Sprintf(`{"id":%d,"method":"ping"}`, n), n, "json-rpc version")
	n = id()
	add("unknown method", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"memories/steal"}`, n), n, "not found")
	n = id()
	frames = append(frames, frame{name: "method a number", line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":7}`, n), id: n, nullID: true})
	n = id()
	add("empty method", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":""}`, n), n, "")
	for _, params := range []string{`"remember"`, `[1,2]`, `7`, `{"name":5}`, `{"name":"nope","arguments":{}}`, `{"arguments":{"query":"x"}}`, `{"name":"recall","arguments":{"query":"x"},"_meta":"oops"}`} {
		n = id()
		add("tools/call params "+params, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, n, params), n, "")
	}
	for _, m := range []string{"resources/read", "completion/complete", "logging/setLevel", "resources/list", "tools/list"} {
		n = id()
		add(m+" with params of the wrong type", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":[1]}`, n, m), n, "")
	}
	n = id()
	add("resources/read of another scheme", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`, n), n, "")
	n = id()
	add("logging/setLevel to a made-up level", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"logging/setLevel","params":{"level":"shout"}}`, n), n, "")

	// tool arguments of the wrong types, for every tool; want is the field
	// the error should name ("" for any message)
	for _, c := range []struct{ tool, args, want string }{
		{"remember", `"remember this"`, ""},
		{"remember", `[1,2,3]`, ""},
		{"remember", `5`, ""},
		{"remember", `true`, ""},
		{"remember", `{"messages":5}`, "messages"},
		{"remember", `{"messages":"hi"}`, "messages"},
		{"remember", `{"messages":[5]}`, "messages"},
		{"remember", `{"messages":[{"role":1,"content":2}]}`, "messages[0]"},
		{"remember", `{"messages":[{"role":"user","content":7}]}`, "content"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"session_id":7}`, "session_id"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"session_date":[2023]}`, "session_date"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"namespace":{}}`, "namespace"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"turn":"first"}`, "turn"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"turn":-1}`, "turn"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"turn":1.5}`, "turn"},
		{"remember", `{"messages":[{"role":"user","content":"` + strings.Repeat("long ", 4<<20/5) + `"}]}`, "content"},
		{"remember", `{"messages":` + deep(5000) + `}`, "messages"},
		{"recall", `"what did I say"`, ""},
		{"recall", `[]`, ""},
		{"recall", `3.14`, ""},
		{"recall", `null`, "query"},
		{"recall", `{"query":5}`, "query"},
		{"recall", `{"query":["a","b"]}`, "query"},
		{"recall", `{"query":"x","k":"ten"}`, "k"},
		{"recall", `{"query":"x","k":1e400}`, "k: 1e400 is out of the range of a number"},
		{"recall", `{"query":"x","weights":{"time":-1E999}}`, "weights.time: -1e999 is out of the range"},
		{"recall", `{"query":"x","k":-3}`, "k"},
		{"recall", `{"query":"x","session_id":12}`, "session_id"},
		{"recall", `{"query":"x","after":true}`, "after"},
		{"recall", `{"query":"x","fusion":"magic"}`, "fusion"},
		{"recall", `{"query":"x","weights":"heavy"}`, "weights"},
		{"recall", `{"query":"x","weights":{"text":"1"}}`, "text"},
		{"recall", `{"query":"x","context":{"a":1}}`, "context"},
		{"recall", `{"query":"x","excerpt":"short"}`, "excerpt"},
		{"recall", `{"query":` + deep(5000) + `}`, "query"},
		{"today", `"now"`, ""},
		{"today", `[1]`, ""},
		{"today", `{"timezone":5}`, "timezone: is not an argument of this tool (it takes none)"},
		{"forget", `"everything"`, ""},
		{"forget", `[1]`, ""},
		{"forget", `{"ids":"s:0"}`, "ids"},
		{"forget", `{"ids":[1,2]}`, "ids"},
		{"forget", `{"session_id":3}`, "session_id"},
		{"forget", `{"all":"yes","confirm":"yes"}`, "all"},
		{"forget", `{"all":true}`, "confirm"},
		{"forget", `{"ids":` + deep(5000) + `}`, "ids"},
		{"remember", `{"messages":[{"role":"robot","content":"x"}]}`, "role"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"namespace":"a b"}`, "namespace"},
		{"remember", `{"messages":[{"role":"user","content":"x"}],"session_id":"a\u0000b"}`, "session_id"},
		{"remember", `{"messages":[]}`, "messages"},
		{"recall", `{"query":""}`, "query"},
		{"recall", `{"query":"x","pool":"many"}`, "pool"},
		{"recall", `{"query":"x","order":5}`, "order"},
		{"recall", `{"query":"x","max_tokens":-1}`, "max_tokens"},
		{"recall", `{"query":"x","querry":"y"}`, "querry"},
		{"forget", `{"ids":[""]}`, "ids"},
		{"forget", `{"ids":["x:0"],"all":true,"confirm":true}`, ""},
		{"nope", `{}`, "nope"},
	} {
		line, n := call(c.tool, c.args)
		add(c.tool+" "+abbrev(c.args), line, n, c.want)
	}

	sent, answered := 0, 0
	check := func(f frame, r response) {
		t.Helper()
		var msg string
		switch {
		case r.Error != nil:
			msg = r.Error.Message
			if r.Error.Code == -32603 && !strings.HasPrefix(f.name, "resources/read") {
				t.Errorf("%s: internal error %q", f.name, msg)
			}
		case r.Result != nil:
			for _, c := range r.Result.Content {
				msg += c.Text
			}
			if !r.Result.IsError {
				t.Errorf("%s: a result, not an error: %q", f.name, msg)
				return
			}
			if strings.Contains(msg, "internal error") || strings.Contains(msg, "panic") {
				t.Errorf("%s: %q", f.name, msg)
			}
		default:
			t.Errorf("%s: a response with neither result nor error", f.name)
			return
		}
		if msg == "" || !strings.Contains(strings.ToLower(msg), f.want) {
			t.Errorf("%s: %q does not name %q", f.name, msg, f.want)
		}
	}
	for i, f := range frames {
		before := nullErrors
		send(f.line)
		sent++
		// a valid call after each frame, alternating ping, today and recall
		var line string
		var n int
		switch i % 3 {
		case 0:
			n = id()
			line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, n)
		case 1:
			line, n = call("today", `{}`)
		default:
			line, n = call("recall", `{"query":"anything at all","k":3}`)
		}
		send(line)
		if r, ok := await(n); ok && (r.Error != nil || r.Result == nil || r.Result.IsError) {
			t.Errorf("the valid call after %q: %+v %+v", f.name, r.Error, r.Result)
		}
		switch {
		case f.nullID:
			awaitNull(before)
			if nullErrors != before+1 {
				t.Errorf("%s: %d errors with a null id, want 1", f.name, nullErrors-before)
			} else {
				answered++
			}
		case f.id != 0:
			if r, ok := await(f.id); ok {
				answered++
				check(f, r)
			}
		}
	}

	// after all of it, the tools still work
	line, n := call("remember", `{"session_id":"after","messages":[{"role":"user","content":"The kestrel nests on the tower."}]}`)
	send(line)
	if r, _ := await(n); r.Error != nil || r.Result == nil || r.Result.IsError {
		t.Fatalf("remember after the frames: %+v %+v", r.Error, r.Result)
	}
	line, n = call("recall", `{"query":"kestrel","fusion":"text"}`)
	send(line)
	if r, _ := await(n); r.Result == nil || r.Result.IsError || len(r.Result.Content) == 0 || !strings.Contains(r.Result.Content[0].Text, "kestrel") {
		t.Fatalf("recall after the frames: %+v %+v", r.Error, r.Result)
	}
	select {
	case err := <-served:
		t.Fatalf("the server stopped: %v", err)
	default:
	}
	inW.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("the server ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the server did not end 10 s after its input closed")
	}
	for range responses {
	}
	withID, unread := 0, 0
	for _, f := range frames {
		if f.id != 0 {
			withID++
		}
		if f.nullID {
			unread++
		}
	}
	t.Logf("%d malformed frames (%d requests with an id, %d answered with an error: %d naming the problem, %d parse errors with a null id for ids the server could not read; %d errors with a null id in all), %d valid calls between and after them, all answered (%d notifications), in %v",
		sent, withID, answered, answered-unread, unread, nullErrors, len(frames)+2, notifications, time.Since(start).Round(time.Millisecond))
}

func abbrev(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s… (%d bytes)", s[:20], len(s))
	}
	return s
}
