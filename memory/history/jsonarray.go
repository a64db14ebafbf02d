package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// eachElement streams the elements of a top-level JSON array (an export's
// conversations.json, which may be hundreds of MB) one at a time, so a
// reader never holds more than one element: it calls fn with each element
// of the array r holds (its 0-based index,
// the byte offset it starts at, and its raw JSON), in order. An input that
// is not one array, or is cut short, is an error that says where; an error
// from fn ends the reading and is returned as it is.
func eachElement(r io.Reader, fn func(i int, offset int64, raw json.RawMessage) error) error {
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
		if err := fn(i, dec.InputOffset()-int64(len(raw)), raw); err != nil {
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
