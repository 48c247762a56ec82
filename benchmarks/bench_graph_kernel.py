"""All-paths graph kernel: kernel-matrix time and reduced-set RLS training.

(a) The m x m kernel matrix of m = 2000 random graphs with 30-60 vertices (labels: one
    of 20 "POS" labels plus one of 3000 Zipf-distributed "word" labels per vertex;
    mostly forward edges plus a few backward edges that make cycles; weights scaled to a
    spectral radius <= 0.9), both variants, from fresh Graph objects (feature extraction
    + sparse product). Baseline: the naive per-pair dense computation (two dense
    inverses, two dense G over the pair's labels, one Frobenius product), timed on a
    subset of pairs and extrapolated to the m (m + 1) / 2 pairs.
(b) Reduced-set (sparse) RLS on the same graphs with 500 random basis graphs: training
    from the graphs (features cached on the Graph objects) against training from the
    precomputed kernel matrices (the solver alone), and 5-fold CV over a 9-point lambda
    grid through the exact hold-out shortcut.

Run:  python benchmarks/bench_graph_kernel.py [--quick]
Not a test: timings depend on the machine and its load (printed).
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from _timing import load, median_time  # noqa: E402


def random_graph_data(m, seed=0):
    """(adjacency, labels) of m random graphs with 30-60 vertices."""
    rng = np.random.default_rng(seed)
    zipf = 1.0 / np.arange(1, 3001)
    zipf /= zipf.sum()
    data = []
    for _ in range(m):
        n = int(rng.integers(30, 61))
        A = np.zeros((n, n))
        for k in range(1, n):                       # a random forward tree
            A[rng.integers(0, k), k] = rng.uniform(0.2, 0.9)
        for _ in range(n // 10):                    # a few backward edges (cycles)
            k, l = sorted(rng.choice(n, 2, replace=False))
            A[l, k] = rng.uniform(0.2, 0.9)
        rho = np.abs(np.linalg.eigvals(A)).max()
        if rho > 0.9:
            A *= 0.9 / rho
        labels = [[f"p{rng.integers(20)}", f"w{rng.choice(3000, p=zipf)}"]
                  for _ in range(n)]
        data.append((A, labels))
    return data


def naive_pair(g1, g2, variant):
    """k(g1, g2) by the dense formulas over the labels of the two graphs."""
    (A1, lab1), (A2, lab2) = g1, g2
    index = {}
    for labs in lab1 + lab2:
        for lab in labs:
            index.setdefault(lab, len(index))
    Gs = []
    for A, labs in ((A1, lab1), (A2, lab2)):
        n = A.shape[0]
        L = np.zeros((len(index), n))
        for k, ls in enumerate(labs):
            for lab in ls:
                L[index[lab], k] = 1.0
        W = np.linalg.inv(np.eye(n) - A) - np.eye(n)
        if variant == "sum":
            Gs.append(L @ W @ L.T)
        else:
            Gs.append((L[:, None, :, None] * W[None, None] * L[None, :, None, :])
                      .max(axis=(2, 3)))
    return float(np.sum(Gs[0] * Gs[1]))


def bench_kernel_matrix(data, variant, n_pairs, repeats):
    from rlscore.kernel import AllPathsGraphKernel, Graph
    m = len(data)

    def ours():
        graphs = [Graph(A, labs) for A, labs in data]     # fresh: no cached features
        t0 = time.perf_counter()
        k = AllPathsGraphKernel(graphs, variant=variant)
        t1 = time.perf_counter()
        K = k.getKM(graphs)
        return K, t1 - t0, time.perf_counter() - t1, k.train_X

    t_ours, (K, t_feat, t_prod, F) = median_time(ours, repeats)
    rng = np.random.default_rng(1)
    pairs = [tuple(rng.integers(0, m, 2)) for _ in range(n_pairs)]
    t_all, vals = median_time(lambda: [naive_pair(data[i], data[j], variant)
                                       for i, j in pairs], 1)
    t_pair = t_all / n_pairs
    err = max(abs(v - K[i, j]) / max(abs(K[i, j]), 1e-300) for v, (i, j) in zip(vals, pairs))
    t_naive = t_pair * m * (m + 1) / 2
    print(f"| kernel matrix {m}x{m}, {variant} | {t_ours:.2f} s (features {t_feat:.2f} s, "
          f"product {t_prod:.2f} s) | naive dense per pair, {n_pairs} pairs "
          f"extrapolated: {t_naive:.0f} s | {t_naive / t_ours:.0f}x | "
          f"max rel. err {err:.1e}; {F.shape[1]} label pairs, "
          f"{F.nnz / F.shape[0]:.0f} nnz/graph |", flush=True)


def bench_reduced_rls(data, n_basis, repeats):
    from rlscore.kernel import AllPathsGraphKernel, Graph
    from rlscore.learner import RLS, KfoldRLS
    from rlscore.measure import sqerror
    m = len(data)
    graphs = [Graph(A, labs) for A, labs in data]
    rng = np.random.default_rng(2)
    basis = [graphs[i] for i in rng.choice(m, n_basis, replace=False)]
    kb = AllPathsGraphKernel(basis)
    K_r, K_rr = kb.getKM(graphs), kb.getKM(basis)
    # a target the kernel can express: a random function of the features plus noise
    y = K_r @ rng.standard_normal(n_basis) / n_basis + 0.1 * rng.standard_normal(m)
    folds = [list(range(f, m, 5)) for f in range(5)]
    grid = [2.0 ** e for e in range(-8, 10, 2)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        t_graph, r1 = median_time(lambda: RLS(graphs, y, regparam=1.0, kernel="AllPathsGraphKernel",
                                        basis_vectors=basis), repeats)
        t_pre, r2 = median_time(lambda: RLS(K_r, y, regparam=1.0, kernel="PrecomputedKernel",
                                      basis_vectors=K_rr), repeats)
        t_cv, cv = median_time(lambda: KfoldRLS(graphs, y, folds, kernel="AllPathsGraphKernel",
                                          basis_vectors=basis, regparams=grid,
                                          measure=sqerror), repeats)
    diff = np.abs(r1.predictor.predict(graphs[:50]) -
                  r2.predictor.predict(K_r[:50])).max()
    print(f"| reduced-set RLS, m={m}, {n_basis} basis graphs (sum) | {t_graph:.2f} s | "
          f"same from precomputed K_r, K_rr: {t_pre:.2f} s | {t_graph / t_pre:.1f} | "
          f"max pred. diff {diff:.1e} |", flush=True)
    print(f"| + 5-fold CV, {len(grid)} lambdas (KfoldRLS) | {t_cv:.2f} s | - | - | "
          f"chosen lambda {cv.regparam:g} |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    m = 300 if args.quick else 2000
    repeats = 1 if args.quick else 3
    print(f"load average before: {load():.2f}; OMP_NUM_THREADS="
          f"{os.environ['OMP_NUM_THREADS']}, OPENBLAS_NUM_THREADS="
          f"{os.environ['OPENBLAS_NUM_THREADS']}; median of {repeats} runs", flush=True)
    data = random_graph_data(m)
    print("\n| step | ours | baseline | speed-up | notes |\n|---|---|---|---|---|")
    bench_kernel_matrix(data, "sum", 40 if args.quick else 200, repeats)
    bench_kernel_matrix(data, "max", 5 if args.quick else 20, repeats)
    bench_reduced_rls(data, 100 if args.quick else 500, repeats)
    print(f"\nload average after: {load():.2f}")


if __name__ == "__main__":
    main()
