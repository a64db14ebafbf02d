package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"agentmem/memory"
)

// OAuth 2.1 resource-server mode, as the MCP authorization specification
// describes it: the access token is a JWT from an authorization server
// (the issuer), signed with a key of its JWKS, for this server (the
// audience), unexpired; the namespaces it opens are in a claim. The server
// publishes its protected-resource metadata (RFC 9728), which names the
// issuer, and points to it from every 401.

// OAuthOptions configure NewOAuth.
type OAuthOptions struct {
	Issuer   string // the authorization server's issuer identifier (the tokens' iss)
	Resource string // this server's canonical URI, e.g. https://mem.example.com/mcp
	Audience string // the tokens' aud; "" means Resource
	JWKSURL  string // "" means the issuer's, from its metadata
	// Claim holds the namespaces: a list of strings (or one string of
	// space-separated ones), each "name" (read and write) or "name:read",
	// a name being a namespace or a prefix ending in *. The first is the
	// default namespace.
	Claim string
}

// DefaultNamespacesClaim is the claim OAuth reads when none is configured.
const DefaultNamespacesClaim = "agentmem_namespaces"

// OAuth is the Users of OAuth resource-server mode.
type OAuth struct {
	opts OAuthOptions
	keys keyfunc.Keyfunc
}

// NewOAuth fetches the issuer's keys (finding its JWKS from its metadata
// when opts.JWKSURL is empty); ctx bounds the key set's refreshes.
func NewOAuth(ctx context.Context, opts OAuthOptions) (*OAuth, error) {
	if opts.Issuer == "" || opts.Resource == "" {
		return nil, errors.New("oauth: both the issuer (--oauth-issuer) and this server's URL (--oauth-resource) are required")
	}
	opts.Audience = cmp.Or(opts.Audience, opts.Resource)
	opts.Claim = cmp.Or(opts.Claim, DefaultNamespacesClaim)
	if opts.JWKSURL == "" {
		u, err := discoverJWKS(ctx, opts.Issuer)
		if err != nil {
			return nil, err
		}
		opts.JWKSURL = u
	}
	keys, err := keyfunc.NewDefaultCtx(ctx, []string{opts.JWKSURL})
	if err != nil {
		return nil, fmt.Errorf("oauth: the issuer's keys at %s: %w", opts.JWKSURL, err)
	}
	return &OAuth{opts: opts, keys: keys}, nil
}

// discoverJWKS reads jwks_uri from the issuer's metadata: RFC 8414's
// document, else OpenID Connect's.
func discoverJWKS(ctx context.Context, issuer string) (string, error) {
	base := strings.TrimSuffix(issuer, "/")
	var errs []error
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		u, err := fetchJWKSURI(ctx, base+p)
		if err == nil {
			return u, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("oauth: finding the issuer's keys (or give --oauth-jwks-url): %w", errors.Join(errs...))
}

func fetchJWKSURI(ctx context.Context, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var m struct {
		JWKSURI string `json:"jwks_uri"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.JWKSURI == "" {
		return "", fmt.Errorf("%s: no jwks_uri", url)
	}
	return m.JWKSURI, nil
}

// Metadata is this server's protected-resource metadata (RFC 9728).
func (o *OAuth) Metadata() *mcpserver.ProtectedResourceMetadataConfig {
	return &mcpserver.ProtectedResourceMetadataConfig{
		Resource:               o.opts.Resource,
		AuthorizationServers:   []string{o.opts.Issuer},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "agentmem",
	}
}

// MetadataURL is where clients find Metadata.
func (o *OAuth) MetadataURL() string {
	u := o.opts.Resource
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		host, _, _ := strings.Cut(rest, "/")
		u = scheme + "://" + host
	}
	return u + mcpserver.ProtectedResourceMetadataPath(o.opts.Resource)
}

// Authenticate implements Users: a valid token's namespaces.
func (o *OAuth) Authenticate(r *http.Request) (*memory.Access, error) {
	raw, err := bearerToken(r)
	if err != nil {
		return nil, err
	}
	claims := jwt.MapClaims{}
	_, err = jwt.ParseWithClaims(raw, claims, o.keys.KeyfuncCtx(r.Context()),
		jwt.WithIssuer(o.opts.Issuer), jwt.WithAudience(o.opts.Audience),
		jwt.WithExpirationRequired(), jwt.WithLeeway(30*time.Second),
		jwt.WithValidMethods([]string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}))
	if err != nil {
		return nil, fmt.Errorf("access token: %w", err)
	}
	return o.access(claims)
}

// access reads the namespaces claim.
func (o *OAuth) access(claims jwt.MapClaims) (*memory.Access, error) {
	sub, _ := claims.GetSubject()
	a := &memory.Access{User: sub}
	for _, v := range claimStrings(claims[o.opts.Claim]) {
		name, mode := v, ""
		if n, ok := strings.CutSuffix(v, ":read"); ok {
			name, mode = n, "read"
		} else if n, ok := strings.CutSuffix(v, ":write"); ok {
			name, mode = n, "write"
		}
		if validPattern(name) != nil {
			return nil, fmt.Errorf("access token: claim %s: %q is not a namespace, name:read or name:write", o.opts.Claim, v)
		}
		a.Rules = append(a.Rules, memory.Rule{Pattern: name, Write: mode != "read"})
		if a.Default == "" && !strings.HasSuffix(name, "*") {
			a.Default = name
		}
	}
	if len(a.Rules) == 0 {
		return nil, fmt.Errorf("access token: claim %s opens no namespace", o.opts.Claim)
	}
	return a, nil
}

func claimStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return strings.Fields(x)
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			} else {
				return []string{fmt.Sprint(e)}
			}
		}
		return out
	}
	return nil
}
