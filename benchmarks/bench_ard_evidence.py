"""ARD widths learned by the Gaussian-process evidence (``criterion="evidence"``, the
default with ``ard=True``) against scikit-learn's GaussianProcessRegressor on
housing-sized data (~350 training rows, 10-12 features): time ratio and test MSE,
in one process.

Per data set (70/30 split, inputs standardized, y centred and scaled on the training
part; test MSE in units of var(y_train)):

* time: ``learn_kernel(X, y, ard=True)`` (default criterion and restarts: 3 starts)
  against ``GaussianProcessRegressor(ConstantKernel * RBF(ARD) + WhiteKernel,
  n_restarts_optimizer=0)`` (scikit-learn's default: one start), median of
  ``--repeats`` interleaved runs, with the BLAS at one thread and at two (the
  default on the 2-core machine; the search itself runs with one thread below
  ``rlscore._lapack_threads.SERIAL_N`` rows, the GP with what the BLAS has);
* one evidence step with the BLAS at two threads against one (the cause of the slow
  searches on busy cores);
* test MSE of the default criterion, ``criterion="loo"``, ``criterion="evidence"``,
  the GP and the isotropic 10 x 13 exact-LOO grid
  (:func:`rlscore.core.hyper.gaussian_grid_loo`), over ``--seeds`` splits.

    nice -n 10 python benchmarks/bench_ard_evidence.py [--repeats 3] [--seeds 3]

Data: scikit-learn's bundled diabetes set (442 x 10), the Beijing air-quality set
(506 rows of one station, 12 features) when ``RLSCORE_BEIJING`` or
../shared/data/beijing_air_quality holds it, and Friedman #1 (506 x 10, 5 irrelevant
features).
"""

import argparse
import statistics
import sys
import warnings

from _data import data_folder  # noqa: E402
from _timing import interleaved_times, limit_threads, machine_line  # noqa: E402

limit_threads(2)

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from rlscore.core.hyper import learning_options, gaussian_grid_loo, learn_kernel
from rlscore.datasets import load_beijing_air_quality  # noqa: E402
from rlscore.learner import RLS  # noqa: E402


def datasets():
    from sklearn.datasets import load_diabetes, make_friedman1
    out = [("diabetes (442 x 10)",) + load_diabetes(return_X_y=True)]
    d = data_folder("beijing_air_quality", "RLSCORE_BEIJING")
    if d is not None:
        out.append(("beijing PM2.5 (506 x 12)",)
                   + load_beijing_air_quality(d, n=506, random_state=0))
    out.append(("friedman1 (506 x 10, 5 irrelevant)",)
               + make_friedman1(n_samples=506, n_features=10, noise=1.0, random_state=0))
    return out


def split(X, y, seed):
    perm = np.random.default_rng(seed).permutation(len(y))
    m = int(round(0.7 * len(y)))
    tr, te = perm[:m], perm[m:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    sd[sd == 0] = 1.0
    ym, ys = y[tr].mean(), y[tr].std()
    return (X[tr] - mu) / sd, (y[tr] - ym) / ys, (X[te] - mu) / sd, (y[te] - ym) / ys


def ours(Xtr, ytr, Xte, **kw):
    res = learn_kernel(Xtr, ytr, **learning_options(ard=kw.pop("ard", True), **kw))
    model = RLS(Xtr, ytr, kernel="GaussianKernel", gamma=res.kernel_params["gamma"],
                regparam=res.regparam)
    return model.predict(Xte)


def gpr(Xtr, ytr, Xte):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    d = Xtr.shape[1]
    kern = (ConstantKernel(1.0, (1e-3, 1e3)) * RBF(np.ones(d), (1e-2, 1e3))
            + WhiteKernel(0.1, (1e-6, 1e1)))
    g = GaussianProcessRegressor(kern, n_restarts_optimizer=0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        g.fit(Xtr, ytr)
    return g.predict(Xte)


def grid(Xtr, ytr, Xte):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)       # edge of the grid
        return gaussian_grid_loo(Xtr, ytr).predict(Xte)


def mse(P, y):
    return float(np.mean((np.ravel(P) - y) ** 2))


def timing(sets, repeats):
    print("\n## Time: ARD evidence search (default criterion, 3 starts) / "
          "GaussianProcessRegressor (ARD RBF + White, n_restarts_optimizer=0)\n")
    print("| data set | m train | BLAS threads | rlscore | GPR | ratio | target | | "
          "test MSE rlscore / GPR |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, X, y in sets:
        Xtr, ytr, Xte, yte = split(X, y, 0)
        for threads in (1, 2):
            out = {}
            with threadpool_limits(threads, user_api="blas"):
                t_ours, t_gp = interleaved_times(
                    [lambda: out.__setitem__("ours", ours(Xtr, ytr, Xte)),
                     lambda: out.__setitem__("gp", gpr(Xtr, ytr, Xte))], repeats)
            a, b = statistics.median(t_ours), statistics.median(t_gp)
            flag = "ok" if a / b <= 0.5 else "MISSED"
            print(f"| {name} | {len(ytr)} | {threads} | {a:.2f} s | {b:.2f} s | "
                  f"{a / b:.2f} | <= 0.5 | {flag} | {mse(out['ours'], yte):.4f} / "
                  f"{mse(out['gp'], yte):.4f} |", flush=True)


def step_threads(sets, repeats):
    """The cause of the slow searches: one evidence step (criterion and gradient) with
    the BLAS at two threads against one, interleaved in this process."""
    from rlscore.core.hyper import EvidenceObjective
    from rlscore.kernel import GaussianFamily
    print("\n## One ARD evidence step: BLAS two threads / one thread (median of "
          f"{7 * repeats}, interleaved)\n")
    print("| data set | m | one thread | two threads | ratio |\n|---|---|---|---|---|")
    for name, X, y in sets:
        Xtr, ytr, _, _ = split(X, y, 0)
        fam = GaussianFamily(Xtr, ard=True)
        obj = EvidenceObjective(fam, ytr)
        z = np.concatenate([[np.log(1e-2)], fam.start()])

        def timed_with(n):
            def run():
                with threadpool_limits(n, user_api="blas"):
                    obj(z)
            return run
        t1, t2 = interleaved_times([timed_with(1), timed_with(2)], 7 * repeats)
        a, b = statistics.median(t1), statistics.median(t2)
        print(f"| {name} | {len(ytr)} | {1e3 * a:.1f} ms | {1e3 * b:.1f} ms | "
              f"{b / a:.1f} |", flush=True)


def accuracy(sets, seeds):
    methods = (("default (ard=True)", lambda *a: ours(*a)),
               ("criterion='loo'", lambda *a: ours(*a, criterion="loo")),
               ("criterion='evidence'", lambda *a: ours(*a, criterion="evidence")),
               ("GPR ARD + White", gpr),
               ("isotropic LOO grid", grid))
    print(f"\n## Test MSE / var(y_train), mean over {seeds} splits (per split in "
          f"brackets), one BLAS thread\n")
    print("| data set | " + " | ".join(m for m, _ in methods) + " |")
    print("|---|" + "---|" * len(methods))
    for name, X, y in sets:
        errs = {m: [] for m, _ in methods}
        for seed in range(seeds):
            Xtr, ytr, Xte, yte = split(X, y, seed)
            with threadpool_limits(1, user_api="blas"):
                for m, fn in methods:
                    errs[m].append(mse(fn(Xtr, ytr, Xte), yte))
        print(f"| {name} | " + " | ".join(
            f"{np.mean(e):.4f} [{', '.join(f'{v:.3f}' for v in e)}]"
            for e in errs.values()) + " |", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--no-accuracy", action="store_true")
    args = p.parse_args(argv)
    print(machine_line())
    sets = datasets()
    step_threads(sets, args.repeats)
    timing(sets, args.repeats)
    if not args.no_accuracy:
        accuracy(sets, args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
