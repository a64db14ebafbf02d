package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadExport calls fn with each conversation of the export r holds (a
// top-level JSON array), in order, as parse reads each element (given its
// 1-based index). It streams the elements one at a time (an export's
// conversations.json may be hundreds of MB), so a reader never holds more
// than one. A file that is not an array or is cut short is an error that
// says where; an error of parse or fn ends the reading and is returned as
// it is.
func ReadExport(r io.Reader, parse func(index int, raw json.RawMessage) (Conversation, error), fn func(Conversation) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	tok, err := dec.Token()
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("the file is empty: want a JSON array of conversations")
	case err != nil:
		return fmt.Errorf("not JSON (%v): want a JSON array of conversations", err)
	case tok != json.Delim('['):
		return fmt.Errorf("the top level is %s: want a JSON array of conversations", kind(tok))
	}
	for i := 0; dec.More(); i++ {
		at := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return fmt.Errorf("truncated: the file ends inside element %d (which starts after byte %d)", i+1, at)
			}
			return fmt.Errorf("element %d (after byte %d) is not valid JSON: %v", i+1, at, err)
		}
		c, err := parse(i+1, raw)
		if err != nil {
			return err
		}
		c.Offset = dec.InputOffset() - int64(len(raw))
		if err := fn(c); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("truncated or damaged after its last complete element (byte %d): %v", dec.InputOffset(), err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("more after the array's end (byte %d)", dec.InputOffset())
	}
	return nil
}

func kind(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}
