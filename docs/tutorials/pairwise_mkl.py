"""Learning the weights of a sum of pairwise (Kronecker) kernels on drug-target data.

Several kernels per side (drug: 2D structure similarity, a 3-mer spectrum of the SMILES
string, a Gaussian kernel of the similarity profiles; target: Smith-Waterman similarity,
a 3-mer spectrum of the sequence, a Gaussian kernel of the SW profiles) give P x Q = 9
Kronecker terms. :class:`rlscore.learner.PairwiseMKL` weights them by centred kernel
alignment (pairwiseMKL, Cichonska et al., Bioinformatics 2018) and trains Kronecker RLS
with the weighted sum; the script compares it with the uniform sum and with every single
pair of kernels in settings A-D (new pairs, new drugs, new targets, both new), the
regularization parameter of each model chosen on an inner split of the training pairs.

``python pairwise_mkl.py`` runs on synthetic data (two informative kernels per side among
three); ``python pairwise_mkl.py --davis FOLDER`` on the Davis data (not shipped; see
:func:`rlscore.datasets.load_davis`). The environment variable ``RLSCORE_DAVIS`` does
the same while the documentation is built.
"""

import argparse
import json
import os
import time

import numpy as np

from rlscore.datasets import load_davis
from rlscore.learner import CGKronRLS, PairwiseMKL
from rlscore.measure import cindex

SETTINGS = ("A: new pairs", "B: new drugs", "C: new targets", "D: both new")
GRID = (0.01, 0.1, 1.0)
SOLVER = {"tol": 1e-4, "maxiter": 2000}


# --- kernels -------------------------------------------------------------------------

def cosine_normalize(K):
    d = np.sqrt(np.clip(np.diag(K), 1e-300, None))
    return K / np.outer(d, d)


def spectrum_kernel(strings, k=3):
    """Cosine-normalized k-mer spectrum kernel: counts of every length-k substring."""
    vocab = {}
    rows, cols = [], []
    for i, s in enumerate(strings):
        for j in range(len(s) - k + 1):
            rows.append(i)
            cols.append(vocab.setdefault(s[j:j + k], len(vocab)))
    X = np.zeros((len(strings), len(vocab)))
    np.add.at(X, (rows, cols), 1.0)
    return cosine_normalize(X @ X.T)


def profile_kernel(S):
    """Gaussian kernel of the rows of a similarity matrix, width the median distance."""
    sq = (S ** 2).sum(1)
    D = np.clip(sq[:, None] + sq[None, :] - 2 * S @ S.T, 0, None)
    return np.exp(-D / np.median(D[D > 0]))


def davis(folder):
    """Three drug kernels, three target kernels and the pKd matrix of Davis."""
    XD, XT, Y = load_davis(folder)
    with open(os.path.join(folder, "ligands_can.txt")) as f:
        smiles = list(json.load(f).values())
    with open(os.path.join(folder, "proteins.txt")) as f:
        sequences = list(json.load(f).values())
    XT = cosine_normalize(XT)
    drugs = {"2D similarity": XD, "SMILES 3-mers": spectrum_kernel(smiles),
             "profile Gaussian": profile_kernel(XD)}
    targets = {"SW (normalized)": XT, "sequence 3-mers": spectrum_kernel(sequences),
               "SW profile Gaussian": profile_kernel(XT)}
    return drugs, targets, Y


def synthetic(n_drugs=40, n_targets=30, seed=0):
    """Labels from the term (drug kernel 0) x (target kernel 1); the other kernels are
    noise or weakly related, so the learned weights should single that term out."""
    rng = np.random.default_rng(seed)

    def gauss(X):
        return profile_kernel(X)

    U, V = rng.normal(size=(n_drugs, 3)), rng.normal(size=(n_targets, 3))
    KD = [gauss(U), gauss(rng.normal(size=(n_drugs, 3))), gauss(U + rng.normal(size=U.shape))]
    KT = [gauss(rng.normal(size=(n_targets, 3))), gauss(V), gauss(V + rng.normal(size=V.shape))]
    L = np.linalg.cholesky(np.kron(KD[0], KT[1]) + 1e-6 * np.eye(n_drugs * n_targets))
    Y = (L @ rng.normal(size=n_drugs * n_targets)).reshape(n_drugs, n_targets)
    Y += 0.3 * rng.normal(size=Y.shape)
    return (dict(zip(("latent", "noise", "noisy latent"), KD)),
            dict(zip(("noise", "latent", "noisy latent"), KT)), Y)


# --- splits --------------------------------------------------------------------------

def splits(setting, rows, cols, n_folds, rng):
    """(train, test) index arrays over the pairs (rows[h], cols[h]) for one setting:
    random pairs (A), whole drugs (B), whole targets (C), or drugs and targets held out
    together, training on pairs of neither (D)."""
    n = rows.size
    if setting[0] == "A":
        f = rng.permutation(n) % n_folds
        return [(np.flatnonzero(f != k), np.flatnonzero(f == k)) for k in range(n_folds)]
    drugs, r = np.unique(rows, return_inverse=True)
    targets, c = np.unique(cols, return_inverse=True)
    fd = rng.permutation(drugs.size) % n_folds
    ft = rng.permutation(targets.size) % n_folds
    out = []
    for k in range(n_folds):
        d_in, t_in = fd[r] == k, ft[c] == k
        if setting[0] == "B":
            out.append((np.flatnonzero(~d_in), np.flatnonzero(d_in)))
        elif setting[0] == "C":
            out.append((np.flatnonzero(~t_in), np.flatnonzero(t_in)))
        else:
            out.append((np.flatnonzero(~d_in & ~t_in), np.flatnonzero(d_in & t_in)))
    return out


# --- models --------------------------------------------------------------------------

def fit(model, KD, KT, y, rows, cols, regparam):
    """model: "learned", "uniform" or a term (i, j)."""
    if model == "learned":
        return PairwiseMKL(K1=KD, K2=KT, Y=y, label_row_inds=rows, label_col_inds=cols,
                           regparam=regparam, **SOLVER)
    terms = ([(i, j) for i in range(len(KD)) for j in range(len(KT))]
             if model == "uniform" else [model])
    T = len(terms)
    return CGKronRLS(K1=[KD[i] for i, _ in terms], K2=[KT[j] for _, j in terms], Y=y,
                     label_row_inds=[rows] * T, label_col_inds=[cols] * T,
                     weights=[1.0 / T] * T, regparam=regparam, **SOLVER)


def predict(learner, model, KD, KT, rows, cols):
    if model == "learned":
        return learner.predict(KD, KT, rows, cols)
    terms = ([(i, j) for i in range(len(KD)) for j in range(len(KT))]
             if model == "uniform" else [model])
    T = len(terms)
    return learner.predict([KD[i] for i, _ in terms], [KT[j] for _, j in terms],
                           [rows] * T, [cols] * T)


def evaluate(model, KD, KT, y, rows, cols, train, test, rng, grid=GRID):
    """Train on ``train`` with regparam chosen on an inner split (same setting), return
    the test c-index and the fitted learner."""
    return _evaluate(model, KD, KT, y, rows, cols, train, test, rng, grid)


def _evaluate(model, KD, KT, y, rows, cols, train, test, rng, grid, setting="A"):
    inner_tr, inner_te = splits(setting, rows[train], cols[train], 3, rng)[0]
    best = max(grid, key=lambda lam: cindex(
        y[train][inner_te],
        predict(fit(model, KD, KT, y[train][inner_tr], rows[train][inner_tr],
                    cols[train][inner_tr], lam), model, KD, KT,
                rows[train][inner_te], cols[train][inner_te])))
    learner = fit(model, KD, KT, y[train], rows[train], cols[train], best)
    return cindex(y[test], predict(learner, model, KD, KT, rows[test], cols[test])), learner


def run(drugs, targets, Y, n_folds=3, seed=0, grid=GRID, singles=True):
    """Settings A-D: mean and standard deviation over the outer folds of the test
    c-index of the learned weights, the uniform sum and (``singles``) every single
    kernel pair; the mean learned weights; the mean seconds of one learned-weights fit
    (weights + training).

    Returns dict setting -> {"c": {model: mean c-index}, "c_std": {model: std over
    folds}, "folds": {model: [c-index per fold]}, "weights": (P, Q), "seconds": float}.
    """
    KD, KT = list(drugs.values()), list(targets.values())
    n1, n2 = Y.shape
    rows, cols = np.divmod(np.arange(n1 * n2), n2)       # row-major: drug = k // n2
    y = Y.ravel()
    models = ["learned", "uniform"]
    if singles:
        models += [(i, j) for i in range(len(KD)) for j in range(len(KT))]
    out = {}
    for setting in SETTINGS:
        rng = np.random.default_rng(seed)
        scores = {m: [] for m in models}
        weights, secs = [], []
        for train, test in splits(setting, rows, cols, n_folds, rng):
            for m in models:
                t0 = time.perf_counter()
                c, learner = _evaluate(m, KD, KT, y, rows, cols, train, test, rng, grid,
                                       setting)
                if m == "learned":
                    secs.append(time.perf_counter() - t0)
                    weights.append(learner.weights)
                scores[m].append(c)
        out[setting] = {"c": {m: float(np.mean(v)) for m, v in scores.items()},
                        "c_std": {m: float(np.std(v, ddof=1)) for m, v in scores.items()},
                        "folds": {m: [float(x) for x in v] for m, v in scores.items()},
                        "weights": np.mean(weights, axis=0),
                        "seconds": float(np.mean(secs))}
    return out


def table(res, drug_names, target_names):
    """Markdown table: c-index per setting (mean ± sample standard deviation over the
    outer folds) for the learned weights, the uniform sum, the best single pair (chosen
    on the test folds by its mean: an optimistic reference) and the worst."""
    lines = ["| setting | learned weights | uniform sum | best single pair | worst single pair "
             "| largest weight | s per fit |", "|---|---|---|---|---|---|---|"]
    for setting, r in res.items():
        c = r["c"]
        singles = {m: v for m, v in c.items() if isinstance(m, tuple)}
        best = max(singles, key=singles.get) if singles else None
        worst = min(singles, key=singles.get) if singles else None
        i, j = np.unravel_index(np.argmax(r["weights"]), r["weights"].shape)
        sd = r["c_std"]
        name = lambda m: f"{drug_names[m[0]]} x {target_names[m[1]]}"  # noqa: E731
        pm = lambda m: f"{c[m]:.3f} ± {sd[m]:.3f}"  # noqa: E731
        lines.append(
            f"| {setting} | {pm('learned')} | {pm('uniform')} | "
            + (f"{pm(best)} ({name(best)}) | {pm(worst)} | "
               if singles else "- | - | ")
            + f"{r['weights'][i, j]:.2f} ({name((i, j))}) | {r['seconds']:.2f} |")
    return "\n".join(lines)


def plot():
    """The figure of the documentation: learned weights per setting (Davis when
    ``RLSCORE_DAVIS`` names its folder, the synthetic data otherwise)."""
    import matplotlib.pyplot as plt
    folder = os.environ.get("RLSCORE_DAVIS")
    drugs, targets, Y = davis(folder) if folder else synthetic()
    res = run(drugs, targets, Y, singles=False)
    fig, axes = plt.subplots(1, 4, figsize=(12, 3.2), sharey=True)
    for ax, (setting, r) in zip(axes, res.items()):
        ax.imshow(r["weights"], vmin=0, vmax=1, cmap="viridis")
        ax.set_title(f"{setting}\nc-index {r['c']['learned']:.3f}", fontsize=9)
        ax.set_xticks(range(len(targets)), list(targets), rotation=60, fontsize=7,
                      ha="right")
        ax.set_yticks(range(len(drugs)), list(drugs), fontsize=7)
    fig.suptitle("learned Kronecker-term weights (rows: drug kernels, columns: target kernels)",
                 fontsize=10)
    fig.tight_layout()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--davis", help="folder of the Davis data")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the per-fold c-indices to this file")
    args = p.parse_args(argv)
    drugs, targets, Y = davis(args.davis) if args.davis else synthetic()
    t0 = time.perf_counter()
    res = run(drugs, targets, Y, n_folds=args.folds, seed=args.seed)
    print(table(res, list(drugs), list(targets)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({s: {"folds": {str(m): v for m, v in r["folds"].items()},
                           "weights": r["weights"].tolist(), "seconds": r["seconds"]}
                       for s, r in res.items()}, f, indent=1)
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
