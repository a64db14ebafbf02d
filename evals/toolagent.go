package evals

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	openai "github.com/sashabaranov/go-openai"

	"agentmem/tools/client"
	"agentmem/tools/spec"
)

// LLMConfig is the agent-in-the-loop configuration: the chat model is given
// the recall and today tools through function calling and decides what to
// recall, and how often, before it answers.
var LLMConfig = Config{Name: "llm-agent", K: 10, Granularity: ByTurn}

// agentTools are the tools the model may call: reading ones only, since the
// harness has already stored the history.
var agentTools = []string{"recall", "today"}

// agentSystem follows the server's own instructions.
const agentSystem = `Answer the user's question about your past conversations with them. Use your memory tools first: recall what the question needs (you may recall several times, with different queries), and call today when the answer depends on the current date. ` +
	`If your memory does not hold the answer, say that you do not know. Answer briefly: a short phrase or one or two sentences.`

// functions turns the server's tools into function definitions.
func functions(ts []mcp.Tool) ([]openai.Tool, error) {
	var out []openai.Tool
	for _, t := range ts {
		if !slices.Contains(agentTools, t.Name) {
			continue
		}
		raw, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		var schema struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &schema); err != nil {
			return nil, err
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: schema.InputSchema,
		}})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the server offers none of the tools %v", agentTools)
	}
	return out, nil
}

// llmAgent lets the chat model answer a.q with the tools, for at most
// r.o.MaxToolCalls tool calls; then it must answer.
func (r *runner) llmAgent(ctx context.Context, a asked) (Result, error) {
	ts, err := a.conn.Tools(ctx)
	if err != nil {
		return Result{}, err
	}
	fns, err := functions(ts)
	if err != nil {
		return Result{}, err
	}
	ns := a.ns[ByTurn]
	res := r.result("llm", LLMConfig, a)
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: a.conn.Instructions + "\n\n" + agentSystem},
		{Role: openai.ChatMessageRoleUser, Content: a.q.Text},
	}
	var recalled []spec.Recalled
	var context string
	calls := 0
	for {
		req := openai.ChatCompletionRequest{Messages: msgs}
		if calls < r.o.MaxToolCalls {
			req.Tools = fns
		}
		out, err := r.o.Chat.Create(ctx, req)
		if err != nil {
			return Result{}, err
		}
		msg := out.Choices[0].Message
		if len(msg.ToolCalls) == 0 || calls >= r.o.MaxToolCalls {
			res.Answer = msg.Content
			break
		}
		msgs = append(msgs, msg)
		for _, tc := range msg.ToolCalls {
			// Every call gets a reply, as the API requires; those past the
			// budget are refused.
			text := "error: no more tool calls for this question; answer now"
			if calls < r.o.MaxToolCalls {
				var err error
				if text, err = r.toolCall(ctx, a.conn, tc, ns, &recalled, &res); err != nil {
					text = "error: " + err.Error()
				}
				context += text + "\n\n"
			}
			calls++
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: text})
		}
	}
	res.Recalled = ids(recalled)
	res.Retrieval = Score(a.q, res.Recalled, a.ids[ByTurn])
	res.Tokens = r.o.Tokenizer.Count(context)
	res.AnswerShown = AnswerShown(res.Gold, context)
	return res, r.judge(ctx, &res, a, context)
}

// toolCall runs one call the model made, in the question's namespace
// whatever the model asked for, and collects the memories it recalled.
func (r *runner) toolCall(ctx context.Context, conn *client.Client, tc openai.ToolCall, ns string, recalled *[]spec.Recalled, res *Result) (string, error) {
	args := map[string]any{}
	if tc.Function.Arguments != "" {
		if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
			return "", fmt.Errorf("arguments are not a JSON object: %w", err)
		}
	}
	if tc.Function.Name != "recall" {
		if !slices.Contains(agentTools, tc.Function.Name) {
			return "", fmt.Errorf("no tool %q", tc.Function.Name)
		}
		text, _, err := conn.Call(ctx, tc.Function.Name, args)
		return text, err
	}
	args["namespace"] = ns
	args["format"] = "json" // the harness scores ids; the model reads the text, as in a host
	start := time.Now()
	text, structured, err := conn.Call(ctx, "recall", args)
	res.RecallMS += float64(time.Since(start).Microseconds()) / 1000
	res.Recalls++
	if err != nil {
		return "", err
	}
	var rec spec.RecallResult
	if err := json.Unmarshal(structured, &rec); err != nil {
		return "", fmt.Errorf("recall: structured content: %w", err)
	}
	if rec.RerankError != "" {
		res.RerankError = rec.RerankError
	}
	for _, m := range rec.Memories {
		if !slices.ContainsFunc(*recalled, func(x spec.Recalled) bool { return x.ID == m.ID }) {
			*recalled = append(*recalled, m)
		}
	}
	return text, nil
}
