package evals

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Chat is a chat model behind an OpenAI-compatible endpoint.
type Chat struct {
	client *openai.Client
	Model  string
}

// NewChat returns a chat model client. An empty baseURL means OpenAI's.
func NewChat(baseURL, apiKey, model string) *Chat {
	cfg := openai.DefaultConfig(apiKey)
	if baseURL != "" {
		cfg.BaseURL = strings.TrimRight(baseURL, "/")
	}
	return &Chat{client: openai.NewClientWithConfig(cfg), Model: model}
}

// attempts bounds retries of rate-limited or failed requests.
const attempts = 5

// Create sends a chat completion request with the model filled in,
// retrying rate limits and server errors with backoff. Temperature is 0 so
// that reruns agree as far as the endpoint allows.
func (c *Chat) Create(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	req.Model = c.Model
	var err error
	for i := range attempts {
		var res openai.ChatCompletionResponse
		res, err = c.client.CreateChatCompletion(ctx, req)
		if err == nil {
			if len(res.Choices) == 0 {
				return res, fmt.Errorf("model %s returned no choices", c.Model)
			}
			return res, nil
		}
		if !retryable(err) || i == attempts-1 {
			break
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(time.Duration(1<<i) * time.Second):
		}
	}
	return openai.ChatCompletionResponse{}, fmt.Errorf("model %s: %w", c.Model, err)
}

func retryable(err error) bool {
	if apiErr, ok := errors.AsType[*openai.APIError](err); ok {
		return apiErr.HTTPStatusCode == http.StatusTooManyRequests || apiErr.HTTPStatusCode >= 500
	}
	if reqErr, ok := errors.AsType[*openai.RequestError](err); ok {
		return reqErr.HTTPStatusCode == http.StatusTooManyRequests || reqErr.HTTPStatusCode >= 500
	}
	return false
}

// Complete asks one question with a system prompt and returns the reply.
func (c *Chat) Complete(ctx context.Context, system, user string) (string, error) {
	res, err := c.Create(ctx, openai.ChatCompletionRequest{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(res.Choices[0].Message.Content), nil
}

// answerSystem is the answer model's instruction for the scripted agent.
const answerSystem = `You are an assistant with a long-term memory of your past conversations with the user. ` +
	`Below the question you are given today's date and the memories your memory tool found for it: turns of earlier conversations, each introduced by the date of its session when that is known. ` +
	`Answer from these memories. Work out relative dates ("yesterday", "last week") in a memory from that memory's session date, and durations up to now from today's date. ` +
	`When memories disagree, the most recent one is the current state. ` +
	`If the memories do not contain the answer, say that you do not know; do not guess. ` +
	`Answer briefly: a short phrase or one or two sentences.`

// AnswerPrompt is the user message of the scripted agent's answer call.
func AnswerPrompt(today, context, question string) string {
	return today + "\n\nMemories:\n" + context + "\n\nQuestion: " + question
}
