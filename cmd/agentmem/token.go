package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"agentmem/server"
)

// tokenCmd manages a token file: serve --http-tokens reads it again when
// it changes, so tokens are added and revoked while it runs.
type tokenCmd struct {
	Add    tokenAddCmd    `cmd:"" help:"Make a token for a user, bound to namespaces; prints the token once and stores only its hash."`
	List   tokenListCmd   `cmd:"" help:"List the users of a token file and what each may read and write."`
	Remove tokenRemoveCmd `cmd:"" help:"Revoke every token of a user."`
}

type tokenFile struct {
	File string `name:"file" required:"" env:"AGENTMEM_HTTP_TOKENS" placeholder:"FILE" help:"The token file (made if missing; keep it private)."`
}

type tokenAddCmd struct {
	tokenFile
	User    string   `name:"user" required:"" help:"Who the token is for (shown in logs and errors)."`
	Write   []string `name:"write" sep:"," placeholder:"NS" help:"Namespaces it may read and write (a name, or a prefix ending in *)."`
	Read    []string `name:"read" sep:"," placeholder:"NS" help:"Namespaces it may only read."`
	Default string   `name:"default" placeholder:"NS" help:"Namespace of calls that name none (default: the first name of --write, else of --read, that is no prefix; with prefixes only, calls must name their namespace)."`
}

func (c tokenAddCmd) Run(e *env) error {
	def := c.Default
	if def == "" {
		// a prefix is no namespace: with prefixes only, calls must name theirs
		all := append(append([]string(nil), c.Write...), c.Read...)
		if i := slices.IndexFunc(all, func(p string) bool { return !strings.HasSuffix(p, "*") }); i >= 0 {
			def = all[i]
		}
	}
	tok, err := server.AddToken(c.File, server.TokenEntry{User: c.User, Write: c.Write, Read: c.Read, Default: def})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "Added a token for %s to %s (only its hash is stored: this is the one time it is shown).\n", c.User, c.File)
	fmt.Println(tok)
	return nil
}

type tokenListCmd struct{ tokenFile }

func (c tokenListCmd) Run(e *env) error {
	f, err := server.ReadTokenFile(c.File)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "USER\tDEFAULT\tWRITE\tREAD\tCREATED")
	for _, t := range f.Tokens {
		fmt.Fprintf(w, "%s\t%s\t%v\t%v\t%s\n", t.User, t.Default, t.Write, t.Read, t.Created)
	}
	return w.Flush()
}

type tokenRemoveCmd struct {
	tokenFile
	User string `name:"user" required:"" help:"The user whose tokens to revoke."`
}

func (c tokenRemoveCmd) Run(e *env) error {
	n, err := server.RemoveTokens(c.File, c.User)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "Revoked %d token(s) of %s; a server reading %s stops accepting them within a second.\n", n, c.User, c.File)
	return nil
}
