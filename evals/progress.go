package evals

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress shows a run's progress: on a terminal, one bar over turns
// stored and questions asked, with the counts and an ETA; elsewhere (a log
// file, CI) a plain line now and then. A nil *Progress shows nothing.
type Progress struct {
	w        io.Writer
	terminal bool
	mu       sync.Mutex
	bar      *progressbar.ProgressBar
	start    time.Time
	last     time.Time // last plain line

	turns, totalTurns  int
	questions, totalQs int
}

// questionWeight is how many turns of ingest one asked question counts as
// on the bar: roughly their relative cost with the built-in embedder.
const questionWeight = 4

// plainEvery spaces the plain lines.
const plainEvery = 30 * time.Second

// NewProgress shows progress on w (stderr); terminal says whether w is one.
func NewProgress(w io.Writer, terminal bool) *Progress { return &Progress{w: w, terminal: terminal} }

// Start sizes the bar.
func (p *Progress) Start(turns, questions int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.totalTurns, p.totalQs = turns, questions
	p.start, p.last = time.Now(), time.Now()
	if !p.terminal {
		fmt.Fprintf(p.w, "to do: %d turns to store, %d questions to ask\n", turns, questions)
		return
	}
	p.bar = progressbar.NewOptions64(int64(turns+questionWeight*questions),
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(250*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionFullWidth(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
	)
	p.update(0)
}

// Turns counts n more turns stored.
func (p *Progress) Turns(n int) { p.add(n, 0) }

// Question counts one more question asked.
func (p *Progress) Question() { p.add(0, 1) }

func (p *Progress) add(turns, questions int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turns += turns
	p.questions += questions
	p.update(turns + questionWeight*questions)
}

func (p *Progress) update(n int) {
	counts := fmt.Sprintf("turns %d/%d · questions %d/%d", p.turns, p.totalTurns, p.questions, p.totalQs)
	if p.bar != nil {
		p.bar.Describe(counts)
		p.bar.Add(n)
		return
	}
	if time.Since(p.last) >= plainEvery {
		p.last = time.Now()
		fmt.Fprintf(p.w, "%s · %s elapsed\n", counts, time.Since(p.start).Round(time.Second))
	}
}

// Finish closes the bar.
func (p *Progress) Finish() {
	if p == nil || p.bar == nil {
		return
	}
	p.bar.Finish()
}
