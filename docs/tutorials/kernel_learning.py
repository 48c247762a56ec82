"""Kernel widths learned by the gradient of the exact leave-one-out error, beside a
gamma x lambda grid and beside a Gaussian process with ARD widths.

Two data sets: scikit-learn's bundled diabetes data (real, 442 x 10) and a synthetic
set where only 2 of 10 features matter (rlscore.datasets.make_relevance_regression).
For each: the LOO-gradient search with one gamma and with one gamma per feature (ARD),
the 10 x 13 grid with the exact LOO, and GaussianProcessRegressor with
ConstantKernel * RBF(ARD) + WhiteKernel (3 restarts). Inputs standardized, targets
centred and scaled on the training part; test MSE in units of var(y_train).
"""

import time
import warnings

import numpy as np

from rlscore.core.rls import learn_kernel
from rlscore.datasets import make_relevance_regression
from rlscore.kernel import median_heuristic_gamma
from rlscore.learner import LeaveOneOutRLS

LAMBDAS = np.logspace(-6, 2, 13)
GAMMA_FACTORS = np.logspace(-2, 1, 10)


def _split(X, y, m, seed):
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:m], perm[m:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    ym, ys = y[tr].mean(), y[tr].std()
    return (X[tr] - mu) / sd, (y[tr] - ym) / ys, (X[te] - mu) / sd, (y[te] - ym) / ys


def _data(name, m_synthetic, seed):
    if name == "diabetes":
        from sklearn.datasets import load_diabetes
        X, y = load_diabetes(return_X_y=True)
        return X, y, 300
    X, y = make_relevance_regression(m_synthetic + 1000, n_relevant=2, n_irrelevant=8,
                                     noise=0.1, random_state=seed)
    return X, y, m_synthetic


def _gpr(Xtr, ytr, restarts):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    d = Xtr.shape[1]
    kern = (ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.ones(d), (1e-2, 1e3))
            + WhiteKernel(0.1, (1e-6, 1e1)))
    gpr = GaussianProcessRegressor(kern, n_restarts_optimizer=restarts, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gpr.fit(Xtr, ytr)
    return gpr


def run(sets=("diabetes", "synthetic"), m_synthetic=400, gpr_restarts=3, seed=0):
    """Per data set: test MSE, time and the learned length-scales of each method."""
    out = {}
    for name in sets:
        X, y, m = _data(name, m_synthetic, seed)
        Xtr, ytr, Xte, yte = _split(X, y, m, seed)
        rows = {}

        def record(key, fit):
            t0 = time.perf_counter()
            predict, extra = fit()
            rows[key] = dict(mse=float(np.mean((predict(Xte) - yte) ** 2)),
                             seconds=time.perf_counter() - t0, **extra)

        def learned(ard):
            res = learn_kernel(Xtr, ytr, ard=ard)
            model = LeaveOneOutRLS(Xtr, ytr, kernel="GaussianKernel",
                                   gamma=res.kernel_params["gamma"],
                                   regparams=[res.regparam])
            return model.predict, dict(loo=res.criterion, regparam=res.regparam,
                                       length_scales=np.atleast_1d(res.length_scales),
                                       steps=len(res.history))

        def grid():
            gammas = median_heuristic_gamma(Xtr) * GAMMA_FACTORS
            best = None
            for g in gammas:
                model = LeaveOneOutRLS(Xtr, ytr, kernel="GaussianKernel", gamma=g,
                                       regparams=list(LAMBDAS))
                e = float(np.min(model.cv_performances))
                if best is None or e < best[0]:
                    best = (e, g, model)
            return best[2].predict, dict(loo=best[0], regparam=best[2].regparam,
                                         length_scales=np.atleast_1d(
                                             1 / np.sqrt(2 * best[1])))

        def gpr():
            model = _gpr(Xtr, ytr, gpr_restarts)
            ls = model.kernel_.k1.k2.length_scale
            return model.predict, dict(loo=np.nan, regparam=np.nan,
                                       length_scales=np.atleast_1d(ls))

        record("LOO gradient, ARD", lambda: learned(True))
        record("LOO gradient, one gamma", lambda: learned(False))
        record("10 x 13 grid, exact LOO", grid)
        record("GPR, ARD RBF + White", gpr)
        out[name] = dict(rows=rows, m=m, n_test=len(yte))
    return out


def table(res):
    lines = []
    for name, r in res.items():
        lines += [f"\n{name} (train {r['m']}, test {r['n_test']})\n",
                  "| method | test MSE | LOO MSE | time | length-scales |",
                  "|---|---|---|---|---|"]
        for key, v in r["rows"].items():
            ls = ", ".join(f"{x:.3g}" for x in v["length_scales"])
            lines.append(f"| {key} | {v['mse']:.4f} | {v['loo']:.4f} | "
                         f"{v['seconds']:.1f} s | {ls} |")
    return "\n".join(lines)


def plot():
    import matplotlib.pyplot as plt
    res = run(sets=("synthetic",))
    rows = res["synthetic"]["rows"]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    d = len(rows["LOO gradient, ARD"]["length_scales"])
    for k, (key, mark) in enumerate((("LOO gradient, ARD", "o"),
                                      ("GPR, ARD RBF + White", "s"))):
        ax.semilogy(np.arange(d) + 0.1 * k, rows[key]["length_scales"], mark, label=key)
    ax.axvline(1.5, color="gray", lw=0.5)
    ax.set_xlabel("feature (0, 1 relevant; 2-9 noise)")
    ax.set_ylabel("learned length-scale")
    ax.legend()
    fig.tight_layout()


if __name__ == "__main__":
    print(table(run()))
