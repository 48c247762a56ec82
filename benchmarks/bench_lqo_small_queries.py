"""Exact leave-query-out with many small queries (issue #44, item 13): query RankRLS,
linear kernel, 10^5 queries of two documents, d = 10, 3 regparams, MAP; the library
against a vectorized primal leave-query-out written here in plain numpy.

The reference (independent of rlscore's algebra): centre the features within each
query, C = Phi_c^T Phi_c, b = Phi_c^T y; removing query q leaves
C_q = C - Phi_cq^T Phi_cq and b_q = b - Phi_cq^T y_q (the other queries' centring does
not change), so its predictions are Phi_q (C_q + lambda I)^{-1} b_q, one stacked
np.linalg.solve over all queries (10^5 x d x d) per regparam; MAP of the pooled
predictions by rlscore.measure.mean_average_precision.

Rows (each against the reference timed in the same process, median of --repeats runs
interleaved, wall and process CPU seconds, one BLAS thread):

(a) the core: QueryRankRLSModel(..., path=True) + grid_search over LQOCV (training,
    the eigendecomposition and the three leave-query-out passes with their MAP);
(b) the learner face LeaveQueryOutRankRLS(..., regparams=grid, measure=MAP) (also
    builds its ``cv_predictions``, one array per query and regparam);
(c) the command line ``rlscore cv FILE --learner query-rankrls --cv lqo --measure map``
    in a fresh process (importing and reading the svmlight file included; the
    reference's time excludes reading, so this row is informative, no target).

Each row prints the largest difference of the MAP values from the reference's (they
must agree to rounding).

    nice -n 10 python benchmarks/bench_lqo_small_queries.py [--repeats N]
        [--queries N] [--skip a,b,c]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import HEADER, cli_json, limit_threads, machine_line, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402

D = 10
GRID = [1.0, 1000.0, 10000.0]


def make_data(n_queries, seed=0):
    """X (2 n, D) with correlated columns, graded labels 0..2 (MAP: > 0 relevant),
    query ids in pairs."""
    rng = np.random.default_rng(seed)
    m = 2 * n_queries
    Z = rng.standard_normal((m, D))
    X = Z @ rng.standard_normal((D, D))      # correlated features: MAP moves with lambda
    score = Z @ rng.standard_normal(D) / np.sqrt(D) + 0.7 * rng.standard_normal(m)
    y = np.digitize(score, [-0.3, 0.8]).astype(np.float64)
    qids = np.repeat(np.arange(n_queries), 2)
    return X, y, qids


def reference_lqo(X, y, qids, grid):
    """MAP of the exact leave-query-out per regparam, vectorized primal numpy."""
    from rlscore.measure import mean_average_precision
    codes, inv = np.unique(qids, return_inverse=True)
    g = codes.size
    order = np.argsort(inv, kind="stable")
    n = X.shape[0] // g                      # equal query sizes (this benchmark's data)
    Xq = X[order].reshape(g, n, -1)
    yq = y[order].reshape(g, n)
    Pc = Xq - Xq.mean(axis=1, keepdims=True)
    C = np.einsum("qni,qnj->ij", Pc, Pc)
    b = np.einsum("qni,qn->i", Pc, yq)
    Cq = C[None] - np.einsum("qni,qnj->qij", Pc, Pc)
    bq = b[None] - np.einsum("qni,qn->qi", Pc, yq)
    eye = np.eye(X.shape[1])
    maps, preds = [], []
    for lam in grid:
        w = np.linalg.solve(Cq + lam * eye, bq[:, :, None])[:, :, 0]
        Pq = np.einsum("qni,qi->qn", Xq, w)
        P = np.empty_like(y)
        P[order] = Pq.ravel()
        maps.append(mean_average_precision(y, P, qids))
        preds.append(P)
    return np.array(maps), preds


def core_lqo(X, y, qids, grid):
    from rlscore.core.rankrls import QueryRankRLSModel
    from rlscore.core.selection import LQOCV, grid_search
    from rlscore.measure import mean_average_precision
    model = QueryRankRLSModel(X, y, qids, regparam=grid[0], path=True)
    perfs = grid_search(LQOCV(model, mean_average_precision), grid)[0]
    return np.asarray(perfs)


def learner_lqo(X, y, qids, grid):
    from rlscore.learner import LeaveQueryOutRankRLS
    from rlscore.measure import mean_average_precision
    sel = LeaveQueryOutRankRLS(X, y, qids, regparams=grid,
                               measure=mean_average_precision)
    return np.asarray(sel.cv_performances)


_CLI = "import sys; from rlscore.cli import main; sys.exit(main(sys.argv[1:]))"


def cli_lqo(path):
    wall, cpu, out = cli_json(_CLI, ["cv", path, "--learner", "query-rankrls", "--kernel",
                                     "linear", "--regparams", ",".join(map(str, GRID)),
                                     "--cv", "lqo", "--measure", "map", "--format", "json",
                                     "-q"])
    return wall, cpu, np.asarray(out["cv_performances"])


def timed(fn):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def compare(name, fn, ref, repeats, ref_maps, target=1.0):
    """Run fn and the reference in turn ``repeats`` times; print wall and CPU rows."""
    ours, base = [], []
    for _ in range(max(1, repeats)):
        ours.append(fn())
        base.append(timed(ref))
    med = [statistics.median(r[i] for r in ours) for i in (0, 1)]
    bmed = [statistics.median(r[i] for r in base) for i in (0, 1)]
    maps = ours[-1][2]
    diff = float(np.max(np.abs(maps - ref_maps)))
    note = (f"max |MAP diff| {diff:.1e}, MAP {' '.join(f'{v:.4f}' for v in maps)}")
    row(f"{name}, wall", med[0], bmed[0], "numpy primal LQO", target, note)
    row(f"{name}, CPU", med[1], bmed[1], "numpy primal LQO", target)
    return diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs of each (median)")
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--skip", default="", help="rows to skip, e.g. c")
    args = ap.parse_args()
    warnings.simplefilter("ignore", UserWarning)     # the grid's edge: not the point here
    skip = set(filter(None, args.skip.split(",")))
    X, y, qids = make_data(args.queries)
    print(f"{args.queries} queries of 2 documents, d = {D}, regparams {GRID}, MAP; "
          f"median of {args.repeats}; {machine_line()}\n")
    print(HEADER)
    import rlscore.core.selection  # noqa: F401  imported before timing, like the
    import rlscore.learner  # noqa: F401         reference's numpy
    ref_maps = reference_lqo(X, y, qids, GRID)[0]

    def ref():
        return reference_lqo(X, y, qids, GRID)[0]

    diffs = []
    if "a" not in skip:
        diffs.append(compare("(a) core QueryRankRLSModel + LQOCV",
                             lambda: timed(lambda: core_lqo(X, y, qids, GRID)), ref,
                             args.repeats, ref_maps))
    if "b" not in skip:
        diffs.append(compare("(b) LeaveQueryOutRankRLS",
                             lambda: timed(lambda: learner_lqo(X, y, qids, GRID)), ref,
                             args.repeats, ref_maps))
    if "c" not in skip:
        from rlscore.utilities.reader import write_svmlight
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "lqo.txt")
            write_svmlight(path, X, y, qids)
            diffs.append(compare("(c) CLI cv --cv lqo (reading the file included)",
                                 lambda: cli_lqo(path), ref, args.repeats, ref_maps,
                                 target=None))
    print(f"\n{machine_line()}")
    if diffs and max(diffs) > 1e-9:
        sys.exit(f"the library and the reference disagree: {max(diffs):.2e}")


if __name__ == "__main__":
    main()
