package main

import (
	"io"
	"os"
	"testing"
)

// The progress line ends when it reaches its total, once, so that what is
// logged after it starts on its own line; end ends it early, once.
func TestProgressLineEnds(t *testing.T) {
	capture := func(f func()) string {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		saved := os.Stderr
		os.Stderr = w
		f()
		os.Stderr = saved
		w.Close()
		b, _ := io.ReadAll(r)
		return string(b)
	}
	if got := capture(func() {
		progress, end := progressTo("docs", true)
		progress(5, 10)
		progress(10, 10)
		progress(10, 10)
		end()
	}); got != "\rdocs 5/10\rdocs 10/10\n" {
		t.Errorf("to its total: %q", got)
	}
	if got := capture(func() {
		progress, end := progressTo("docs", true)
		progress(5, 10)
		end()
		end()
	}); got != "\rdocs 5/10\n" {
		t.Errorf("ended early: %q", got)
	}
	// to a log file or a pipe: a line a tenth, no carriage return
	if got := capture(func() {
		progress, end := progressLine("docs")
		progress(5, 10)
		progress(10, 10)
		end()
	}); got != "docs 5/10\ndocs 10/10\n" {
		t.Errorf("not to a terminal: %q", got)
	}
}
