package server_test

import (
	"net/http"
	"testing"

	"agentmem/server"
)

// The browser's API reads the token as /mcp does: the scheme in any case,
// spaces around it, and a hashed compare.
func TestAPIBearerSchemeAsMCP(t *testing.T) {
	svc := testService(t)
	h, ts := newHTTP(t, server.New(svc, server.Options{}), server.HTTPOptions{Token: "s3cret"})
	server.MountBrowser(h, svc, nil)
	for auth, want := range map[string]int{
		"Bearer s3cret":    200,
		"bearer s3cret":    200,
		"BEARER s3cret":    200,
		"Bearer  s3cret":   200,
		" Bearer s3cret  ": 200,
		"Bearer wrong":     401,
		"Bearer s3cre":     401,
		"Basic s3cret":     401,
		"s3cret":           401,
		"":                 401,
	} {
		req, _ := http.NewRequest("GET", ts.URL+"/api/namespaces", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("/api/ with Authorization %q: %d, want %d", auth, resp.StatusCode, want)
		}
		if want == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("401 without WWW-Authenticate")
		}
	}
}
