package hybrid

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sync"
)

// learnedModel is the model of the learned order: gradient-boosted trees
// over features (learned_model.json, written by evals/learn/train.py
// from the harness's --features rows of the dev sets; EVALS.md, "The
// learned order"). A model of several fits is read as their mean.
type learnedModel struct {
	Features []string `json:"features"`
	Fits     []fit    `json:"fits"`
}

// fit is one boosted model: its baseline log-odds and its trees, each a
// list of nodes whose first is the root.
type fit struct {
	Base  float64  `json:"base"`
	Trees [][]node `json:"trees"`
}

// node is a split (F is a feature's index: a value at most T goes Left,
// else Right, both indexes into the tree) or a leaf (F < 0, value V).
type node struct {
	F int     `json:"f"`
	T float64 `json:"t,omitempty"`
	L int     `json:"l,omitempty"`
	R int     `json:"r,omitempty"`
	V float64 `json:"v,omitempty"`
}

//go:embed learned_model.json
var learnedJSON []byte

var theModel = sync.OnceValues(func() (*learnedModel, error) { return parseModel(learnedJSON) })

// parseModel reads a model and checks it against the features this code
// computes, so a model of other features, or a broken tree, is an error,
// never a wrong order.
func parseModel(b []byte) (*learnedModel, error) {
	var m learnedModel
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("the learned order's model: %w", err)
	}
	if len(m.Features) != numFeatures {
		return nil, fmt.Errorf("the learned order's model reads %d features, this code computes %d", len(m.Features), numFeatures)
	}
	for i, f := range m.Features {
		if f != featureNames[i] {
			return nil, fmt.Errorf("the learned order's model reads feature %d as %q, this code computes %q", i, f, featureNames[i])
		}
	}
	if len(m.Fits) == 0 {
		return nil, fmt.Errorf("the learned order's model has no fits")
	}
	for i, f := range m.Fits {
		for j, t := range f.Trees {
			if err := checkTree(t); err != nil {
				return nil, fmt.Errorf("the learned order's model, fit %d, tree %d: %w", i, j, err)
			}
		}
	}
	return &m, nil
}

// checkTree checks that every split names a feature and leads forward to
// nodes of the tree, so walking it ends at a leaf.
func checkTree(t []node) error {
	if len(t) == 0 {
		return fmt.Errorf("no nodes")
	}
	for i, n := range t {
		if n.F < 0 {
			continue
		}
		if n.F >= numFeatures {
			return fmt.Errorf("node %d splits on feature %d of %d", i, n.F, numFeatures)
		}
		if n.L <= i || n.R <= i || n.L >= len(t) || n.R >= len(t) {
			return fmt.Errorf("node %d leads to nodes %d and %d of %d", i, n.L, n.R, len(t))
		}
	}
	return nil
}

// predict is the chance that a candidate of features x is evidence: the
// mean over the fits of each one's logistic output.
func (m *learnedModel) predict(x *features) float64 {
	var sum float64
	for _, f := range m.Fits {
		z := f.Base
		for _, t := range f.Trees {
			i := 0
			for t[i].F >= 0 {
				if x[t[i].F] <= t[i].T {
					i = t[i].L
				} else {
					i = t[i].R
				}
			}
			z += t[i].V
		}
		sum += 1 / (1 + math.Exp(-z))
	}
	return sum / float64(len(m.Fits))
}
