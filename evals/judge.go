package evals

import (
	"context"
	"fmt"
	"strings"
)

// Judge grades answers with a chat model. The judge must stay the same
// across the experiments being compared; every report names its model.
type Judge struct {
	Chat *Chat
}

const judgeSystem = `You grade the replies of an assistant that answers questions from its memory of earlier conversations. ` +
	`Follow the grading rule you are given, judge meaning rather than wording, and ignore style. Reply with exactly one word: yes or no.`

// rule is the grading rule for q: what makes a reply correct.
func rule(q Question) string {
	switch {
	case q.Category == "adversarial":
		r := "The conversations never say what the question asks. The reply is correct only if it says the information is not available, not mentioned, or unknown, instead of answering."
		if q.Adversarial != "" {
			r += fmt.Sprintf(" In particular, answering %q is wrong.", q.Adversarial)
		}
		return r
	case q.Abstain:
		return fmt.Sprintf("The question cannot be answered from the conversations (note: %s). The reply is correct only if it says it does not know or that the information is missing, instead of answering.", q.Answer)
	case q.Category == "SSP":
		return fmt.Sprintf("This question asks for a personalised reply. The rubric describes what a good reply does, drawing on what the user said before: %s\nThe reply is correct if it satisfies the rubric. It need not cover every detail, but it must use the user's remembered preferences rather than give generic advice.", q.Answer)
	case q.Category == "KU":
		return fmt.Sprintf("The gold answer is: %s\nIt is the latest value of something that changed over time. The reply is correct if it gives this value as the current one; mentioning older values as well is fine, giving an older value as the answer is not.", q.Answer)
	case q.Category == "temporal" || q.Category == "TR":
		return fmt.Sprintf("The gold answer is: %s\nThe reply is correct if it states the same date, time span or order. Dates may be written in any form. A count of days, weeks or months that is off by one still counts as correct.", q.Answer)
	}
	return fmt.Sprintf("The gold answer is: %s\nThe reply is correct if it gives the gold answer or an equivalent one; extra correct detail is fine. A different answer, a list of guesses, or saying it does not know is incorrect.", q.Answer)
}

// Correct says whether answer is a correct reply to q.
func (j *Judge) Correct(ctx context.Context, q Question, answer string) (bool, error) {
	user := fmt.Sprintf("Question: %s\n\nGrading rule: %s\n\nThe assistant's reply: %s\n\nIs the reply correct? Answer yes or no.", q.Text, rule(q), answer)
	return j.verdict(ctx, judgeSystem, user)
}

const sufficiencySystem = `You check whether a set of remembered conversation turns is enough to answer a question. ` +
	`You see only the question, today's date and the memories. Say yes if the answer can be found in the memories or worked out from them (for example by date arithmetic or by combining several memories); say no if something needed is missing. ` +
	`Reply with exactly one word: yes or no.`

// Sufficient says whether context alone holds what answering q needs, so
// that a wrong answer can be blamed on retrieval (no) or on reasoning (yes).
func (j *Judge) Sufficient(ctx context.Context, q Question, today, context string) (bool, error) {
	user := fmt.Sprintf("%s\n\nMemories:\n%s\n\nQuestion: %s\n\nDo the memories hold enough to answer the question? Answer yes or no.", today, context, q.Text)
	return j.verdict(ctx, sufficiencySystem, user)
}

// verdict asks the judge model and reads its yes or no.
func (j *Judge) verdict(ctx context.Context, system, user string) (bool, error) {
	reply, err := j.Chat.Complete(ctx, system, user)
	if err != nil {
		return false, err
	}
	return parseVerdict(reply)
}

// parseVerdict reads a yes/no reply, tolerating case, punctuation and a
// short explanation after the verdict.
func parseVerdict(reply string) (bool, error) {
	words := strings.FieldsFunc(strings.ToLower(reply), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	})
	for _, w := range words {
		switch w {
		case "yes", "correct", "true":
			return true, nil
		case "no", "incorrect", "false":
			return false, nil
		}
	}
	return false, fmt.Errorf("judge reply %q is neither yes nor no", reply)
}
