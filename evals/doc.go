// Package evals measures agentmem on the two standard agent-memory
// benchmarks, LoCoMo and LongMemEval, the way an agent meets it: a scripted
// agent (or a chat model with function calling) talks to the server only
// through MCP, with the tools remember, recall and today, and the harness
// scores what recall returned against the benchmarks' evidence turns.
//
// The pieces, one concept per file: dataset.go is the benchmark-neutral
// model that locomo.go and longmemeval.go load into (and mproxy.go scales
// up); granularity.go turns sessions into remember calls and maps stored ids
// back to turns; client.go is the MCP side; agent.go and toolagent.go are
// the two agents; retrieval.go, tokens.go and judge.go measure; matrix.go
// names the configurations; run.go drives everything, results.go keeps the
// resumable per-question results, and summary.go, report.go and chart.go
// write what a person reads.
package evals
