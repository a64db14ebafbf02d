package memory

// Entities extracts, without any model, the named things in text that a
// dense vector of a long turn tends to dilute: proper-noun phrases, quoted
// titles, numbers with units, dates, e-mail addresses and URL-like tokens.
// Results are lower-cased, de-duplicated and in order of first appearance.
func Entities(text string) []string {
	return nil // TODO: being implemented
}
