package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"agentmem/tools/spec"
)

// ReadResource reads a resource and returns its text contents, joined.
func (c *Client) ReadResource(ctx context.Context, uri string) (string, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.c.ReadResource(ctx, req)
	if err != nil {
		var se serverError
		if err = serverMessage(err); errors.As(err, &se) {
			return "", err // it names what it could not read
		}
		return "", fmt.Errorf("reading %s: %w", uri, err)
	}
	var b strings.Builder
	for _, ct := range res.Contents {
		if t, ok := ct.(mcp.TextResourceContents); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String(), nil
}

// serverMessage makes a resource error read as the server's message, of
// its kind. mcp-go reports every error of a resource handler as an
// internal error ("internal error: " before the message); the server
// marks a namespace or session that holds nothing with "resource not
// found: " and a bad argument with "invalid params: ", which its socket
// and HTTP transports turn into their codes, the mark kept in the message
// (mcp-go puts it before once more). Either way the error is a
// serverError of kind mcp.ErrResourceNotFound or mcp.ErrInvalidParams,
// which reads as the server's message alone: it names what it could not
// find or read ("after: cannot read ... as a date"), and a user of the
// command line reads neither the resource's URI nor the kind's code name.
func serverMessage(err error) error {
	msg, ok := strings.CutPrefix(err.Error(), mcp.ErrInternalError.Error()+": ")
	internal := ok && errors.Is(err, mcp.ErrInternalError)
	for _, kind := range []error{mcp.ErrResourceNotFound, mcp.ErrInvalidParams} {
		mark := kind.Error() + ": "
		if rest, ok := strings.CutPrefix(msg, mark); ok && (internal || errors.Is(err, kind)) {
			return serverError{kind: kind, msg: strings.TrimPrefix(rest, mark)}
		}
	}
	if internal {
		return errors.New(msg)
	}
	return err
}

// serverError is the server's message about a resource, of its kind.
type serverError struct {
	kind error
	msg  string
}

func (e serverError) Error() string { return e.msg }
func (e serverError) Unwrap() error { return e.kind }

func readJSON[T any](ctx context.Context, c *Client, uri string) (T, error) {
	var out T
	text, err := c.ReadResource(ctx, uri)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return out, fmt.Errorf("reading %s: %w", uri, err)
	}
	return out, nil
}

// Namespaces reads agentmem://namespaces.
func (c *Client) Namespaces(ctx context.Context) ([]spec.Namespace, error) {
	return readJSON[[]spec.Namespace](ctx, c, spec.NamespacesURI)
}

// Sessions reads a page of a namespace's sessions ("" for the server's
// default namespace is not possible in a URI: name it).
func (c *Client) Sessions(ctx context.Context, namespace, after, before string, limit int, cursor string) (spec.SessionsPage, error) {
	return readJSON[spec.SessionsPage](ctx, c, spec.SessionsResource(namespace, after, before, limit, cursor))
}

// Transcript reads a session as the Markdown transcript its resource holds.
func (c *Client) Transcript(ctx context.Context, namespace, sessionID string) (string, error) {
	return c.ReadResource(ctx, spec.SessionResource(namespace, sessionID))
}

// Resources lists the server's resources, every page.
func (c *Client) Resources(ctx context.Context) ([]mcp.Resource, error) {
	var out []mcp.Resource
	req := mcp.ListResourcesRequest{}
	for {
		res, err := c.c.ListResources(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("listing resources: %w", err)
		}
		out = append(out, res.Resources...)
		if res.NextCursor == "" {
			return out, nil
		}
		req.Params.Cursor = res.NextCursor
	}
}

// MCP is the underlying mcp-go client, for protocol features without a
// typed method here (completion, logging/setLevel, notifications).
func (c *Client) MCP() interface {
	Complete(context.Context, mcp.CompleteRequest) (*mcp.CompleteResult, error)
	SetLevel(context.Context, mcp.SetLevelRequest) error
	OnNotification(func(mcp.JSONRPCNotification))
	ListResourceTemplates(context.Context, mcp.ListResourceTemplatesRequest) (*mcp.ListResourceTemplatesResult, error)
} {
	return c.c
}
