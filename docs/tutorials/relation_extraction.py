"""Relation extraction with the all-paths graph kernel and sparse (reduced-set) RLS.

The protocol of Airola et al. (2008): every candidate pair is a graph (dependency
subgraph + linear-order subgraph), sparse RLS is trained on random basis graphs, and
both the regularization parameter and the decision threshold are chosen by an inner
cross-validation on the training part of each outer fold. Folds are split by sentence,
so the pairs of one sentence never sit on both sides. We report AUC and F-score on the
outer test folds, for the sum (article) and max (erratum) variants of the kernel.

Run: ``python relation_extraction.py [--sentences 400] [--quick]``.
"""

import argparse
import warnings

import numpy as np

from rlscore.datasets import make_relation_extraction
from rlscore.learner import KfoldRLS
from rlscore.measure import auc
from rlscore.utilities.cross_validation import random_folds


def grouped_folds(groups, k, seed):
    """k folds of row indices such that rows of one group share a fold."""
    ids = np.unique(groups)
    folds = random_folds(len(ids), k, seed=seed)
    return [np.flatnonzero(np.isin(groups, ids[f])).tolist() for f in folds]


def best_f_threshold(y, p):
    """The threshold on predictions p that maximizes F on labels y (ties: the midpoint
    between the two neighbouring predictions), with that F."""
    order = np.argsort(-p)
    ys, ps = y[order], p[order]
    tp = np.cumsum(ys > 0)
    f = 2 * tp / (np.arange(1, len(ys) + 1) + (y > 0).sum())   # predict top-(i+1) positive
    valid = np.r_[ps[1:] < ps[:-1], True]                        # cut between distinct values
    i = int(np.argmax(np.where(valid, f, -1)))
    thr = 0.5 * (ps[i] + ps[i + 1]) if i + 1 < len(ps) else ps[i] - 1.0
    return thr, f[i]


def f_score(y, predicted_positive):
    tp = np.sum(predicted_positive & (y > 0))
    denom = predicted_positive.sum() + (y > 0).sum()
    return 2 * tp / denom if denom else 0.0


def evaluate(graphs, y, sentence, variant, outer_k=5, inner_k=5, n_basis=200, seed=0):
    rng = np.random.default_rng(seed)
    regparams = [2.0 ** e for e in range(-8, 11, 2)]
    rows = []
    for o, test in enumerate(grouped_folds(sentence, outer_k, seed)):
        train = np.setdiff1d(np.arange(len(y)), test)
        g_train = [graphs[i] for i in train]
        basis = [g_train[i] for i in rng.choice(len(train), min(n_basis, len(train)),
                                                replace=False)]
        inner = grouped_folds(sentence[train], inner_k, seed + 1 + o)
        # inner CV: exact hold-out shortcut of the reduced-set model for every lambda.
        # Identical synthetic sentences give identical basis graphs, so the basis kernel
        # matrix can be singular; the model then uses its effective rank (a warning).
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "the kernel matrix of the basis vectors")
            learner = KfoldRLS(g_train, y[train], inner, kernel="AllPathsGraphKernel",
                               basis_vectors=basis, regparams=regparams,
                               measure=auc, variant=variant)
        best = regparams.index(learner.regparam)
        pooled = np.empty(len(train))
        for fold, p in zip(inner, learner.cv_predictions[best]):
            pooled[fold] = p
        thr, _ = best_f_threshold(y[train], pooled)
        p_test = learner.predictor.predict([graphs[i] for i in test])
        rows.append((auc(y[test], p_test), f_score(y[test], p_test > thr),
                     learner.regparam))
    return np.array(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", type=int, default=400)
    ap.add_argument("--quick", action="store_true", help="small data, 3 x 3 folds")
    args = ap.parse_args(argv)
    n = 80 if args.quick else args.sentences
    k = 3 if args.quick else 5
    graphs, y, sentence = make_relation_extraction(n, noise=0.05, random_state=1)
    print(f"{n} sentences, {len(y)} candidate pairs, {int((y > 0).sum())} positive")
    results = {}
    for variant in ("sum", "max"):
        r = evaluate(graphs, y, sentence, variant, outer_k=k, inner_k=k,
                     n_basis=60 if args.quick else 200)
        results[variant] = r
        print(f"variant={variant}: AUC {r[:, 0].mean():.3f} +- {r[:, 0].std():.3f}, "
              f"F {r[:, 1].mean():.3f} +- {r[:, 1].std():.3f}, "
              f"chosen lambdas {sorted(set(r[:, 2].tolist()))}")
    return results


if __name__ == "__main__":
    main()
