// Package evals measures agentmem on the two standard agent-memory
// benchmarks, LoCoMo and LongMemEval, the way an agent meets it: a scripted
// agent (or a chat model with function calling) talks to the server only
// through MCP, with the tools remember, recall and today, and the harness
// scores what recall returned against the benchmarks' evidence turns.
//
// The pieces, one concept per file: dataset.go is the benchmark-neutral
// model that locomo.go and longmemeval.go load into (and mproxy.go scales
// up); granularity.go turns sessions into remember calls and maps stored ids
// back to turns; client.go and dial.go are the MCP side (in process, or a
// spawned stdio server); matrix.go names the configurations; agent.go and
// toolagent.go are the two agents, with llm.go, judge.go and context.go
// for what a chat model is shown; retrieval.go and tokens.go measure; run.go
// drives everything, results.go keeps the resumable per-question results,
// and summary.go (with stats.go), report.go, chart.go and output.go write
// what a person reads, while progress.go shows how far a run is. peer.go
// runs other MCP memory servers (package peers) on the same questions, and
// compare.go writes them side by side with agentmem (compare.md).
package evals
