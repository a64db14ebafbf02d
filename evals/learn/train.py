#!/usr/bin/env python3
"""Fit the learned order (memory/hybrid/learned_model.json) on the dev sets.

The rows come from the harness: agentmem-eval ... --features FILE writes,
for every question with evidence turns, every candidate of its recall's
fused pool with what the learned order read of it and whether it holds
evidence. This script cross-validates a gradient-boosted model on them
(LoCoMo by conversation, LongMemEval by question, five folds), prints how
often the best 13 candidates hold all of a question's evidence by the
fused order and by the model's held-out order, then fits the model on
every row and writes it with a check of its outputs
(memory/hybrid/testdata/learned_check.json, read by
TestLearnedModelMatchesItsTrainer).

    python3 evals/learn/train.py --features lo.jsonl lme.jsonl --out memory/hybrid

--held-out FILE also writes each candidate's chance from the model fit
without its question's group, keyed by the recall's query and the
candidate's id, for a build that reads them in place of the committed
model's (EVALS.md, "Held out at this round's code").

Needs scikit-learn (Debian: python3-sklearn). EVALS.md, "The learned
order", gives the commands that made the committed model.
"""
import argparse
import collections
import hashlib
import json
import os
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

PARAMS = dict(max_iter=150, learning_rate=0.05, max_leaf_nodes=7, min_samples_leaf=100,
              l2_regularization=1.0, early_stopping=False, random_state=0)
TOP = 13  # about the memories a default recall shows at k=10


def load(paths):
    names, qs = None, []
    for path in paths:
        with open(path) as f:
            for line in f:
                row = json.loads(line)
                if names is None:
                    names = row["feature_names"]
                elif row["feature_names"] != names:
                    sys.exit(f"{path}: the features differ from the first file's; run the harness with one build")
                if not row["candidates"]:
                    continue
                x = np.array([[c["features"][n] for n in names] for c in row["candidates"]])
                y = np.array([int(c["evidence"]) for c in row["candidates"]])
                if row["bench"] == "locomo":
                    group = "locomo/" + row["unit"]
                else:
                    group = "%s/%d" % (row["bench"], int(hashlib.md5(row["question"].encode()).hexdigest(), 16) % 5)
                qs.append(dict(bench=row["bench"], category=row["category"], group=group, x=x, y=y,
                               evidence=sum(c["evidence"] for c in row["candidates"]),
                               query=row.get("query", ""), ids=[c["id"] for c in row["candidates"]]))
    if not qs:
        sys.exit("no rows")
    return names, qs


def top_all(y, scores):
    if y.sum() == 0:
        return False
    best = np.argsort(-scores, kind="stable")[:TOP]
    return y[best].sum() == y.sum()


def cross_validate(names, qs, held_out=None):
    score = names.index("score")
    pred = {}
    groups = sorted({q["group"] for q in qs})
    for g in groups:
        train = [q for q in qs if q["group"] != g]
        m = HistGradientBoostingClassifier(**PARAMS).fit(np.vstack([q["x"] for q in train]), np.concatenate([q["y"] for q in train]))
        for i, q in enumerate(qs):
            if q["group"] == g:
                pred[i] = m.predict_proba(q["x"])[:, 1]
    print(f"held out ({len(groups)} folds): questions with evidence in the pool whose every evidence candidate is in the best {TOP}")
    for bench in sorted({q["bench"] for q in qs}):
        by = collections.defaultdict(lambda: [0, 0, 0])
        for i, q in enumerate(qs):
            if q["bench"] != bench:
                continue
            for key in (q["category"], "all"):
                by[key][0] += 1
                by[key][1] += top_all(q["y"], q["x"][:, score])
                by[key][2] += top_all(q["y"], pred[i])
        for key in sorted(by, key=lambda k: (k == "all", k)):
            n, fused, model = by[key]
            print(f"  {bench:12} {key:12} {n:5}  fused {100 * fused / n:5.1f}%  learned {100 * model / n:5.1f}%")
    if held_out:
        # each candidate's chance from the model fit without its question's
        # group, by the recall's query and the candidate's id: what a build
        # that reads them in place of the committed model's measures held out
        with open(held_out, "w") as f:
            for i, q in enumerate(qs):
                for cid, p in zip(q["ids"], pred[i]):
                    f.write(json.dumps({"bench": q["bench"], "query": q["query"], "id": cid, "chance": float(p)}) + "\n")
        print(f"wrote the held-out chances to {held_out}")


def tree_nodes(predictor):
    """A tree's nodes, root first, each split before its children."""
    nodes = predictor.nodes
    order, k = [0], 0
    while k < len(order):
        n = nodes[order[k]]
        if not n["is_leaf"]:
            order += [int(n["left"]), int(n["right"])]
        k += 1
    index = {old: new for new, old in enumerate(order)}
    out = []
    for old in order:
        n = nodes[old]
        if n["is_leaf"]:
            out.append({"f": -1, "v": float(n["value"])})
        else:
            out.append({"f": int(n["feature_idx"]), "t": float(n["num_threshold"]),
                        "l": index[int(n["left"])], "r": index[int(n["right"])]})
    return out


def fit(names, qs, out):
    x = np.vstack([q["x"] for q in qs])
    y = np.concatenate([q["y"] for q in qs])
    m = HistGradientBoostingClassifier(**PARAMS).fit(x, y)
    model = {"features": names, "fits": [{
        "base": float(np.ravel(m._baseline_prediction)[0]),
        "trees": [tree_nodes(it[0]) for it in m._predictors],
    }]}
    with open(os.path.join(out, "learned_model.json"), "w") as f:
        json.dump(model, f, separators=(",", ":"))
        f.write("\n")
    rows = np.random.default_rng(0).choice(len(x), size=min(40, len(x)), replace=False)
    check = {"x": x[rows].tolist(), "p": m.predict_proba(x[rows])[:, 1].tolist()}
    os.makedirs(os.path.join(out, "testdata"), exist_ok=True)
    with open(os.path.join(out, "testdata", "learned_check.json"), "w") as f:
        json.dump(check, f, separators=(",", ":"))
        f.write("\n")
    print(f"fit on {len(qs)} questions, {len(x)} candidates ({int(y.sum())} evidence); wrote {out}/learned_model.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--features", nargs="+", required=True, help="the harness's --features files")
    ap.add_argument("--out", help="where learned_model.json goes (memory/hybrid); without it, only the cross-validation")
    ap.add_argument("--no-cv", action="store_true", help="skip the cross-validation")
    ap.add_argument("--held-out", help="also write each candidate's held-out chance (JSON lines: bench, query, id, chance)")
    a = ap.parse_args()
    names, qs = load(a.features)
    if not a.no_cv:
        cross_validate(names, qs, a.held_out)
    if a.out:
        fit(names, qs, a.out)


if __name__ == "__main__":
    main()
