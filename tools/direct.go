package tools

import (
	"context"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// RecallWhole runs the recall tool's handler directly, for another front
// end over the same service (the memory browser): the same arguments,
// checks, limits and result, but every memory whole, where the tool gives
// a long one as the excerpt a model is shown. Decode and validate in with
// spec.Decode first.
func RecallWhole(ctx context.Context, svc *memory.Service, in spec.RecallArgs) (spec.RecallResult, error) {
	req := recallRequest(in)
	req.Ranks = true // the structured result, whose ranks the browser shows
	res, err := svc.Recall(ctx, req)
	if err != nil {
		return spec.RecallResult{}, err
	}
	return recalled(res, true, true), nil
}

// Forget runs the forget tool's handler directly (see RecallWhole).
func Forget(ctx context.Context, svc *memory.Service, in spec.ForgetArgs) (spec.ForgetResult, string, error) {
	return handlers{svc: svc}.forget(ctx, in)
}
