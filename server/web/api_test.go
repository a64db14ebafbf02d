package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The API without a browser: the token, the tools' limits and errors, and
// what the browser may not do.
func TestAPI(t *testing.T) {
	ts, _ := memoryServer(t)
	origin := ""
	call := func(method, path, token, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(raw)
	}
	const tok = "s3cret-token"
	for _, c := range []struct {
		method, path, token, body string
		status                    int
		says                      string
	}{
		{"GET", "/", "", "", 200, "<title>agentmem"},
		{"GET", "/assets/app.js", "", "", 200, "confirmDelete"},
		{"GET", "/api/namespaces", "", "", 401, "missing or wrong bearer token"},
		{"GET", "/api/namespaces", "wrong", "", 401, "missing or wrong bearer token"},
		{"GET", "/api/namespaces", tok, "", 200, `"name":"alice","memories":6,"sessions":3`},
		{"GET", "/api/sessions?namespace=alice&limit=1", tok, "", 200, `"id":"s-june"`},
		{"GET", "/api/sessions?namespace=alice&limit=5000", tok, "", 400, "limit: must be between 1 and 1000"},
		{"GET", "/api/sessions?namespace=alice&limit=0", tok, "", 400, "limit: must be between 1 and 1000, got 0"},
		{"GET", "/api/sessions?namespace=nobody", tok, "", 404, `namespace \"nobody\" not found`},
		{"GET", "/api/sessions?namespace=alice&after=31+February+2023", tok, "", 400, "after"},
		{"GET", "/api/session?namespace=alice&id=s-may", tok, "", 200, `"turns":[{"id":"s-may:0"`},
		{"GET", "/api/session?namespace=alice", tok, "", 400, "id: must name a session"},
		{"GET", "/api/session?namespace=alice&id=nope", tok, "", 404, `session \"nope\" not found`},
		{"POST", "/api/recall", tok, `{"query":"Nordstrom","namespace":"alice","k":2}`, 200, `"text_rank":1`},
		{"POST", "/api/recall", tok, `{"query":"Nordstrom","namespace":"alice","k":2}`, 200, `"periods":[]`},
		{"POST", "/api/recall", tok, `{"query":"Nordstrom","k":500}`, 400, "k: must be at most 100"},
		// a long memory is shown whole, and names the query's entities it
		// holds anywhere, not only in the excerpt a model is shown
		{"POST", "/api/recall", tok, `{"query":"Did Ana like Lisbon?","namespace":"carol"}`, 200, `Ana called this morning. We talked`},
		{"POST", "/api/recall", tok, `{"query":"Did Ana like Lisbon?","namespace":"carol"}`, 200, `"entities":["ana","lisbon"]`},
		{"POST", "/api/recall", tok, `{"query":"What did I buy in May 2023?","namespace":"alice"}`, 200, `"periods":[{"expression":"May 2023","from":"2023-05-01T00:00:00Z"`},
		{"POST", "/api/recall", tok, `{"query":"What did I buy in May 2023?","namespace":"alice"}`, 200, `"session_date":"2023-05-08T13:56:00Z"`},
		{"POST", "/api/recall", tok, `{"query":"What did I buy in May 2023?","namespace":"alice"}`, 200, `"namespace":"alice","dates":["May 2023"]`},
		{"POST", "/api/recall", tok, `{"query":"x","kk":1}`, 400, "kk"},
		{"POST", "/api/recall", tok, `{"query":`, 400, "not JSON"},
		{"POST", "/api/recall", tok, `{"query":"` + strings.Repeat("a", 2<<20) + `"}`, 413, "larger than"},
		{"POST", "/api/forget", tok, `{"namespace":"alice","all":true,"confirm":true}`, 400, "never a whole namespace"},
		{"POST", "/api/forget", tok, `{"namespace":"bob","session_id":"b1"}`, 200, `"deleted":1`},
		{"GET", "/api/nothing", tok, "", 404, "no API"},
		{"GET", "/healthz", "", "", 200, "ok"},
		{"POST", "/mcp", "", `{}`, 401, "bearer"},
	} {
		status, body := call(c.method, c.path, c.token, c.body)
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s %s: %d %.200s; want %d saying %q", c.method, c.path, status, body, c.status, c.says)
		}
	}
	// a page of another site is refused in the API's own shape, as any of
	// its errors (it was JSON-RPC's, /mcp's)
	origin = "https://evil.example"
	if status, body := call("POST", "/api/recall", tok, `{"query":"x"}`); status != 403 || !strings.HasPrefix(body, `{"error":"Origin https://evil.example is not allowed`) {
		t.Errorf("POST /api/recall from another site's page: %d %s", status, body)
	}
}
