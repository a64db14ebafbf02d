package server_test

import (
	"net/http"
	"testing"

	"agentmem/server"
)

// A page of a rebound name (evil.example resolving to 127.0.0.1) reaches a
// server on loopback with its own Host header, and a same-origin GET sends
// no Origin: the Host alone tells it apart. Every path refuses it, the
// browser's page and API as /mcp does; loopback names are served.
func TestDNSRebindingRefusedEverywhere(t *testing.T) {
	svc := testService(t)
	h, ts := newHTTP(t, server.New(svc, server.Options{}), server.HTTPOptions{})
	server.MountBrowser(h, svc, nil)
	for _, path := range []string{"/", "/assets/app.js", "/api/namespaces", "/api/sessions?namespace=victim", "/api/session?namespace=victim&id=s1", server.Path, "/healthz"} {
		for host, want := range map[string]int{"evil.example:18732": 403, "evil.example": 403, "localhost:1": 0, "127.0.0.1:1": 0, "[::1]:1": 0} {
			req, _ := http.NewRequest("GET", ts.URL+path, nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if want == 403 && resp.StatusCode != 403 {
				t.Errorf("GET %s with Host %s: %d, want 403", path, host, resp.StatusCode)
			}
			if want == 0 && resp.StatusCode == 403 {
				t.Errorf("GET %s with loopback Host %s: refused", path, host)
			}
		}
	}
}
