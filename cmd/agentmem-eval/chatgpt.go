package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"agentmem/evals"
)

// chatgptCmd writes a benchmark's histories out as a ChatGPT data export
// (conversations.json), for measuring `agentmem import --from chatgpt` at
// scale on real text: each distinct session one conversation, in the
// order the benchmark lists them, until --turns turns. The output is the
// same for the same input and flags.
type chatgptCmd struct {
	File  string `arg:"" type:"existingfile" help:"A LongMemEval file (longmemeval_s_dev.json.gz) or a LoCoMo file."`
	Turns int    `name:"turns" default:"40000" help:"Stop after the session that reaches this many turns (0: every session)."`
	Out   string `name:"out" required:"" placeholder:"FILE" help:"Where conversations.json goes."`
}

func (c chatgptCmd) Run(e *env) error {
	d, err := loadDataset(c.File)
	if err != nil {
		return err
	}
	f, err := os.Create(c.Out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	sessions, turns, err := writeChatGPT(w, d, c.Turns)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", c.Out, err)
	}
	fmt.Fprintf(os.Stderr, "wrote %d conversations, %d turns, to %s\n", sessions, turns, c.Out)
	return nil
}

// loadDataset reads a LongMemEval or a LoCoMo file, by its name.
func loadDataset(path string) (*evals.Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if d, err := evals.LoadLongMemEval(f); err == nil {
		return d, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	d, err := evals.LoadLoCoMo(f)
	if err != nil {
		return nil, fmt.Errorf("%s is neither a LongMemEval nor a LoCoMo file: %w", path, err)
	}
	return d, nil
}

// chatgptNode and chatgptMessage are the parts of the export's shape that
// the reader uses (memory/history/chatgpt).
type chatgptNode struct {
	ID       string          `json:"id"`
	Message  *chatgptMessage `json:"message"`
	Parent   *string         `json:"parent"`
	Children []string        `json:"children"`
}

type chatgptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
	} `json:"author"`
	CreateTime float64 `json:"create_time"`
	Content    struct {
		ContentType string   `json:"content_type"`
		Parts       []string `json:"parts"`
	} `json:"content"`
}

type chatgptConversation struct {
	ID          string                  `json:"id"`
	Title       string                  `json:"title"`
	CreateTime  float64                 `json:"create_time"`
	CurrentNode string                  `json:"current_node"`
	Mapping     map[string]*chatgptNode `json:"mapping"`
}

// writeChatGPT writes d's distinct sessions (by id: LongMemEval haystacks
// share sessions) as a ChatGPT export, a turn a minute from the session's
// date, until max turns (0: all).
func writeChatGPT(w io.Writer, d *evals.Dataset, max int) (sessions, turns int, err error) {
	seen := map[string]bool{}
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return 0, 0, err
	}
	enc := json.NewEncoder(w)
	for _, u := range d.Units {
		for _, s := range u.Sessions {
			if max > 0 && turns >= max {
				break
			}
			if seen[s.ID] || len(s.Turns) == 0 {
				continue
			}
			seen[s.ID] = true
			if sessions > 0 {
				if _, err := io.WriteString(w, ",\n"); err != nil {
					return 0, 0, err
				}
			}
			if err := enc.Encode(chatgptOf(s, sessions)); err != nil {
				return 0, 0, err
			}
			sessions++
			turns += len(s.Turns)
		}
	}
	_, err = io.WriteString(w, "]\n")
	return sessions, turns, err
}

func chatgptOf(s evals.Session, n int) chatgptConversation {
	id := fmt.Sprintf("conv-%06d", n)
	root := id + "-root"
	c := chatgptConversation{ID: id, Title: "session " + s.ID, CreateTime: epoch(s.Date), Mapping: map[string]*chatgptNode{
		root: {ID: root},
	}}
	parent := root
	for i, t := range s.Turns {
		nid := id + "-" + strconv.Itoa(i)
		m := &chatgptMessage{ID: nid, CreateTime: epoch(s.Date.Add(time.Duration(i) * time.Minute))}
		m.Author.Role = t.Role
		m.Content.ContentType = "text"
		m.Content.Parts = []string{t.Text}
		c.Mapping[nid] = &chatgptNode{ID: nid, Message: m, Parent: new(parent)}
		c.Mapping[parent].Children = []string{nid}
		parent = nid
	}
	c.CurrentNode = parent
	return c
}

func epoch(t time.Time) float64 { return float64(t.Unix()) }
