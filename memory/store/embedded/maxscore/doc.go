// Package maxscore is the embedded store's text side with MaxScore: bleve's BM25 ranking of the shared query
// tree (hybrid.TextMatch), the same pool with the same scores, without
// scoring every document that holds a common word of the question.
//
// bleve evaluates a disjunction document at a time over the union of its
// words' postings, each posting scored and pushed through its searchers'
// heaps and the collector (about 100 ns a posting): a question's common
// words ("like", "time", "week") cost postings of tens of thousands of
// documents at 100k memories, though none of those documents can reach the
// pool on common words alone. This evaluation walks the index's segments
// itself (scorch's segment API, not a fork of bleve):
//
//   - MaxScore (Turtle and Flood 1995; Lucene's): each word has an upper
//     bound of what it can add to a score. Once the pool is full, the
//     words whose bounds together (with bleve's coordination factors)
//     cannot lift a document above the pool's lowest score are no longer
//     walked, only advanced to the documents that the other words, or an
//     entity phrase, bring up; a document whose walked words, with the
//     bounds of the others, cannot reach the pool is passed over, and the
//     others are advanced to it greatest bound first, the bound tightened
//     after each one that misses it.
//   - Window bounds (block-max MaxScore, as Lucene's MaxScoreBulkScorer):
//     a common word keeps, per window of 1024 documents of a segment on
//     disk, the most its postings there can score (windows.go, computed
//     once per segment and kept). The walk goes window by window, each
//     word bounded by its window's maximum, and which words are walked is
//     decided again at each (a segment without maxima: once, with the
//     whole index's bounds): a word is walked only where its postings can
//     lift a document into the pool.
//   - Every document that can enter the pool is scored in full, with
//     bleve's BM25 formula and its statistics (idf, query norm, average
//     lengths from hybrid.BM25Context), summed in bleve's order (its
//     disjunctions sort their searchers by postings count), so the scores
//     are bleve's, bit for bit up to ten words; with more, bleve sums in
//     the order of its heap and the last bits may differ
//     (TestMaxScoreRanksAsBleve; BenchmarkTextSide checks a 100k store).
//     Documents are walked in number order within a segment, as bleve's
//     collector sees them, and equal scores at the pool's cut are decided
//     by id after the walk.
//   - A common word (MemoPostings postings or more) keeps the scores it
//     computed, by the posting's frequency and length (leaf.compute): the
//     same computation, so the same bits, without the norm's square root
//     and the division for each posting of the same pair.
//   - A word of DecodePostings postings or more in a segment on disk is
//     walked from its postings decoded (decoded.go: document numbers,
//     frequencies and lengths in arrays, decoded once per segment and
//     kept in an LRU of DecodedBytes), not from zap's compressed ones:
//     stepping and seeking in arrays, about half the text side's time at
//     a million memories.
//   - The walked words go through a window of BulkDocs documents at a time
//     (bulk.go, as Lucene's MaxScoreBulkScorer): their scores and sums
//     per child are kept in arrays, then the window's documents are
//     tested in order, and those that can enter the pool scored from the
//     arrays in bleve's order.
//   - A word no longer walked is advanced on its documents alone (an
//     iterator without frequencies or norms: in a segment without deleted
//     documents its Advance skips through the postings' bitmap, where one
//     with them steps posting by posting; with deletions it still steps,
//     but decodes nothing), and its frequency and norm are read only for
//     the documents scored (leaf.sync).
//   - An entity phrase of one word is its term (bleve scores such a
//     phrase as the term); longer phrases and any other disjunct are run
//     by bleve's own searchers beforehand (with the query norm of the
//     whole tree) and are always walked.
//   - The filter (namespace, session, dates) is asked only about the
//     documents that would enter the pool.
//
// A word's bound: bleve's BM25 term score is
//
//	idf * tf*k1 / (tf + k1*(1-b+b*len/avg)) * boost*idf*queryNorm
//
// with tf the square root of the word's frequency in the field and len
// the field's length in tokens. A frequency is at most the length, so tf <=
// sqrt(len) = s and the middle factor is at most k1 / (1 + k1*(1-b)/s +
// k1*b*s/avg), largest at s = max(1, sqrt((1-b)*avg/b)) (TestMaxScoreBound).
//
// Only the shape hybrid.TextMatch builds is taken apart: a disjunction of
// match queries (an OR of the analysed words, no fuzziness) and other
// queries. Anything else is left to bleve (Search's ok is false), as is an
// index that is not scorch's.
//
// Search plans the evaluation (an evaluator: each disjunct's leaves, the
// query norm, each word's bound and window maxima), then walks the
// segments part by part and window by window (walkPart, enterWindow),
// deciding per document whether it can still reach the pool
// (canReach), scoring it as bleve does (score) and offering it to the pool
// (admit), and demotes the words that can no longer lift a document into
// the pool as its lowest score rises (demote). In an index of WalkDocs
// documents or more, several walkers (goroutines) share the parts out, up
// to Walkers and the cores free (walkers.go).
package maxscore
