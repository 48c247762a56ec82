"""Kronecker settings A-D on drug-target data (Pahikkala et al., Brief. Bioinform. 2015):
predict the affinity of (A) a new pair of known drug and target, (B) a new drug,
(C) a new target, (D) a new drug and a new target. Two-step kernel RLS has exact
leave-one-out shortcuts for all four (``in_sample_loo``, ``leave_x1_out``,
``leave_x2_out``, ``out_of_sample_loo``), so every estimate below equals retraining.

``python kronecker_settings.py`` runs on a synthetic drug-target-like data set;
``python kronecker_settings.py --davis FOLDER [--out davis.png]`` on the Davis data
(not shipped; see :func:`rlscore.datasets.load_davis`).
"""

import argparse
import os

import numpy as np

from rlscore.datasets import load_davis, make_drug_target
from rlscore.learner import TwoStepRLS
from rlscore.measure import cindex

SETTINGS = {"A: new pair": "in_sample_loo", "B: new drug": "leave_x1_out",
            "C: new target": "leave_x2_out", "D: both new": "out_of_sample_loo"}
GRID = [2.0 ** k for k in range(-8, 9, 2)]


def run(KD, KT, Y, grid=GRID):
    """For each setting, the c-index of the leave-out predictions at the best
    (regparam1, regparam2) of the grid (a miniature: the grid is searched on the same
    estimates, so the figures are mildly optimistic).

    Returns dict setting -> (best c-index, regparam1, regparam2).
    """
    y = Y.ravel(order="F")
    learner = TwoStepRLS(K1=KD, K2=KT, Y=Y, regparam1=grid[0], regparam2=grid[0])
    best = {s: (-np.inf, None, None) for s in SETTINGS}
    for l1 in grid:
        for l2 in grid:
            learner.solve(l1, l2)
            for s, method in SETTINGS.items():
                c = cindex(y, getattr(learner, method)())
                if c > best[s][0]:
                    best[s] = (float(c), l1, l2)
    return best


def davis(folder):
    XD, XT, Y = load_davis(folder)
    # unit diagonal for the raw Smith-Waterman scores (README of the data)
    XT = XT / np.sqrt(np.outer(np.diag(XT), np.diag(XT)))
    return XD, XT, Y


def synthetic(seed=0):
    return make_drug_target(60, 45, random_state=seed)


def plot(folder=None):
    import matplotlib.pyplot as plt
    folder = folder or os.environ.get("RLSCORE_DAVIS")
    data = davis(folder) if folder else synthetic()
    res = run(*data)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    names = list(res)
    ax.bar(names, [res[n][0] for n in names], color="tab:blue")
    ax.set_ylim(0.5, 1.0)
    ax.set_ylabel("leave-out c-index")
    ax.set_title("Davis" if folder else "synthetic drug-target data", fontsize=9)
    for i, n in enumerate(names):
        ax.text(i, res[n][0] + 0.01, f"{res[n][0]:.3f}", ha="center", fontsize=8)
    fig.tight_layout()
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--davis", metavar="FOLDER", help="folder of the Davis files")
    ap.add_argument("--out", metavar="PNG", help="also save the bar chart")
    args = ap.parse_args(argv)
    res = plot(args.davis) if args.out else run(*(davis(args.davis) if args.davis
                                                  else synthetic()))
    if args.out:
        import matplotlib.pyplot as plt
        plt.savefig(args.out, dpi=100)
    print("| setting | c-index | regparam1 | regparam2 |\n|---|---|---|---|")
    for s, (c, l1, l2) in res.items():
        print(f"| {s} | {c:.3f} | {l1:g} | {l2:g} |")


if __name__ == "__main__":
    main()
