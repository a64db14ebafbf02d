package evals

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"
)

// fakeOpenAI is an OpenAI-compatible chat endpoint with canned behaviour:
// an agent given tools calls today and recall with the question; only the
// question about the dog's breed is answered, and only when "golden
// retriever" is in what the model was shown; otherwise it does not know.
// The judge accepts exactly that answer to that question, and "I don't
// know" where the rule asks for an abstention; the sufficiency judge says
// yes when the memories name the breed.
type fakeOpenAI struct {
	mu       sync.Mutex
	requests []openai.ChatCompletionRequest
	failOnce bool
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, "bad request "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	fail := f.failOnce
	f.failOnce = false
	if !fail {
		f.requests = append(f.requests, req)
	}
	f.mu.Unlock()
	if fail {
		http.Error(w, `{"error":{"message":"slow down","type":"rate_limit"}}`, http.StatusTooManyRequests)
		return
	}
	var all strings.Builder
	for _, m := range req.Messages {
		all.WriteString(m.Content + "\n")
	}
	text := all.String()
	seen := strings.Contains(text, "golden retriever")
	breed := strings.Contains(text, "Question: What breed") || strings.HasPrefix(req.Messages[1].Content, "What breed")
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	system := req.Messages[0].Content
	last := req.Messages[len(req.Messages)-1]
	yes := map[bool]string{true: "Yes.", false: "no"}
	switch {
	case system == judgeSystem && strings.Contains(text, "instead of answering"):
		msg.Content = yes[strings.Contains(text, "reply: I don't know")]
	case system == judgeSystem:
		msg.Content = yes[breed && strings.Contains(text, "reply: A golden retriever")]
	case system == sufficiencySystem:
		msg.Content = yes[seen]
	case len(req.Tools) > 0 && last.Role == openai.ChatMessageRoleUser:
		msg.ToolCalls = []openai.ToolCall{
			{ID: "c1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "today", Arguments: "{}"}},
			{ID: "c2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "recall", Arguments: fmt.Sprintf(`{"query": %q, "k": 3, "namespace": "elsewhere"}`, last.Content)}},
		}
	case seen && breed:
		msg.Content = "A golden retriever."
	default:
		msg.Content = "I don't know."
	}
	json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
		Model:   req.Model,
		Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: openai.FinishReasonStop}},
	})
}

func TestRunWithChatModel(t *testing.T) {
	fake := &fakeOpenAI{failOnce: true}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	d := loadLoCoMo(t)
	d.Units = d.Units[:1]
	// the space of the best k, so that k=10 of 8 turns shows them all
	base := Baseline()
	base.Budget = "k"
	o := testOptions(t, d, t.TempDir(), inProcess(t))
	o.Configs = []Config{base}
	o.LLMAgent, o.MaxToolCalls = true, 3
	o.Chat = NewChat(srv.URL+"/v1", "test-key", "answerer")
	o.Judge = &Judge{Chat: NewChat(srv.URL+"/v1/", "test-key", "judge-1")}
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 2*len(d.Units[0].Questions) {
		t.Fatalf("%d results", len(out.Results))
	}
	for _, r := range out.Results {
		if r.Correct == nil {
			t.Fatalf("%s %s was not judged", r.Agent, r.Question)
		}
		right := r.Question == "conv-1/q0" || r.Question == "conv-1/q4"
		if *r.Correct != right {
			t.Errorf("%s %s: correct=%v answer %q", r.Agent, r.Question, *r.Correct, r.Answer)
		}
		if r.Abstain != (r.Sufficient == nil) {
			t.Errorf("%s %s: sufficiency asked of an abstention question, or not asked of another", r.Agent, r.Question)
		}
		// the model's recall asks for k=3: the best n (1 to 9, from the
		// chances), and the memories excerpts leave room for
		if r.Agent == "llm" && (r.Recalls != 1 || len(r.Recalled) < 1) {
			t.Errorf("llm agent: %d recalls, recalled %v", r.Recalls, r.Recalled)
		}
	}

	var answerPrompts, agentRuns int
	for _, req := range fake.requests {
		switch {
		case req.Messages[0].Content == answerSystem:
			answerPrompts++
			if u := req.Messages[1].Content; !strings.HasPrefix(u, "Today is Wednesday, 28 June 2023") || !strings.Contains(u, "[2023-05-08 Mon · session session_1") {
				t.Errorf("answer prompt lacks today or the memory headers:\n%s", u)
			}
			if req.Model != "answerer" {
				t.Errorf("answer model %s", req.Model)
			}
		case len(req.Tools) > 0:
			var names []string
			for _, tl := range req.Tools {
				names = append(names, tl.Function.Name)
			}
			if slices.Sort(names); !slices.Equal(names, []string{"recall", "today"}) {
				t.Errorf("agent offered tools %v, want recall and today", names)
			}
			agentRuns++
		case req.Messages[0].Content == judgeSystem || req.Messages[0].Content == sufficiencySystem:
			if req.Model != "judge-1" {
				t.Errorf("judge model %s", req.Model)
			}
		}
	}
	if answerPrompts != len(d.Units[0].Questions) || agentRuns < len(d.Units[0].Questions) {
		t.Errorf("%d answer prompts and %d agent runs", answerPrompts, agentRuns)
	}

	s := Summarize(d, []Config{base}, out, Meta{JudgeModel: "judge-1", AnswerModel: "answerer"})
	if len(s.Configs) != 2 || s.Configs[1].Agent != "llm" || s.J == nil || *s.J != 2.0/6 {
		t.Fatalf("summary: configs %d, J %v", len(s.Configs), s.J)
	}
	// With k=10 of 8 turns every context holds the breed: the four wrong
	// answers are reasoning failures, not retrieval failures.
	if f := s.Failures; f == nil || *f != (Failures{Wrong: 4, Reasoning: 4}) {
		t.Errorf("failures %+v", f)
	}
}

func TestParseVerdict(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
		err  bool
	}{
		{"yes", true, false},
		{"No.", false, false},
		{"**Yes** - the reply matches", true, false},
		{"CORRECT", true, false},
		{"maybe", false, true},
	} {
		got, err := parseVerdict(tc.in)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("parseVerdict(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// Tool calls past the budget are answered with a refusal, never run, and
// the model is then asked for its answer without tools.
func TestLLMAgentToolBudget(t *testing.T) {
	fake := &fakeOpenAI{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	d := loadLoCoMo(t)
	d.Units = d.Units[1:] // one question
	o := testOptions(t, d, t.TempDir(), inProcess(t))
	o.Scripted, o.LLMAgent, o.MaxToolCalls = false, true, 1
	o.Chat = NewChat(srv.URL+"/v1", "test-key", "answerer")
	out, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || out.Results[0].Recalls != 0 || len(out.Results[0].Recalled) != 0 {
		t.Fatalf("results %+v", out.Results)
	}
	last := fake.requests[len(fake.requests)-1]
	if len(last.Tools) != 0 {
		t.Error("tools still offered after the budget was spent")
	}
	refused := last.Messages[len(last.Messages)-1]
	if refused.ToolCallID != "c2" || !strings.Contains(refused.Content, "no more tool calls") {
		t.Errorf("the call past the budget got %+v", refused)
	}
}
