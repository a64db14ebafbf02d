package evals

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// WriteOutputs writes summary.json, report.md and chart.svg into dir
// (results.jsonl is written as the run goes, by Results).
func WriteOutputs(dir string, s Summary, configs []Config) error {
	return writeFiles(dir,
		output{"summary.json", indented(s)},
		output{"chart.svg", func(w io.Writer) error { return WriteChart(w, s, configs) }},
		output{"report.md", func(w io.Writer) error { return WriteReport(w, s, "chart.svg") }})
}

// output is a file of a run's outputs and what writes it.
type output struct {
	name  string
	write func(io.Writer) error
}

// writeFiles writes each output into dir, in order, and stops at the first
// error.
func writeFiles(dir string, outs ...output) error {
	for _, o := range outs {
		var b bytes.Buffer
		if err := o.write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, o.name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// indented writes v as indented JSON and a newline.
func indented(v any) func(io.Writer) error {
	return func(w io.Writer) error {
		raw, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(raw, '\n'))
		return err
	}
}
