package server_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"agentmem/server"
	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// issuer is an OAuth authorization server on loopback: its metadata
// (RFC 8414) and its JWKS, with one RSA test key.
type issuer struct {
	*httptest.Server
	key *rsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.URL, "jwks_uri": is.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "kid": "k1", "alg": "RS256", "use": "sig",
			"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	is.Server = httptest.NewServer(mux)
	t.Cleanup(is.Close)
	return is
}

// token signs claims with key (the issuer's unless another is given).
func (is *issuer) token(t *testing.T, claims jwt.MapClaims, key *rsa.PrivateKey) string {
	t.Helper()
	if key == nil {
		key = is.key
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// OAuth resource-server mode: a token of the issuer, for this server,
// unexpired, opens the namespaces of its claim, and nothing else does; a
// 401 points to the protected-resource metadata, which names the issuer.
func TestOAuthResourceServer(t *testing.T) {
	ctx := context.Background()
	is := newIssuer(t)
	const resource = "https://mem.example.com/mcp"
	o, err := server.NewOAuth(ctx, server.OAuthOptions{Issuer: is.URL, Resource: resource})
	if err != nil {
		t.Fatal(err)
	}
	svc := testService(t)
	h, ts := newHTTP(t, server.New(svc, server.Options{}), server.HTTPOptions{Users: o, ResourceMetadata: o.Metadata(), ResourceMetadataURL: o.MetadataURL()})
	server.MountBrowser(h, svc, nil)
	now := time.Now()
	claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{"iss": is.URL, "aud": resource, "sub": "alice", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(),
			"agentmem_namespaces": []string{"alice", "family:read"}}
		if edit != nil {
			edit(c)
		}
		return c
	}
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	good := is.token(t, claims(nil), nil)
	for name, tok := range map[string]string{
		"no token":         "",
		"another issuer":   is.token(t, claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }), nil),
		"another audience": is.token(t, claims(func(c jwt.MapClaims) { c["aud"] = "https://other.example/mcp" }), nil),
		"expired":          is.token(t, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Hour).Unix() }), nil),
		"no expiry":        is.token(t, claims(func(c jwt.MapClaims) { delete(c, "exp") }), nil),
		"another key":      is.token(t, claims(nil), other),
		"no namespaces":    is.token(t, claims(func(c jwt.MapClaims) { delete(c, "agentmem_namespaces") }), nil),
		"alg none":         unsigned(claims(nil)),
		"tampered":         good[:len(good)-4] + "AAAA",
	} {
		hdr := map[string]string{}
		if tok != "" {
			hdr["Authorization"] = "Bearer " + tok
		}
		resp, body := do(t, "POST", ts.URL, "", initBody, hdr)
		wa := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != 401 || !strings.Contains(wa, `resource_metadata="https://mem.example.com/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("%s: %d %s, WWW-Authenticate %q; want 401 pointing to the metadata", name, resp.StatusCode, body, wa)
		}
		if (tok != "") != strings.Contains(wa, `error="invalid_token"`) {
			t.Errorf("%s: WWW-Authenticate %q", name, wa)
		}
	}

	resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if meta["resource"] != resource || !strings.Contains(toJSON(meta["authorization_servers"]), is.URL) {
		t.Errorf("protected-resource metadata = %v", meta)
	}

	c, err := client.HTTP(ctx, ts.URL+server.Path, map[string]string{"Authorization": "Bearer " + good})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, _, err := c.Remember(ctx, spec.RememberArgs{SessionID: "s", Messages: []spec.Message{{Role: "user", Content: "hello"}}}); err != nil || r.Namespace != "alice" {
		t.Errorf("remember with a good token: %+v %v (want the claim's first namespace)", r, err)
	}
	for _, ns := range []string{"family", "bob"} {
		if _, _, err := c.Remember(ctx, spec.RememberArgs{Namespace: ns, SessionID: "s", Messages: []spec.Message{{Role: "user", Content: "hi"}}}); err == nil {
			t.Errorf("remember into %s with a token that does not open it for writing", ns)
		}
	}
	// a claim of prefixes only opens them, and has no default: a call
	// must name its namespace (the token was refused as opening none)
	prefixes, err := client.HTTP(ctx, ts.URL+server.Path, map[string]string{"Authorization": "Bearer " + is.token(t, claims(func(c jwt.MapClaims) { c["agentmem_namespaces"] = []string{"proj-*"} }), nil)})
	if err != nil {
		t.Fatalf("a claim of prefixes only: %v", err)
	}
	defer prefixes.Close()
	if !strings.Contains(prefixes.Instructions, `no default namespace: give "namespace" in every remember, recall and forget call, one that alice opens: proj-*`) {
		t.Errorf("a claim of prefixes only is not told to name a namespace: %q", prefixes.Instructions)
	}
	if strings.Contains(c.Instructions, "no default namespace") {
		t.Errorf("a claim with a default is told it has none: %q", c.Instructions)
	}
	// the same by the handshake of the protocol before sessionless
	// (initialize, not server/discover)
	legacy, err := client.HTTP(ctx, ts.URL+server.Path, map[string]string{"Authorization": "Bearer " + is.token(t, claims(func(c jwt.MapClaims) { c["agentmem_namespaces"] = []string{"proj-*"} }), nil)}, client.WithProtocol("2025-06-18"))
	if err != nil {
		t.Fatalf("a claim of prefixes only, by initialize: %v", err)
	}
	defer legacy.Close()
	if !strings.Contains(legacy.Instructions, "no default namespace") {
		t.Errorf("a claim of prefixes only is not told by initialize to name a namespace: %q", legacy.Instructions)
	}
	if r, _, err := prefixes.Remember(ctx, spec.RememberArgs{Namespace: "proj-a", SessionID: "s", Messages: []spec.Message{{Role: "user", Content: "hi"}}}); err != nil || r.Namespace != "proj-a" {
		t.Errorf("remember into proj-a with a claim of proj-*: %+v %v", r, err)
	}
	if _, _, err := prefixes.Remember(ctx, spec.RememberArgs{SessionID: "s", Messages: []spec.Message{{Role: "user", Content: "hi"}}}); err == nil || !strings.Contains(err.Error(), "namespace: must be given: alice opens no default namespace, only proj-*") {
		t.Errorf("remember naming no namespace with a claim of prefixes only: %v", err)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/namespaces", nil)
	req.Header.Set("Authorization", "Bearer "+good)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(raw), `"alice"`) {
		t.Errorf("/api/namespaces with a good token: %d %s", resp.StatusCode, raw)
	}
}

func unsigned(c jwt.MapClaims) string {
	s, _ := jwt.NewWithClaims(jwt.SigningMethodNone, c).SignedString(jwt.UnsafeAllowNoneSignatureType)
	return s
}

func toJSON(v any) string { raw, _ := json.Marshal(v); return string(raw) }

// The token file is read again when it changes: a revoked token stops
// working and a new one starts, without a restart; a file made invalid
// refuses everyone, with 503: the server is at fault, not their token.
func TestTokenFileReloads(t *testing.T) {
	ts, file, alice, _ := usersServer(t, testService(t))
	status := func(tok string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", ts.URL+"/api/namespaces", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := status(alice); s != 200 {
		t.Fatalf("alice: %d", s)
	}
	raw, _ := os.ReadFile(file)
	if strings.Contains(string(raw), alice) {
		t.Fatal("the token file holds a token, not only its hash")
	}
	if _, err := server.RemoveTokens(file, "alice"); err != nil {
		t.Fatal(err)
	}
	carol, err := server.AddToken(file, server.TokenEntry{User: "carol", Write: []string{"carol"}, Default: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "alice refused after her token was revoked", func() bool { return status(alice) == 401 })
	if s := status(carol); s != 200 {
		t.Errorf("carol's new token: %d", s)
	}
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	// refused as the server's fault, not hers: 503, not 401
	waitFor(t, "carol refused while the file is invalid", func() bool { return status(carol) == 503 })
}
