"""KronRLS with one Gaussian gamma per domain learned by the exact in-sample
leave-one-pair-out gradient (rlscore.core.hyper.learn_kron_kernel), in one run.

Data: the Davis kinase set (68 drugs x 442 targets, every pair measured, pKd) when
``RLSCORE_DAVIS`` or ../shared/data/davis holds it, else rlscore's make_drug_target at
the same size. Each domain's given similarity K is turned into features
phi = V sqrt(max(e, 0)) (K = phi phi'), so that the learned kernel is the Gaussian of
the kernel-induced distance, exp(-gamma (K_ii + K_jj - 2 K_ij)).

1. Cost of one optimizer step (criterion and gradient, :func:`kron_loo_error_gradient`)
   against one eigendecomposition of the larger kernel and against the criterion alone
   (median of 5, one BLAS thread); the same for the settings B-D criteria
   (:class:`KronSettingObjective`).
2. The in-sample LOO mean squared error and wall time of
   (a) learn_kron_kernel (both gammas and lambda, 2 restarts);
   (b) a 7 gamma1 x 7 gamma2 x 10 lambda grid of the same criterion;
   (c) the given kernels (no gamma) with lambda from a 2^-10 .. 2^10 grid of the
       learner's exact in-sample LOO.

    nice -n 10 python benchmarks/bench_kron_kernel_learning.py
"""

import time

from _data import data_folder  # noqa: E402
from _timing import limit_threads, machine_line, median_time  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402

from rlscore.core.hyper import (KronHoldoutCriterion, KronLOOObjective, KronSettingObjective,
                                kron_loo_error_gradient, learn_kron_kernel)
from rlscore.core.kronecker import KronRLSModel
from rlscore.datasets import load_davis, make_drug_target  # noqa: E402
from rlscore.kernel import GaussianFamily  # noqa: E402


def features(K):
    """phi with phi phi' = K (negative eigenvalues clipped)."""
    e, V = np.linalg.eigh(0.5 * (K + K.T))
    return V * np.sqrt(np.maximum(e, 0.0))


def main():
    path = data_folder("davis", "RLSCORE_DAVIS")
    if path is not None:
        KD, KT, Y = load_davis(path)
        name = "Davis (68 x 442, pKd)"
    else:
        KD, KT, Y = make_drug_target(68, 442, random_state=0)[:3]
        name = "make_drug_target (68 x 442)"
    Y = Y - Y.mean()
    XD, XT = features(KD), features(KT)
    print(f"{name}; {machine_line()}")

    f1, f2 = GaussianFamily(XD), GaussianFamily(XT)
    obj = KronLOOObjective(f1, f2, Y)
    z0 = np.concatenate([[np.log(1e-2)], f1.start(), f2.start()])
    K1, K2 = f1.evaluate(z0[1:2])[0], f2.evaluate(z0[2:])[0]
    t_eig, _ = median_time(lambda: np.linalg.eigh(K2), repeats=5)
    t_val, _ = median_time(lambda: kron_loo_error_gradient(K1, K2, Y, 1e-2,
                                                           gradient=False), repeats=5)
    t_step, _ = median_time(lambda: obj(z0), repeats=5)
    print("\n| one step | seconds | ratio to eigh(K_T) |\n|---|---|---|")
    print(f"| eigh of K_T (442 x 442) | {t_eig:.3f} | 1 |")
    print(f"| criterion alone (two eigh + O(n1 n2 (n1 + n2))) | {t_val:.3f} | "
          f"{t_val / t_eig:.1f} |")
    print(f"| criterion + gradient (two kernels, two eigh, two syrk) | {t_step:.3f} | "
          f"{t_step / t_eig:.1f} |")
    for name, crit in (("leave-one-drug-out (B)", KronHoldoutCriterion("drugs")),
                       ("leave-one-target-out (C)", KronHoldoutCriterion("targets")),
                       ("both new, 5 x 5 folds (D)", KronHoldoutCriterion("both", n_folds=5))):
        o = KronSettingObjective(f1, f2, Y, crit)
        t, _ = median_time(lambda: o(z0), repeats=5)
        print(f"| {name}: criterion + gradient | {t:.3f} | {t / t_eig:.1f} |")

    t0 = time.perf_counter()
    res = learn_kron_kernel(XD, XT, Y)
    t_learn = time.perf_counter() - t0

    t0 = time.perf_counter()
    g1, g2 = f1.start()[0], f2.start()[0]
    best = (np.inf, None)
    for a in np.logspace(-2, 1, 7):
        for b in np.logspace(-2, 1, 7):
            for lam in np.logspace(-6, 1, 10):
                v = obj.value([np.log(lam), g1 + np.log(a), g2 + np.log(b)])
                if v < best[0]:
                    best = (v, (lam, np.exp(g1) * a, np.exp(g2) * b))
    t_grid = time.perf_counter() - t0

    t0 = time.perf_counter()
    model = KronRLSModel(K1=KD, K2=KT, Y=Y, regparam=None, indefinite="clip")
    raw = np.inf
    y = Y.ravel(order="F")
    for lam in 2.0 ** np.arange(-10, 11):
        model.solve(lam)
        raw = min(raw, float(np.mean((model.in_sample_loo() - y) ** 2)))
    t_raw = time.perf_counter() - t0

    print("\n| method | in-sample LOO MSE | time (s) | parameters |\n|---|---|---|---|")
    print(f"| (a) learn_kron_kernel | {res.criterion:.5f} | {t_learn:.1f} | lambda "
          f"{res.regparam:.3g}, gamma_D {res.kernel_params1['gamma']:.3g}, gamma_T "
          f"{res.kernel_params2['gamma']:.3g} ({res.search.n_evaluations} evaluations) |")
    lam, a, b = best[1]
    print(f"| (b) 7 x 7 x 10 grid | {best[0]:.5f} | {t_grid:.1f} | lambda {lam:.3g}, "
          f"gamma_D {a:.3g}, gamma_T {b:.3g} |")
    print(f"| (c) given kernels, lambda grid | {raw:.5f} | {t_raw:.1f} | |")
    print(f"\nvar(Y) = {float(np.var(Y)):.5f}")


if __name__ == "__main__":
    main()
