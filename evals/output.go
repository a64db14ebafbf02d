package evals

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
)

// WriteOutputs writes summary.json, report.md and chart.svg into dir
// (results.jsonl is written as the run goes, by Results).
func WriteOutputs(dir string, s Summary, configs []Config) error {
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	var chart bytes.Buffer
	if err := WriteChart(&chart, s, configs); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "chart.svg"), chart.Bytes(), 0o644); err != nil {
		return err
	}
	var report bytes.Buffer
	if err := WriteReport(&report, s, "chart.svg"); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), report.Bytes(), 0o644)
}
