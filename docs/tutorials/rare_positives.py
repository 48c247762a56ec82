"""RankRLS vs RLS regression when positives are rare (in the spirit of the comparison of
RankRLS and RLS on imbalanced biological data in Pahikkala et al. 2009, Table 4): both
are trained on +-1 labels and evaluated by the AUC on a large test set, as the fraction
of positives shrinks. RankRLS minimizes a least-squares loss over the positive-negative
pairs (the AUC's pairs); RLS regresses on the labels.
"""

import numpy as np

from rlscore.datasets import make_classification
from rlscore.learner import RLS, GlobalRankRLS
from rlscore.measure import auc

FRACTIONS = (0.03, 0.06, 0.12, 0.25, 0.5)


def run(repetitions=30, m=100, d=20, n_test=2000, regparam=1.0, seed=0, flip=0.05):
    """Mean test AUC of RLS and RankRLS for each positive fraction.

    Returns dict with ``fractions`` and ``rls``, ``rankrls``: arrays
    (len(fractions), repetitions) of test AUCs.
    """
    rng = np.random.default_rng(seed)
    res = {"fractions": np.array(FRACTIONS), "rls": [], "rankrls": []}
    for frac in FRACTIONS:
        a_rls, a_rank = [], []
        for _ in range(repetitions):
            X, y = make_classification(m + n_test, d, 2.0, frac, flip=flip,
                                       random_state=rng)
            Xtr, ytr = X[:m], y[:m]
            if len(set(ytr)) < 2:
                continue
            a_rls.append(auc(y[m:], RLS(Xtr, ytr, regparam=regparam).predict(X[m:])))
            a_rank.append(auc(y[m:], GlobalRankRLS(Xtr, ytr, regparam=regparam)
                              .predict(X[m:])))
        res["rls"].append(a_rls)
        res["rankrls"].append(a_rank)
    return res


def plot():
    import matplotlib.pyplot as plt
    res = run()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for key, label in (("rls", "RLS (regression on +-1)"), ("rankrls", "RankRLS")):
        means = [np.mean(v) for v in res[key]]
        ax.plot(res["fractions"], means, "o-", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("fraction of positive training examples")
    ax.set_ylabel("test AUC")
    ax.legend()
    fig.tight_layout()
    return res


if __name__ == "__main__":
    res = run()
    print("| positives | RLS AUC | RankRLS AUC |\n|---|---|---|")
    for f, a, b in zip(res["fractions"], res["rls"], res["rankrls"]):
        print(f"| {f:.2f} | {np.mean(a):.3f} | {np.mean(b):.3f} |")
