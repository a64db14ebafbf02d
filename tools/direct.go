package tools

import (
	"context"

	"agentmem/memory"
	"agentmem/tools/spec"
)

// Recall runs the recall tool's handler directly, for another front end
// over the same service (the memory browser): the same arguments, checks,
// limits and result. Decode and validate in with spec.Decode first.
func Recall(ctx context.Context, svc *memory.Service, in spec.RecallArgs) (spec.RecallResult, string, error) {
	return handlers{svc: svc}.recall(ctx, in)
}

// Forget runs the forget tool's handler directly (see Recall).
func Forget(ctx context.Context, svc *memory.Service, in spec.ForgetArgs) (spec.ForgetResult, string, error) {
	return handlers{svc: svc}.forget(ctx, in)
}
