package evals

import (
	"fmt"

	"github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Tokenizer counts tokens with OpenAI's o200k_base encoding (GPT-4o and
// later), from the vocabulary embedded in tiktoken-go-loader: no download.
type Tokenizer struct {
	enc *tiktoken.Tiktoken
}

// NewTokenizer loads o200k_base.
func NewTokenizer() (*Tokenizer, error) {
	// tiktoken-go keeps its loader in a package variable; setting the
	// offline one is idempotent and is what every caller here wants.
	tiktoken.SetBpeLoader(loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(tiktoken.MODEL_O200K_BASE)
	if err != nil {
		return nil, fmt.Errorf("loading o200k_base: %w", err)
	}
	return &Tokenizer{enc: enc}, nil
}

// Count is the number of o200k tokens in s.
func (t *Tokenizer) Count(s string) int {
	return len(t.enc.EncodeOrdinary(s))
}
