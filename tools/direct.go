package tools

import (
	"context"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// RecallWhole runs the recall tool's handler directly, for another front
// end over the same service (the memory browser): the same arguments,
// checks, limits and result, and the whole text of each memory in it, by
// id (the result's text is what a model is shown: a long memory's
// excerpt). Decode and validate in with spec.Decode first.
func RecallWhole(ctx context.Context, svc *memory.Service, in spec.RecallArgs) (spec.RecallResult, map[string]string, error) {
	res, err := svc.Recall(ctx, recallRequest(in))
	if err != nil {
		return spec.RecallResult{}, nil, err
	}
	whole := map[string]string{}
	for _, p := range res.Passages {
		for _, m := range p.Memories {
			whole[m.ID] = m.Text
		}
	}
	return recalled(res), whole, nil
}

// Forget runs the forget tool's handler directly (see RecallWhole).
func Forget(ctx context.Context, svc *memory.Service, in spec.ForgetArgs) (spec.ForgetResult, string, error) {
	return handlers{svc: svc}.forget(ctx, in)
}
