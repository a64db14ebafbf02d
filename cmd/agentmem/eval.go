package main

import (
	"errors"
	"strings"
)

// evalCmd is where `agentmem eval` was: the evaluation harness is its own
// binary (agentmem-eval, issue 24), and a user following an older page
// is told so instead of "unexpected argument eval".
type evalCmd struct {
	Args []string `arg:"" optional:"" passthrough:"" help:"What was given to eval."`
}

func (c *evalCmd) Run(*env) error {
	args := strings.Join(c.Args, " ")
	if args == "" {
		args = "locomo FILE"
	}
	return errors.New("the evaluation harness is its own binary: agentmem-eval (go run ./cmd/agentmem-eval --data-dir DIR " + args + "; docs/evals.md)")
}
