package server_test

import (
	"context"
	"strings"
	"testing"

	"agentmem/tools/spec"
)

// A resource URI that does not parse whole is refused: it never falls
// back to the default namespace (whose session "d1" holds "defaultonly").
func TestResourceURIsParseWhole(t *testing.T) {
	ts := httpServer(t, "")
	ctx := context.Background()
	c, err := dial(t, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, r := range []spec.RememberArgs{
		{SessionID: "d1", SessionDate: "2023-05-01", Messages: []spec.Message{{Role: "user", Content: "defaultonly secret"}}},
		{Namespace: "alice", SessionID: "chat/2023:05", SessionDate: "2023-05-02", Messages: []spec.Message{{Role: "user", Content: "alice's note"}}},
	} {
		if _, _, err := c.Remember(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, uri := range []string{
		"agentmem://alice/sessions?foo=bar",
		"agentmem://alice/sessions?limit=1&limit=2",
		"agentmem://alice/sessions?limit",
		"agentmem://alice/sessions?after=2023-01-01&foo=1",
		"agentmem:///sessions",
		"agentmem:///sessions/d1",
		"agentmem://alice/sessions/d1/extra",
		"agentmem://alice/sessions/",
		"agentmem://alice/sessionsx",
	} {
		text, err := c.ReadResource(ctx, uri)
		if err == nil {
			t.Errorf("%s: read, want an error:\n%s", uri, text)
			continue
		}
		if strings.Contains(err.Error()+text, "defaultonly") {
			t.Errorf("%s: the default namespace leaked: %v %s", uri, err, text)
		}
		if !strings.Contains(err.Error(), "is not a resource of this server") && !strings.Contains(err.Error(), "resource not found") {
			t.Errorf("%s: unclear error %v", uri, err)
		}
	}
	for _, uri := range []string{
		spec.SessionsResource("alice", "2023-01-01", "2023-12-31", 10, ""),
		"agentmem://alice/sessions?before=2023-12-31&after=2023-01-01",
		"agentmem://alice/sessions",
		spec.SessionResource("alice", "chat/2023:05"),
	} {
		text, err := c.ReadResource(ctx, uri)
		if err != nil || !strings.Contains(text, "alice") || strings.Contains(text, "defaultonly") {
			t.Errorf("%s: %v\n%s", uri, err, text)
		}
	}
}
