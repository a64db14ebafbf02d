package hook

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A session whose host died before its Stop hook ran (a kill -9, a crash,
// a closed terminal) left turns in its transcript that no capture read.
// Every SessionStart notes its transcript in its cursor (register), so
// the next session's SessionStart finds such a transcript: one that has
// grown past its cursor and has not changed for SweepSettled. It captures
// it then (sweep), as its Stop hook would have, at most SweepSessions at
// a time. Capturing a live session early (one waiting on its user) is
// harmless: its own hooks go on from the cursor, and nothing is stored
// twice.

// SweepSettled is how long a transcript must be unchanged before another
// session's SessionStart captures it.
const SweepSettled = 5 * time.Minute

// SweepWithin bounds the age of the cursors a sweep reads: a session
// started or captured within it.
const SweepWithin = 30 * 24 * time.Hour

// SweepSessions bounds the sessions one SessionStart captures; the rest
// wait for the next.
const SweepSessions = 20

// register notes the session's transcript in its cursor, so that a later
// session's sweep finds it if this one dies before it is captured.
func (h Hook) register(ctx context.Context, in Input) error {
	if !ValidSession(in.SessionID) || in.TranscriptPath == "" {
		return nil
	}
	dir, err := h.Config.Prepare()
	if err != nil {
		return err
	}
	return updateCursor(ctx, dir, h.Host, in.SessionID, func(cur *Cursor) bool {
		if cur.Path != "" {
			return false // registered, or captured already
		}
		// the namespace this session's hooks would store it in: a sweep by
		// another session, whose hooks may have other flags, stores it there
		cur.Path, cur.CWD = in.TranscriptPath, cmp.Or(cur.CWD, in.CWD)
		cur.Namespace = cmp.Or(cur.Namespace, h.Namespace(h.Config.Namespace, cur.CWD))
		return true
	})
}

// unread is a session whose transcript has settled past its cursor.
type unread struct {
	session string
	cur     Cursor
	changed time.Time // the transcript's last change
}

// unreadSessions are the host's sessions, other than except, whose
// transcripts hold bytes past their cursors and have not changed for
// SweepSettled (see sweep), the most recently changed first, at most
// SweepSessions. It reads the cursors of the last SweepWithin, and stats
// their transcripts; nothing else.
func (h Hook) unreadSessions(except string) []unread {
	dir, err := h.Config.Dir()
	if err != nil {
		return nil
	}
	files, err := os.ReadDir(filepath.Join(dir, "capture", h.Host))
	if err != nil {
		return nil
	}
	now := time.Now()
	var out []unread
	for _, f := range files {
		session, ok := strings.CutSuffix(f.Name(), ".json")
		if !ok || session == except || !ValidSession(session) {
			continue
		}
		fi, err := f.Info()
		if err != nil || now.Sub(fi.ModTime()) > SweepWithin {
			continue
		}
		var c Cursor
		b, err := os.ReadFile(CursorFile(dir, h.Host, session))
		if err != nil || json.Unmarshal(b, &c) != nil || c.Path == "" {
			continue
		}
		// a transcript of the size a capture last read holds no whole line
		// past its cursor (a line cut by the death, never ended): read
		// once, not at every start
		st, err := os.Stat(c.Path)
		if err != nil || !st.Mode().IsRegular() || st.Size() <= c.Offset || now.Sub(st.ModTime()) < SweepSettled || st.Size() == c.Seen {
			continue
		}
		out = append(out, unread{session, c, st.ModTime()})
	}
	slices.SortFunc(out, func(a, b unread) int { return b.changed.Compare(a.changed) })
	return out[:min(len(out), SweepSessions)]
}

// SweepBudget bounds the time one SessionStart spends capturing other
// sessions: it starts no capture after it (the rest wait for the next
// start), so a start is never held for the hook's whole --timeout.
const SweepBudget = 3 * time.Second

// sweep captures the sessions unreadSessions finds, as their Stop hooks
// would have, for SweepBudget at most; a failure is said on Errs and the
// others are still tried.
func (h Hook) sweep(ctx context.Context, except string) {
	found := h.found // what NeedsMemory found, where it looked
	if found == nil {
		u := h.unreadSessions(except)
		found = &u
	}
	start := time.Now()
	for _, u := range *found {
		if time.Since(start) > SweepBudget || ctx.Err() != nil {
			return
		}
		in := Input{SessionID: u.session, TranscriptPath: u.cur.Path, CWD: u.cur.CWD, Event: "Stop"}
		if err := h.capture(ctx, in); err != nil {
			fmt.Fprintf(h.Errs, "agentmem hook %s: capturing session %s, which ended without its hooks: %v\n", h.Host, u.session, err)
		}
	}
}

// Rewind sets the host's cursor of session back to its transcript's
// start, keeping what else it knows (the transcript, the project, the
// namespace), so that the next capture (the session's own next Stop, or a
// later session's sweep) reads the transcript whole: after `forget
// --reimport`, which lets the session's turns be stored again. It reports
// whether the host had a cursor of the session.
func Rewind(ctx context.Context, dir, host, session string) (bool, error) {
	if !ValidSession(session) {
		return false, nil
	}
	if _, err := os.Stat(CursorFile(dir, host, session)); err != nil {
		return false, nil
	}
	return true, updateCursor(ctx, dir, host, session, func(cur *Cursor) bool {
		cur.Offset, cur.Lines, cur.Seen = 0, 0, 0
		return true
	})
}
