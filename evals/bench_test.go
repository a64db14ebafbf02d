package evals

import (
	"agentmem/tools/spec"
	"context"
	"testing"
)

// BenchmarkRecallInProcess is one recall through the in-process MCP client
// over the fake embedder: the harness's own overhead per question.
func BenchmarkRecallInProcess(b *testing.B) {
	ctx := context.Background()
	conn := storedConn(b, "bench")
	args := spec.RecallArgs{Query: "What breed is Melanie's dog?", K: 10, Namespace: "bench"}
	for b.Loop() {
		if _, _, err := conn.Recall(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTokenizer counts the tokens of a k=10 LoCoMo-sized context.
func BenchmarkTokenizer(b *testing.B) {
	tok, err := NewTokenizer()
	if err != nil {
		b.Fatal(err)
	}
	text := ""
	for range 10 {
		text += "[2023-05-08 Mon · session session_1 · Caroline (user)]\nI went to a LGBTQ support group yesterday and it was so powerful.\n\n"
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Count(text)
	}
}
