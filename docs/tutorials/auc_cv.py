"""AUC cross-validation study in miniature (Airola et al. 2011, Paper IV of Airola's
thesis): leave-pair-out vs pooled vs averaged K-fold estimates of the AUC of a trained
RLS classifier, on no-signal and signal data, balanced and imbalanced classes.

Run ``python auc_cv.py`` for the table; the documentation build calls ``plot()``.
"""

import numpy as np

from rlscore.datasets import make_classification
from rlscore.learner import RLS
from rlscore.measure import UndefinedPerformance, auc
from rlscore.utilities.cross_validation import random_folds

SETTINGS = [("no signal, 50% positive", 0.0, 0.5), ("no signal, 20% positive", 0.0, 0.2),
            ("signal, 50% positive", 1.0, 0.5), ("signal, 20% positive", 1.0, 0.2)]
METHODS = ("leave-pair-out", "pooled 5-fold", "averaged 5-fold")


def estimates(X, y, regparam=1.0, k=5, seed=0):
    """The three CV estimates of the AUC of RLS trained on (X, y), all exact shortcuts:
    ``leave_pair_out`` for every positive-negative pair, ``holdout`` for each fold."""
    learner = RLS(X, y, regparam=regparam)
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    s, e = np.repeat(pos, neg.size), np.tile(neg, pos.size)
    ps, pe = learner.leave_pair_out(s, e)
    lpo = float(np.mean((ps > pe) + 0.5 * (ps == pe)))
    P = np.empty(y.size)
    fold_aucs = []
    for fold in random_folds(y.size, k, seed=seed):
        P[fold] = learner.holdout(fold)
        try:
            fold_aucs.append(auc(y[fold], P[fold]))
        except UndefinedPerformance:      # a fold with one class only has no AUC
            pass
    return learner, (lpo, auc(y, P), float(np.mean(fold_aucs)))


def run(repetitions=200, m=30, d=10, n_test=2000, seed=0):
    """Deviation (estimate - true AUC) of each method, per setting.

    The true AUC is that of the classifier trained on the m examples, measured on
    n_test fresh examples from the same distribution (the conditional AUC); on
    no-signal data it is 0.5 in expectation.

    Returns dict setting -> array (repetitions, 3) of deviations.
    """
    rng = np.random.default_rng(seed)
    out = {}
    for name, separation, frac in SETTINGS:
        dev = np.empty((repetitions, 3))
        for r in range(repetitions):
            X, y = make_classification(m + n_test, d, separation, frac, random_state=rng)
            learner, est = estimates(X[:m], y[:m], seed=int(rng.integers(1 << 30)))
            true = 0.5 if separation == 0 else auc(y[m:], learner.predict(X[m:]))
            dev[r] = np.array(est) - true
        out[name] = dev
    return out


def table(results):
    lines = ["| setting | method | bias | std |", "|---|---|---|---|"]
    for name, dev in results.items():
        for j, meth in enumerate(METHODS):
            lines.append(f"| {name} | {meth} | {dev[:, j].mean():+.3f} | "
                         f"{dev[:, j].std():.3f} |")
    return "\n".join(lines)


def plot(repetitions=200):
    import matplotlib.pyplot as plt
    results = run(repetitions)
    fig, axes = plt.subplots(1, len(results), figsize=(12, 3.6), sharey=True)
    for ax, (name, dev) in zip(axes, results.items()):
        ax.boxplot([dev[:, j] for j in range(3)], showmeans=True)
        ax.set_xticks([1, 2, 3], ["LPO", "pooled", "averaged"])
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_title(name, fontsize=9)
    axes[0].set_ylabel("estimate - true AUC")
    fig.tight_layout()
    return results


if __name__ == "__main__":
    print(table(run()))
