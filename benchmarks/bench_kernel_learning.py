"""Kernel parameters learned by the exact leave-one-out gradient vs grids and Gaussian
processes, in one run.

On each data set (same split, inputs standardized and targets centred/scaled on the
training part), test MSE (in units of the training variance of y) and wall time of

  (a)  rlscore.core.hyper.learn_kernel: L-BFGS-B on the exact LOO error, ARD (one width
       per feature); (a-bayes) the same with Cawley & Talbot's penalty, weight
       integrated out (penalty="bayes"); (a-ev) ARD by the Gaussian-process evidence of
       the same model (criterion="evidence"); and one isotropic width by LOO (a-iso);
  (b)  a 10 gamma x 13 lambda grid with the exact LOO (rlscore.core.hyper.gaussian_grid_loo:
       one eigendecomposition per gamma);
  (c)  scikit-learn GridSearchCV(KernelRidge(rbf)) over the same grid, 5-fold;
  (d)  scikit-learn GaussianProcessRegressor, ConstantKernel * RBF(ARD) + WhiteKernel,
       3 optimizer restarts.

Then the cost of one optimizer step (criterion + gradient) against one Cholesky
factorization of the same K (median of 5, one BLAS thread).

    nice -n 10 python benchmarks/bench_kernel_learning.py [--large]

Default sizes: 300-400 training examples per set (the GP's 3 restarts of an ARD
likelihood with one gradient per width dominate the run; on the shared 2-core machine
the default run takes ~8 minutes); ``--large`` uses 600-1000.

Data: scikit-learn's bundled diabetes set; the Beijing air-quality set (PM2.5 of one
station, subsampled) when ``RLSCORE_BEIJING`` or ../shared/data/beijing_air_quality
holds it; scikit-learn's Friedman #1 (5 relevant + 5 irrelevant features) and
rlscore's make_relevance_regression (2 relevant + 18 irrelevant) as ARD-friendly sets.
"""

import argparse
import sys
import time

from _data import data_folder  # noqa: E402
from _timing import limit_threads, machine_line, median_time  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402
import scipy.linalg as la  # noqa: E402

from rlscore.core.hyper import learning_options, GRID_GAMMA_FACTORS, GRID_REGPARAMS, EvidenceObjective, LOOObjective, gaussian_grid_loo, learn_kernel
from rlscore.datasets import load_beijing_air_quality, make_relevance_regression  # noqa
from rlscore.kernel import GaussianFamily, GaussianKernel, median_heuristic_gamma  # noqa
from rlscore.learner import LeaveOneOutRLS  # noqa: E402


def datasets(large):
    from sklearn.datasets import load_diabetes, make_friedman1
    n = 1000 if large else 400
    out = []
    X, y = load_diabetes(return_X_y=True)
    out.append(("diabetes (442 x 10)", X, y, 300))
    d = data_folder("beijing_air_quality", "RLSCORE_BEIJING")
    if d is not None:
        X, y = load_beijing_air_quality(d, n=n + 600, random_state=0)
        out.append((f"beijing PM2.5 ({n + 600} x 12)", X, y, n))
    X, y = make_friedman1(n_samples=n + 1000, n_features=10, noise=1.0, random_state=0)
    out.append((f"friedman1 ({n + 1000} x 10, 5 irrelevant)", X, y, n))
    m = 600 if large else 300
    X, y = make_relevance_regression(m + 1000, n_relevant=2, n_irrelevant=18, noise=0.1,
                                     random_state=0)
    out.append((f"relevance ({m + 1000} x 20, 18 irrelevant)", X, y, m))
    return out


def prepare(X, y, m_train, seed=0):
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:m_train], perm[m_train:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    sd[sd == 0] = 1.0
    ym, ys = y[tr].mean(), y[tr].std()
    return (X[tr] - mu) / sd, (y[tr] - ym) / ys, (X[te] - mu) / sd, (y[te] - ym) / ys


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def mse(a, b):
    return float(np.mean((np.ravel(a) - np.ravel(b)) ** 2))


def method_a(Xtr, ytr, Xte, ard, **kw):
    res = learn_kernel(Xtr, ytr, **learning_options(ard=ard, **kw))
    lrn = LeaveOneOutRLS(Xtr, ytr, kernel="GaussianKernel",
                         gamma=res.kernel_params["gamma"], regparams=[res.regparam])
    return lrn.predict(Xte), res


def method_b(Xtr, ytr, Xte, gammas):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)       # edge of the grid
        res = gaussian_grid_loo(Xtr, ytr, gammas)
    return res.predict(Xte), res


def method_c(Xtr, ytr, Xte, gammas):
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.model_selection import GridSearchCV, KFold
    gs = GridSearchCV(KernelRidge(kernel="rbf"), {"alpha": list(GRID_REGPARAMS),
                                                  "gamma": list(gammas)},
                      cv=KFold(5, shuffle=True, random_state=0),
                      scoring="neg_mean_squared_error", n_jobs=1)
    gs.fit(Xtr, ytr)
    return gs.predict(Xte), gs


def method_d(Xtr, ytr, Xte):
    import warnings
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    d = Xtr.shape[1]
    kern = (ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.ones(d), (1e-2, 1e3))
            + WhiteKernel(0.1, (1e-6, 1e1)))
    gpr = GaussianProcessRegressor(kern, n_restarts_optimizer=3, normalize_y=False,
                                   random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gpr.fit(Xtr, ytr)
    return gpr.predict(Xte), gpr


def gp_point_loo(Xtr, ytr, gpr):
    """The exact LOO MSE of KRR at the GP's fitted point (gamma_k = 1 / (2 l_k^2),
    regparam = noise / amplitude: the GP's predictive mean is that model)."""
    k = gpr.kernel_
    lam = k.k2.noise_level / k.k1.k1.constant_value
    gamma = 1.0 / (2.0 * np.asarray(k.k1.k2.length_scale) ** 2)
    obj = LOOObjective(GaussianFamily(Xtr, ard=True), ytr)
    return obj.value(np.concatenate([[np.log(lam)], np.log(gamma)]))


def compare(sets):
    print("\n## Test MSE / var(y_train) and wall time (one run, one BLAS thread)\n")
    print("| data set | m train / test | (a) LOO-gradient ARD | (a-bayes) ARD, "
          "penalty='bayes' | (a-ev) ARD, criterion='evidence' | (a-iso) LOO-gradient, "
          "one gamma | (b) 10x13 grid, exact LOO | (c) GridSearchCV KernelRidge 5-fold "
          "| (d) GPR ARD+White, 3 restarts | (a) / best of (b)-(d) | (a-bayes) / best "
          "| (a-ev) / best |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    details = []
    for name, X, y, m in sets:
        Xtr, ytr, Xte, yte = prepare(X, y, m)
        g0 = median_heuristic_gamma(Xtr)
        gammas = g0 * GRID_GAMMA_FACTORS
        cells, errs = [], {}
        for key, fn in (("a", lambda: method_a(Xtr, ytr, Xte, True)),
                        ("a-bayes", lambda: method_a(Xtr, ytr, Xte, True,
                                                     penalty="bayes")),
                        ("a-ev", lambda: method_a(Xtr, ytr, Xte, True,
                                                  criterion="evidence")),
                        ("a-iso", lambda: method_a(Xtr, ytr, Xte, False)),
                        ("b", lambda: method_b(Xtr, ytr, Xte, gammas)),
                        ("c", lambda: method_c(Xtr, ytr, Xte, gammas)),
                        ("d", lambda: method_d(Xtr, ytr, Xte))):
            t, (P, info) = timed(fn)
            errs[key] = (mse(P, yte), t, info)
            cells.append(f"{errs[key][0]:.4f} ({t:.1f} s)")
        best_other = min(errs[k][0] for k in ("b", "c", "d"))
        rels = []
        for key in ("a", "a-bayes", "a-ev"):
            rel = errs[key][0] / best_other
            flag = "ok" if rel <= 1.0 + 1e-3 else ("within 5%" if rel <= 1.05 else "WORSE")
            rels.append(f"{rel:.3f} {flag}")
        print(f"| {name} | {m} / {len(yte)} | " + " | ".join(cells + rels) + " |",
              flush=True)
        details.append((name, errs, gp_point_loo(Xtr, ytr, errs["d"][2])))
    print("\nLearned parameters (length-scales 1/sqrt(2 gamma); the GP's regparam is "
          "noise / amplitude, its predictive mean is this KRR model):")
    for name, errs, gp_loo in details:
        print(f"- {name}:")
        for key in ("a", "a-bayes", "a-ev"):
            res = errs[key][2]
            crit = "evidence (NLL / m)" if key == "a-ev" else "LOO MSE"
            print(f"  - ({key}) regparam {res.regparam:.3g}, length-scales "
                  f"{np.round(res.length_scales, 2).tolist()}; {crit} "
                  f"{res.criterion:.4f}, {len(res.history)} steps, "
                  f"{res.search.n_evaluations} evaluations over "
                  f"{len(res.search.restarts)} starts")
        iso, grid, gpr = errs["a-iso"][2], errs["b"][2], errs["d"][2]
        k = gpr.kernel_
        amp, ls, noise = (k.k1.k1.constant_value, k.k1.k2.length_scale,
                          k.k2.noise_level)
        print(f"  - (a-iso) gamma {iso.kernel_params['gamma']:.3g}, regparam "
              f"{iso.regparam:.3g}, LOO MSE {iso.criterion:.4f}; (b) gamma "
              f"{grid.gamma:.3g}, regparam {grid.regparam:.3g}, LOO MSE "
              f"{grid.criterion:.4f}")
        print(f"  - (d) regparam {noise / amp:.3g}, length-scales "
              f"{np.round(ls, 2).tolist()}; LOO MSE there {gp_loo:.4f}")


def step_cost(sizes, d=10, repeats=5):
    print("\n## Cost of one optimizer step vs one Cholesky factorization of K + lambda I\n")
    print("| m | Cholesky (scipy cho_factor) | step, one gamma | ratio | step, ARD d=10 "
          "| ratio | step, ARD evidence | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for m in sizes:
        X = rng.normal(size=(m, d))
        y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=m)
        K = GaussianKernel(X, gamma=0.05).getKM(X) + 1e-2 * np.eye(m)
        t_chol, _ = median_time(lambda: la.cho_factor(K, lower=True, check_finite=False),
                                repeats)
        cells = []
        for ard, objective in ((False, LOOObjective), (True, LOOObjective),
                               (True, EvidenceObjective)):
            fam = GaussianFamily(X, ard=ard)
            obj = objective(fam, y)
            z = np.concatenate([[np.log(1e-2)], fam.start()])
            obj(z)                                   # distances formed once
            t, _ = median_time(lambda: obj(z), repeats)
            cells.append(f"{t:.4f} s | {t / t_chol:.1f}")
        print(f"| {m} | {t_chol:.4f} s | " + " | ".join(cells) + " |", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--large", action="store_true", help="600-1000 training examples")
    args = p.parse_args(argv)
    print(machine_line())
    compare(datasets(args.large))
    step_cost([500, 1000, 2000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
