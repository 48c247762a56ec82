"""The irrelevant-pairs example of the RankRLS paper (Pahikkala et al. 2009, Sect. 5.1):
pairs of items from different queries can point the wrong way; RankRLS trained on the
within-query pairs only (QueryRankRLS) ranks every query correctly, RankRLS trained on
all pairs (GlobalRankRLS) reverses both relevant pairs.
"""

import numpy as np

from rlscore.datasets import make_irrelevant_pairs_example
from rlscore.learner import GlobalRankRLS, QueryRankRLS


def run(regparam=1e-6):
    """Slopes and predictions of the two linear models on the four points."""
    X, y, qids = make_irrelevant_pairs_example()
    within = QueryRankRLS(X, y, qids, regparam=regparam)
    allpairs = GlobalRankRLS(X, y, regparam=regparam, bias=0.0)
    out = {"X": X[:, 0], "y": y, "qids": qids}
    for name, learner in (("within-query pairs", within), ("all pairs", allpairs)):
        P = learner.predict(X)
        out[name] = {"slope": float(np.ravel(learner.predictor.W)[0]), "P": P,
                     "correct": [bool(P[0] > P[1]), bool(P[2] > P[3])]}
    return out


def plot():
    import matplotlib.pyplot as plt
    res = run()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    colors = np.where(res["qids"] == 0, "tab:blue", "tab:orange")
    ax.scatter(res["X"], res["y"], c=colors, s=60, zorder=3)
    for x, s, label in zip(res["X"], res["y"], ["x1", "x2", "x3", "x4"]):
        ax.annotate(label, (x, s), textcoords="offset points", xytext=(5, 5))
    grid = np.linspace(-1, 12, 50)
    for name, style in (("within-query pairs", "-"), ("all pairs", "--")):
        slope = res[name]["slope"]
        # a ranking function is defined up to an offset: draw it through the mean score
        ax.plot(grid, np.mean(res["y"]) + slope * (grid - np.mean(res["X"])), style,
                label=f"RankRLS, {name}: slope {slope:+.3f}")
    ax.set_xlabel("feature")
    ax.set_ylabel("score")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return res


if __name__ == "__main__":
    res = run()
    for name in ("within-query pairs", "all pairs"):
        print(f"{name}: slope {res[name]['slope']:+.4f}, relevant pairs ordered "
              f"correctly: {res[name]['correct']}")
