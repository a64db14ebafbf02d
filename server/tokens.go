package server

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"agentmem/memory"
)

// A token file gives each user of a shared HTTP server a token of their
// own, bound to the namespaces it may read and write and to a default
// namespace. It holds the tokens' SHA-256 hashes, never the tokens:
// `agentmem token add` prints a new token once and writes its hash. The
// server reads it again when it changes (checked at most once a second),
// so tokens are added and revoked without a restart.

// TokenFile is the content of a token file.
type TokenFile struct {
	Tokens []TokenEntry `json:"tokens"`
}

// TokenEntry is one user's token.
type TokenEntry struct {
	User    string   `json:"user"`
	SHA256  string   `json:"sha256"`            // hex SHA-256 of the token
	Default string   `json:"default"`           // namespace of calls that name none ("": they must name one)
	Write   []string `json:"write,omitempty"`   // namespaces (or prefix*) it may read and write
	Read    []string `json:"read,omitempty"`    // namespaces (or prefix*) it may only read
	Created string   `json:"created,omitempty"` // RFC 3339
}

func (e TokenEntry) access() *memory.Access {
	a := &memory.Access{User: e.User, Default: e.Default}
	for _, p := range e.Write {
		a.Rules = append(a.Rules, memory.Rule{Pattern: p, Write: true})
	}
	for _, p := range e.Read {
		a.Rules = append(a.Rules, memory.Rule{Pattern: p})
	}
	return a
}

// check says what is wrong with e, naming the field.
func (e TokenEntry) check() error {
	if e.User == "" {
		return errors.New("user: must not be empty")
	}
	if b, err := hex.DecodeString(e.SHA256); err != nil || len(b) != sha256.Size {
		return fmt.Errorf("user %s: sha256 must be 64 hex digits", e.User)
	}
	if len(e.Write)+len(e.Read) == 0 {
		return fmt.Errorf("user %s: opens no namespace (give write or read)", e.User)
	}
	for _, p := range append(slices.Clone(e.Write), e.Read...) {
		if err := validPattern(p); err != nil {
			return fmt.Errorf("user %s: %w", e.User, err)
		}
	}
	// no default: calls must name their namespace (a token of prefixes only)
	if e.Default != "" && (strings.Contains(e.Default, "*") || !e.access().CanRead(e.Default)) {
		return fmt.Errorf("user %s: default %q must be a namespace it opens, not a prefix (or none: then calls must name theirs)", e.User, e.Default)
	}
	return nil
}

func validPattern(p string) error {
	name := strings.TrimSuffix(p, "*")
	if p == "*" {
		return nil
	}
	if name == "" || strings.Contains(name, "*") || strings.ContainsFunc(name, func(r rune) bool {
		return r >= 0x80 || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:@/+", r))
	}) {
		return fmt.Errorf("namespace %q: write a namespace name, or a prefix ending in *", p)
	}
	return nil
}

// ReadTokenFile reads and checks the token file at path.
func ReadTokenFile(path string) (TokenFile, error) {
	var f TokenFile
	raw, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("token file %s: %w", path, err)
	}
	seen := map[string]bool{}
	for _, e := range f.Tokens {
		if err := e.check(); err != nil {
			return f, fmt.Errorf("token file %s: %w", path, err)
		}
		if seen[e.SHA256] {
			return f, fmt.Errorf("token file %s: user %s: the same token twice", path, e.User)
		}
		seen[e.SHA256] = true
	}
	return f, nil
}

// writeTokenFile replaces path with f, whole (0600: it tells who may read
// what).
func writeTokenFile(path string, f TokenFile) error {
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".agentmem-tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// AddToken makes a new token for e (its SHA256 is filled in), adds it to
// the token file at path (made if missing) and returns the token, which
// exists nowhere else.
func AddToken(path string, e TokenEntry) (string, error) {
	f, err := ReadTokenFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	token := "amt_" + rand.Text()
	sum := sha256.Sum256([]byte(token))
	e.SHA256 = hex.EncodeToString(sum[:])
	e.Created = cmp.Or(e.Created, time.Now().UTC().Format(time.RFC3339))
	if err := e.check(); err != nil {
		return "", err
	}
	f.Tokens = append(f.Tokens, e)
	return token, writeTokenFile(path, f)
}

// RemoveTokens removes every token of user from the file at path and
// says how many there were.
func RemoveTokens(path, user string) (int, error) {
	f, err := ReadTokenFile(path)
	if err != nil {
		return 0, err
	}
	n := len(f.Tokens)
	f.Tokens = slices.DeleteFunc(f.Tokens, func(e TokenEntry) bool { return e.User == user })
	if n == len(f.Tokens) {
		return 0, fmt.Errorf("token file %s holds no token of user %q", path, user)
	}
	return n - len(f.Tokens), writeTokenFile(path, f)
}

// Tokens is the Users of a token file, read again when it changes.
type Tokens struct {
	path string
	log  *slog.Logger
	mu   sync.Mutex
	seen time.Time // last look at the file
	stat os.FileInfo
	by   map[[sha256.Size]byte]*memory.Access
	err  error // the file as last read is invalid: every request is refused
}

// OpenTokens reads the token file at path; an invalid file is an error.
func OpenTokens(path string, log *slog.Logger) (*Tokens, error) {
	log = cmp.Or(log, slog.New(slog.DiscardHandler))
	t := &Tokens{path: path, log: log}
	if err := t.reload(); err != nil {
		return nil, err
	}
	return t, nil
}

// reload reads the file again; t.mu is held or t is new.
func (t *Tokens) reload() error {
	fi, err := os.Stat(t.path)
	if err == nil {
		t.stat = fi
	}
	f, err := ReadTokenFile(t.path)
	if err != nil {
		t.err, t.by = err, nil
		return err
	}
	t.by, t.err = map[[sha256.Size]byte]*memory.Access{}, nil
	for _, e := range f.Tokens {
		var h [sha256.Size]byte
		hex.Decode(h[:], []byte(e.SHA256))
		t.by[h] = e.access()
	}
	return nil
}

// fresh reads the file again if it changed since the last look, at most
// once a second. A file made invalid refuses everyone (a revoked token
// must not live on through a typo) until it is fixed.
func (t *Tokens) fresh() {
	if time.Since(t.seen) < time.Second {
		return
	}
	t.seen = time.Now()
	fi, err := os.Stat(t.path)
	if err == nil && t.stat != nil && fi.ModTime().Equal(t.stat.ModTime()) && fi.Size() == t.stat.Size() && os.SameFile(fi, t.stat) {
		return
	}
	if err := t.reload(); err != nil {
		t.log.Error("the token file is invalid: refusing every request until it is fixed", "err", err)
		return
	}
	t.log.Info("token file read again", "path", t.path, "tokens", len(t.by))
}

// Authenticate implements Users.
func (t *Tokens) Authenticate(r *http.Request) (*memory.Access, error) {
	tok, err := bearerToken(r)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256([]byte(tok))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fresh()
	if t.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTokenFile, t.err)
	}
	a, ok := t.by[h]
	if !ok {
		return nil, errors.New("unknown bearer token")
	}
	return a, nil
}
