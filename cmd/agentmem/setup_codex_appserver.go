package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// appServer is a `codex app-server` child speaking JSON-RPC over stdio:
// the configuration API Codex's own UI uses (hooks/list, config/read,
// config/batchWrite).
type appServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
	next   int
}

func startAppServer(ctx context.Context, codex, codexHome string) (*appServer, error) {
	bin, err := exec.LookPath(codex)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", errNoCodex, err)
	}
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+codexHome)
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return nil, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	as := &appServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: &bytes.Buffer{}}
	cmd.Stderr = as.stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s app-server: %w", bin, err)
	}
	init := map[string]any{"clientInfo": map[string]any{"name": "agentmem-setup", "version": "1"}}
	if err := as.call(ctx, "initialize", init, nil); err != nil {
		as.close()
		return nil, err
	}
	if err := as.send(map[string]any{"method": "initialized"}); err != nil {
		as.close()
		return nil, err
	}
	return as, nil
}

func (as *appServer) close() {
	as.in.Close()
	as.cmd.Wait()
}

func (as *appServer) send(msg any) error {
	b, _ := json.Marshal(msg)
	_, err := as.in.Write(append(b, '\n'))
	return err
}

// call sends a request and decodes its result into out, skipping the
// notifications the server sends meanwhile.
func (as *appServer) call(ctx context.Context, method string, params, out any) error {
	as.next++
	id := as.next
	if err := as.send(map[string]any{"id": id, "method": method, "params": params}); err != nil {
		return as.fail(method, err)
	}
	for {
		if ctx.Err() != nil {
			return as.fail(method, ctx.Err())
		}
		line, err := as.out.ReadBytes('\n')
		if err != nil {
			return as.fail(method, err)
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &resp) != nil || resp.ID == nil || *resp.ID != id {
			continue // a notification, or not for us
		}
		if resp.Error != nil {
			return fmt.Errorf("codex app-server %s: %s", method, resp.Error.Message)
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return fmt.Errorf("codex app-server %s: unexpected result (%v): %.200s", method, err, resp.Result)
		}
		return nil
	}
}

func (as *appServer) fail(method string, err error) error {
	return fmt.Errorf("codex app-server %s: %w\n%s", method, err, lastBytes(as.stderr.String(), 2000))
}

// codexHook is one hook as hooks/list reports it.
type codexHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	SourcePath  string `json:"sourcePath"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// hooks lists the user-level hooks Codex reads from file.
func (as *appServer) hooks(ctx context.Context, file string) ([]codexHook, error) {
	cwd, _ := os.Getwd()
	var res struct {
		Data []struct {
			Hooks  []codexHook `json:"hooks"`
			Errors []any       `json:"errors"`
		} `json:"data"`
	}
	if err := as.call(ctx, "hooks/list", map[string]any{"cwds": []string{cwd}}, &res); err != nil {
		return nil, err
	}
	var out []codexHook
	for _, d := range res.Data {
		if len(d.Errors) > 0 {
			return nil, fmt.Errorf("codex reports errors in its hooks: %v", d.Errors)
		}
		for _, h := range d.Hooks {
			if filepath.Clean(h.SourcePath) == filepath.Clean(file) {
				out = append(out, h)
			}
		}
	}
	return out, nil
}

// codexConfig is the part of config/read setup reads.
type codexConfig struct {
	MCPServers map[string]map[string]any `json:"mcp_servers"`
	Hooks      struct {
		State map[string]any `json:"state"`
	} `json:"hooks"`
}

// config reads Codex's effective configuration.
func (as *appServer) config(ctx context.Context) (codexConfig, error) {
	var res struct {
		Config codexConfig `json:"config"`
	}
	err := as.call(ctx, "config/read", map[string]any{}, &res)
	return res.Config, err
}

// configEdit is one edit of config/batchWrite (a nil Value with
// "replace" removes the key).
type configEdit struct {
	KeyPath       string `json:"keyPath"`
	Value         any    `json:"value"`
	MergeStrategy string `json:"mergeStrategy"`
}

// write applies edits to config.toml through Codex, after a backup of the
// file as it was; no edits changes nothing.
func (as *appServer) write(ctx context.Context, file string, edits []configEdit) error {
	if len(edits) == 0 {
		fmt.Printf("%s: unchanged\n", file)
		return nil
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if len(old) > 0 {
		backup := file + ".agentmem-backup-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.WriteFile(backup, old, 0o600); err != nil {
			return fmt.Errorf("writing the backup %s: %w", backup, err)
		}
		fmt.Printf("%s: backed up to %s\n", file, backup)
	}
	if err := as.call(ctx, "config/batchWrite", map[string]any{"edits": edits}, nil); err != nil {
		return err
	}
	fmt.Printf("%s: updated\n", file)
	return nil
}

// lastBytes keeps the last n bytes of s.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
