package evals

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress shows a run's progress on a terminal: one bar over turns stored
// and questions asked, weighted so that both count, with the counts and an
// ETA. A nil *Progress shows nothing.
type Progress struct {
	w                  io.Writer
	mu                 sync.Mutex
	bar                *progressbar.ProgressBar
	turns, totalTurns  int
	questions, totalQs int
}

// questionWeight is how many turns of ingest one asked question counts as
// on the bar: roughly their relative cost with the built-in embedder.
const questionWeight = 4

// NewProgress shows progress on w (stderr).
func NewProgress(w io.Writer) *Progress { return &Progress{w: w} }

// Start sizes the bar.
func (p *Progress) Start(turns, questions int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.totalTurns, p.totalQs = turns, questions
	p.bar = progressbar.NewOptions64(int64(turns+questionWeight*questions),
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(250*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionFullWidth(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
	)
	p.describe()
}

// Turns counts n more turns stored.
func (p *Progress) Turns(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turns += n
	p.describe()
	p.bar.Add(n)
}

// Question counts one more question asked.
func (p *Progress) Question() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.questions++
	p.describe()
	p.bar.Add(questionWeight)
}

func (p *Progress) describe() {
	p.bar.Describe(fmt.Sprintf("turns %d/%d · questions %d/%d", p.turns, p.totalTurns, p.questions, p.totalQs))
}

// Finish closes the bar.
func (p *Progress) Finish() {
	if p == nil || p.bar == nil {
		return
	}
	p.bar.Finish()
}
