package web_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"agentmem/memory"
	"agentmem/memory/embedder/fake"
	"agentmem/memory/store/embedded"
	"agentmem/server"
)

// chromium finds a Chromium to drive: $AGENTMEM_CHROMIUM, else Debian's.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTMEM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine: the browser test needs one (Debian: apt-get install -y chromium; .ci/run installs it when apt-get is there), or set AGENTMEM_CHROMIUM")
	return ""
}

// memoryServer serves the MCP handler and the browser over a store holding
// two namespaces, with a token.
func memoryServer(t *testing.T) (*httptest.Server, memory.Store) {
	t.Helper()
	ctx := context.Background()
	e := &fake.Embedder{Name: "web"}
	st, err := embedded.Open(ctx, t.TempDir(), embedded.Options{NoSync: true, EmbedderID: e.ID(), Dims: e.Dims()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := memory.New(memory.Options{Store: st, Embedder: e, Now: func() time.Time { return time.Date(2023, 6, 10, 9, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []memory.RememberRequest{
		{Namespace: "alice", SessionID: "s-may", SessionDate: "1:56 pm on 8 May, 2023", Messages: []memory.Message{
			{Role: "user", Speaker: "Alice", Content: "Yesterday I went to the Nordstrom friends and family sale."},
			{Role: "assistant", Content: "Did you find anything nice?"},
			{Role: "user", Speaker: "Alice", Content: "A blue raincoat for the trip to Portland."},
		}},
		{Namespace: "alice", SessionID: "s-june", SessionDate: "2023-06-02T18:30:00Z", Messages: []memory.Message{
			{Role: "user", Speaker: "Alice", Content: "My daughter started violin lessons with Mrs Lindqvist on Tuesday."},
			{Role: "assistant", Content: "How exciting! How is she finding it?"},
		}},
		{Namespace: "alice", SessionID: "s-april", SessionDate: "2023-04-20", Messages: []memory.Message{
			{Role: "user", Speaker: "Alice", Content: "We booked the lake house in Maine for August."},
		}},
		{Namespace: "bob", SessionID: "b1", SessionDate: "2023-01-15", Messages: []memory.Message{
			{Role: "user", Speaker: "Bob", Content: "I adopted a cat named Pixel."},
		}},
		{Namespace: "carol", SessionID: "c1", SessionDate: "2023-02-03", Messages: []memory.Message{
			{Role: "user", Speaker: "Carol", Content: "Ana called this morning. " + strings.Repeat("We talked about the weather, the traffic and the price of coffee. ", 12) + "She said she finally likes Lisbon."},
		}},
	} {
		if _, err := svc.Remember(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	const token = "s3cret-token"
	h, err := server.NewHTTP(server.New(svc, server.Options{}), server.HTTPOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	server.MountBrowser(h, svc, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, st
}

// The page in a real browser: sign in with the token, each view, and the
// delete of a memory and of a session, each with its confirmation.
// Screenshots of every view go to $AGENTMEM_SCREENSHOTS when set (for a
// person to look at), else to a temporary directory.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	ts, st := memoryServer(t)
	shots := os.Getenv("AGENTMEM_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium leaves an org.chromium.Chromium.* directory in TMPDIR
		chromedp.Env("TMPDIR=" + t.TempDir()),
		chromedp.WindowSize(1100, 800),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()
	// start the browser on ctx, so that the shorter contexts of the steps
	// below bound each step and not the browser's life
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}

	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		step, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := chromedp.Do(step, actions...); err != nil {
			if html, herr := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText")); herr == nil {
				t.Logf("the page shows:\n%s", html)
			}
			t.Fatalf("%s: %v", what, err)
		}
	}
	shot := func(name string) {
		t.Helper()
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.getElementById('main').innerText"))
		if err != nil || strings.Contains(shown, "null") || strings.Contains(shown, "undefined") {
			t.Errorf("the %s view shows %q (%v)", name, shown, err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		do("wait for "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return s
	}
	turns := func(session string) int {
		t.Helper()
		ms, err := st.Session(context.Background(), "alice", session)
		if err != nil {
			t.Fatal(err)
		}
		return len(ms)
	}

	// sign in: a wrong token is refused, the right one opens the namespaces
	do("open the page", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS("#token")))
	shot("login")
	do("wrong token", chromedp.SendKeys(chromedp.CSS("#token"), "wrong"), chromedp.Click(chromedp.CSS("form.login button")), chromedp.WaitVisible(chromedp.CSS(".login .error")))
	do("right token", chromedp.SetValue(chromedp.CSS("#token"), "s3cret-token"), chromedp.Click(chromedp.CSS("form.login button")))
	if got := text("#namespaces"); !strings.Contains(got, "alice") || !strings.Contains(got, "bob") || !strings.Contains(got, "6") {
		t.Fatalf("namespaces view = %q", got)
	}
	shot("namespaces")

	// sessions by date, newest first
	do("open alice", chromedp.Click(chromedp.CSS(`a[href="#/ns/alice"]`)))
	got := text("#sessions")
	if j, m, a := strings.Index(got, "s-june"), strings.Index(got, "s-may"), strings.Index(got, "s-april"); !(j >= 0 && j < m && m < a) {
		t.Fatalf("sessions view, newest first = %q", got)
	}
	shot("sessions")

	// a session read in order
	do("open s-may", chromedp.Click(chromedp.CSS(`a[href="#/ns/alice/s/s-may"]`)))
	got = text("#turns")
	if n, d, r := strings.Index(got, "Nordstrom"), strings.Index(got, "Did you find"), strings.Index(got, "raincoat"); !(n >= 0 && n < d && d < r) || !strings.Contains(got, "Alice (user)") {
		t.Fatalf("session view, in turn order = %q", got)
	}
	shot("session")

	// delete a memory: cancel keeps it, confirm deletes it
	del := `button.delete-memory[data-id="s-may:1"]`
	do("ask to delete s-may:1", chromedp.Click(chromedp.CSS(del)), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if got := text("#confirm-text"); !strings.Contains(got, "memory s-may:1") {
		t.Errorf("confirmation = %q", got)
	}
	shot("confirm")
	do("cancel", chromedp.Click(chromedp.CSS("#confirm-cancel")), chromedp.WaitNotVisible(chromedp.CSS("#confirm")))
	if n := turns("s-may"); n != 3 {
		t.Fatalf("after cancelling, s-may holds %d memories, want 3", n)
	}
	do("delete s-may:1", chromedp.Click(chromedp.CSS(del)), chromedp.WaitVisible(chromedp.CSS("#confirm")), chromedp.Click(chromedp.CSS("#confirm-ok")))
	if got := text(".notice"); !strings.Contains(got, "Deleted 1 memory") {
		t.Errorf("notice after deleting = %q", got)
	}
	if got := text("#turns"); strings.Contains(got, "Did you find") || !strings.Contains(got, "raincoat") {
		t.Errorf("session after deleting s-may:1 = %q", got)
	}
	if n := turns("s-may"); n != 2 {
		t.Fatalf("after deleting, s-may holds %d memories, want 2", n)
	}

	// search: the recall, with why each memory matched
	do("search", chromedp.Navigate(ts.URL+"/#/search?ns=alice&q=When+did+Alice+go+to+the+Nordstrom+sale"))
	got = text("#hits")
	if !strings.HasPrefix(strings.TrimSpace(got), "#1 Alice (user)") || !strings.Contains(got, "Nordstrom friends and family sale") || !strings.Contains(got, "text rank 1") || !strings.Contains(got, "vector rank") || !strings.Contains(got, "entity “nordstrom”") {
		t.Fatalf("search view = %q", got)
	}
	shot("search")
	// a question that names a period: the memories dated in it say so
	// (the line of periods is only on the new view: the last search's
	// hits stay until it is shown)
	do("search a period", chromedp.Navigate(ts.URL+"/#/search?ns=alice&q=What+did+Alice+buy+in+May+2023"))
	if got = text(".periods"); !strings.Contains(got, "“May 2023”") || !strings.Contains(got, "May 1, 2023") {
		t.Errorf("the question's periods = %q", got)
	}
	if got = text("#hits"); !strings.Contains(got, "dated in “May 2023”") {
		t.Errorf("search view of a period = %q", got)
	}

	// delete a whole session from its page
	do("open s-april", chromedp.Navigate(ts.URL+"/#/ns/alice/s/s-april"), chromedp.WaitVisible(chromedp.CSS("#turns")))
	do("delete s-april", chromedp.Click(chromedp.CSS("#delete-session")), chromedp.WaitVisible(chromedp.CSS("#confirm")))
	if got := text("#confirm-text"); !strings.Contains(got, "session s-april") {
		t.Errorf("confirmation = %q", got)
	}
	do("confirm", chromedp.Click(chromedp.CSS("#confirm-ok")))
	got = text("#sessions")
	if strings.Contains(got, "s-april") || !strings.Contains(got, "s-may") {
		t.Errorf("sessions after deleting s-april = %q", got)
	}
	if n := turns("s-april"); n != 0 {
		t.Errorf("after deleting the session, s-april holds %d memories", n)
	}
	if got := text(".notice"); !strings.Contains(got, "Deleted 1 memory") {
		t.Errorf("notice after deleting the session = %q", got)
	}
}
