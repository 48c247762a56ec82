"""Kernel widths learned by the gradient of the exact leave-one-out error, beside a
gamma x lambda grid and beside a Gaussian process with ARD widths.

Two data sets: scikit-learn's bundled diabetes data (real, 442 x 10) and a synthetic
set where only 2 of 10 features matter (rlscore.datasets.make_relevance_regression).
For each: the LOO-gradient search with one gamma and with one gamma per feature (ARD;
unpenalized and with penalty="bayes"), ARD widths by the Gaussian-process evidence of
the same model (criterion="evidence"), the 10 x 13 grid with the exact LOO
(rlscore.core.hyper.gaussian_grid_loo), and GaussianProcessRegressor with
ConstantKernel * RBF(ARD) + WhiteKernel (3 restarts). Inputs standardized, targets
centred and scaled on the training part; test MSE in units of var(y_train).
"""

import time
import warnings

import numpy as np

from rlscore.core.hyper import LearnableKernel
from rlscore.core.hyper import LOOObjective, gaussian_grid_loo, learn_kernel
from rlscore.datasets import make_relevance_regression
from rlscore.kernel import GaussianFamily
from rlscore.learner import LeaveOneOutRLS


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

        def learned(ard, penalty=0.0, criterion="loo"):
            res = learn_kernel(Xtr, ytr, LearnableKernel(ard=ard), penalty=penalty,
                               criterion=criterion)
            model = LeaveOneOutRLS(Xtr, ytr, kernel="GaussianKernel",
                                   gamma=res.kernel_params["gamma"],
                                   regparams=[res.regparam])
            loo = res.criterion if criterion == "loo" else float(
                model.cv_performances[0])
            return model.predict, dict(loo=loo, regparam=res.regparam,
                                       length_scales=np.atleast_1d(res.length_scales),
                                       steps=len(res.history))

        def grid():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)     # edge of the grid
                res = gaussian_grid_loo(Xtr, ytr)
            return res.predict, dict(loo=res.criterion, regparam=res.regparam,
                                     length_scales=np.atleast_1d(
                                         1 / np.sqrt(2 * res.gamma)))

        def gpr():
            model = _gpr(Xtr, ytr, gpr_restarts)
            k = model.kernel_
            ls = np.atleast_1d(k.k1.k2.length_scale)
            # the GP's predictive mean is RLS with gamma_k = 1 / (2 l_k^2) and regparam
            # noise / amplitude: its exact LOO error there, for comparison
            regparam = k.k2.noise_level / k.k1.k1.constant_value
            loo = LOOObjective(GaussianFamily(Xtr, ard=True), ytr).value(
                np.concatenate([[np.log(regparam)], -np.log(2 * ls ** 2)]))
            return model.predict, dict(loo=loo, regparam=regparam, length_scales=ls)

        record("LOO gradient, ARD", lambda: learned(True))
        record("LOO gradient, ARD, bayes", lambda: learned(True, "bayes"))
        record("evidence gradient, ARD", lambda: learned(True, criterion="evidence"))
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
                                      ("evidence gradient, ARD", "^"),
                                      ("GPR, ARD RBF + White", "s"))):
        ax.semilogy(np.arange(d) + 0.1 * k, rows[key]["length_scales"], mark, label=key)
    ax.axvline(1.5, color="gray", lw=0.5)
    ax.set_xlabel("feature (0, 1 relevant; 2-9 noise)")
    ax.set_ylabel("learned length-scale")
    ax.legend()
    fig.tight_layout()


if __name__ == "__main__":
    print(table(run()))
