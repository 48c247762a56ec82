"""What every module of the face matrix shares: the small data sets, the brute force
(closed-form refits written with numpy, the measures written out), and how one row is
checked (the same estimates, the same choice, the same test predictions)."""

import functools
import json

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose

from rlscore.utilities.reader import write_svmlight

#: every module's ``pytestmark``: a choice at the edge of GRID is part of some rows
EDGE_OK = pytest.mark.filterwarnings("ignore::rlscore.core.selection.EdgeOfGridWarning")

RTOL = 1e-8                 # closed-form rows
GAMMA = 0.15
GRID = [1e-3, 0.1, 1.0, 10.0, 1e3]
K_FOLDS, SEED = 4, 3


# ------------------------------------------------------------------------ data

@functools.lru_cache(maxsize=None)
def _regression(seed=0, m=50, d=5):
    """Noisy regression, fold sizes that differ (50 rows in 4 folds), a test set."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(m + 12, d)), 6)
    y = np.round(np.sin(X[:, 0]) + X[:, 1] - 0.5 * X[:, 2] + 0.6 * rng.normal(size=m + 12),
                 6)
    return X[:m], y[:m], X[m:]


@functools.lru_cache(maxsize=None)
def _queries(seed=1, n_queries=11, d=5):
    """Queries of unequal sizes (one of a single row), graded labels, a test set."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(3, 9, size=n_queries)
    sizes[0] = 1
    q = np.repeat(np.arange(n_queries) * 3 + 1, sizes)
    X = np.round(rng.normal(size=(q.size + 12, d)), 6)
    s = X @ rng.normal(size=d) + 1.5 * rng.normal(size=q.size + 12)
    y = np.digitize(s, np.quantile(s, [0.3, 0.6, 0.85])).astype(float)
    return X[:q.size], y[:q.size], q, X[q.size:]


@functools.lru_cache(maxsize=None)
def _tied_queries():
    """_queries() with the labels of four queries of several rows all tied (no pair:
    their c-index is undefined, NaN in a naive per-query mean)."""
    X, y, q, Xt = _queries()
    y = y.copy()
    for g in [g for g in dict.fromkeys(q.tolist()) if np.sum(q == g) > 1][1:8:2]:
        y[q == g] = y[q == g][0]
    return X, y, q, Xt


# ------------------------------------------------------------- brute force

def _kernel(A, B, kernel):
    if kernel == "linear":
        return A @ B.T
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-GAMMA * np.maximum(d2, 0))


def _pair_laplacian(n, q=None):
    """GlobalRankRLS: the Laplacian m I - 1 1^T of all pairs; QueryRankRLS: the
    query-centring blockdiag(I - 1 1^T / n_q) (each query's mean removed)."""
    if q is None:
        return n * np.eye(n) - np.ones((n, n))
    same = (q[:, None] == q[None, :]).astype(float)
    return np.eye(n) - same / same.sum(1)[:, None]


def _refit(family, G, y, q, rows, lam, basis=None):
    """Train on ``rows`` from the closed form, given the kernel matrix G of all rows
    (training rows first, then any test rows); returns predict(indices into G).
    ``basis``: indices of the Nystrom basis rows, already restricted to what the rule
    keeps."""
    yr = y[rows]
    L = None if family == "rls" else \
        _pair_laplacian(len(rows), None if family == "global" else q[rows])
    if basis is not None:
        # the reduced-set normal equations (Kmb' L Kmb + lam Kbb) a = Kmb' L y
        Kmb, Kbb = G[np.ix_(rows, basis)], G[np.ix_(basis, basis)]
        LKmb = Kmb if L is None else L @ Kmb
        a = np.linalg.solve(Kmb.T @ LKmb + lam * Kbb, LKmb.T @ yr)
        return lambda idx: G[np.ix_(idx, basis)] @ a
    K = G[np.ix_(rows, rows)]
    a = np.linalg.solve((K if L is None else L @ K) + lam * np.eye(len(rows)),
                        yr if L is None else L @ yr)
    return lambda idx: G[np.ix_(idx, rows)] @ a


def _final(family, kernel, X, y, q, Xt, lam, basis=None):
    """The refit on all rows at ``lam``, predicting Xt."""
    m = len(y)
    G = _kernel(np.vstack([X, Xt]), np.vstack([X, Xt]), kernel)
    return _refit(family, G, y, q, np.arange(m), lam, basis)(m + np.arange(len(Xt)))


def _sqerror(y, p):
    return float(np.mean((y - p) ** 2))


def _cindex(y, p):
    """Pairwise accuracy over the pairs with different labels (ties in p 1/2); None
    without such a pair."""
    dy, dp = np.sign(y[:, None] - y[None, :]), np.sign(p[:, None] - p[None, :])
    pairs = dy > 0
    if not pairs.any():
        return None
    return float(np.mean(np.where(dp[pairs] > 0, 1.0, np.where(dp[pairs] == 0, 0.5, 0.0))))


def _query_cindex(y, p, q):
    """Mean over the queries that have a pair of each query's c-index."""
    values = [_cindex(y[q == g], p[q == g]) for g in dict.fromkeys(q.tolist())]
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _basis_kept(basis, train):
    """The project's rule (keep_basis_in_cv=False): basis rows held out are removed."""
    return None if basis is None else np.intersect1d(basis, train)


def _kfold_estimates(family, kernel, X, y, q, folds, measure, basis=None, keep=False):
    """The mean over the folds of each fold's measure (folds without a defined measure
    skipped), retraining without the fold at each grid value."""
    m = len(y)
    G = _kernel(X, X, kernel)
    out = []
    for lam in GRID:
        scores = []
        for f in folds:
            f = np.asarray(f)
            train = np.setdiff1d(np.arange(m), f)
            b = basis if keep else _basis_kept(basis, train)
            p = _refit(family, G, y, q, train, lam, b)(f)
            s = measure(y[f], p, q[f] if q is not None else None)
            if s is not None:
                scores.append(s)
        out.append(np.mean(scores))
    return np.array(out)


def _loo_estimates(kernel, X, y, basis=None, measure=None):
    """Leave-one-out of RLS by m refits; ``measure(y, p)`` of the held-out
    predictions (default the mean squared error)."""
    m = len(y)
    G = _kernel(X, X, kernel)
    out = []
    for lam in GRID:
        p = np.empty(m)
        for i in range(m):
            train = np.r_[0:i, i + 1:m]
            p[i] = _refit("rls", G, y, None, train, lam, _basis_kept(basis, train))([i])[0]
        out.append((measure or _sqerror)(y, p))
    return np.array(out)


def _lpo_estimates(family, kernel, X, y, q=None, basis=None):
    """Leave-pair-out: every pair with different labels (within a query when q is
    given and the estimate is per query) held out in turn; the fraction ordered as the
    labels (ties 1/2)."""
    m = len(y)
    G = _kernel(X, X, kernel)
    scores = [{} for _ in GRID]
    for i in range(m):
        for j in range(i + 1, m):
            if y[i] == y[j] or (q is not None and q[i] != q[j]):
                continue
            train = np.r_[0:i, i + 1:j, j + 1:m]
            kept = _basis_kept(basis, train)
            for per_value, lam in zip(scores, GRID):
                pi, pj = _refit(family, G, y, q, train, lam, kept)([i, j])
                per_value.setdefault(0 if q is None else q[i], []).append(
                    0.5 if pi == pj else float((pi > pj) == (y[i] > y[j])))
    return np.array([np.mean([np.mean(v) for v in s.values()]) for s in scores])


def _choose(perfs, error):
    """The first best grid value."""
    return GRID[int(np.argmin(perfs) if error else np.argmax(perfs))]


# ---------------------------------------------------------------- checking one row

def _kernel_options(kernel, face, bias=True):
    """The same kernel in each face's spelling: linear without a constant feature
    (bias 0: the faces' defaults differ; ``bias=False`` for an estimator without the
    parameter, RankRLS, whose linear kernel has none), or Gaussian with GAMMA."""
    if face == "cli":
        return ["--kernel", "linear", "--bias", 0] if kernel == "linear" else \
            ["--kernel", "gaussian", "--gamma", GAMMA]
    if kernel == "linear":
        return {"kernel": "LinearKernel" if face == "learner" else "linear",
                **({"bias": 0.0} if bias else {})}
    return {"kernel": "GaussianKernel" if face == "learner" else "rbf", "gamma": GAMMA}


def _learner_result(learner, Xt):
    return learner.regparam, learner.cv_performances, learner.predict(Xt)


def _check(face_result, ref_perfs, ref_choice, ref_pred, pred_atol=1e-10):
    """The same estimates (rtol RTOL), the same choice, the same test predictions (rtol
    RTOL, or ``pred_atol`` where that is looser: an iterative solver)."""
    lam, perfs, pred = face_result
    assert_allclose(np.ravel(perfs), ref_perfs, rtol=RTOL, atol=0)
    assert lam == ref_choice
    assert_allclose(np.ravel(pred), ref_pred, rtol=RTOL, atol=pred_atol)


def _cli_run(run_cli, tmp_path, X, y, q, Xt, options):
    """``rlscore cv`` (json: estimates, choice) and ``rlscore fit`` + ``predict`` on a
    test file with the same options; (chosen, estimates, predictions)."""
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    write_svmlight(train, X, y, q)
    write_svmlight(test, Xt, np.zeros(len(Xt)), None if q is None else
                   np.full(len(Xt), q[0]))
    return _cli_files(run_cli, tmp_path, train, test, options)[:3]


def _cli_files(run_cli, folder, train, test, options, predict_options=()):
    """The three commands on given files: ``cv --format json`` and ``fit`` with
    ``options``, ``predict`` of the test file (with ``predict_options``); (chosen,
    estimates, predictions, path of the model file)."""
    opts = [str(o) for o in options]
    code, out, err = run_cli(["cv", train, *opts, "--format", "json"])
    assert code == 0, err
    res = json.loads(out)
    model, pred = folder / "m.npz", folder / "p.txt"
    code, _, err = run_cli(["fit", train, "-o", model, *opts])
    assert code == 0, err
    code, _, err = run_cli(["predict", model, test, "-o", pred, *predict_options])
    assert code == 0, err
    return res["regparam"], np.array(res["cv_performances"]), np.loadtxt(pred), model


# ------------------------------------------------------------------ input formats

#: The sparse column's formats: training and test input as CSR ("csr"), or dense
#: training with test input as one of the formats a predict path takes.
PREDICT_FORMATS = ("csc", "coo", "matrix", "csr_array")
SPARSE_RTOL = 1e-10         # a face on sparse input against the same face on dense input


def _as_format(A, fmt):
    """A (dense ndarray) in the input format ``fmt``: None dense, "csr" / "csc" /
    "coo" scipy.sparse matrices, "csr_array" a sparse array, "matrix" np.matrix."""
    if fmt is None:
        return A
    if fmt == "matrix":
        return np.asmatrix(A)
    return getattr(sp, fmt if fmt.endswith("_array") else fmt + "_matrix")(A)


def _formats(X, Xt, fmt):
    """(training input, test input) for ``fmt``: None both dense, "csr" both CSR,
    any other format the test input only (training dense)."""
    if fmt == "csr":
        return _as_format(X, "csr"), _as_format(Xt, "csr")
    return X, _as_format(Xt, fmt)


def _same_as_dense(got, dense):
    """A face's (choice, estimates, predictions) on sparse input equal the same
    face's on dense input (SPARSE_RTOL)."""
    assert got[0] == dense[0]
    assert_allclose(np.ravel(got[1]), np.ravel(dense[1]), rtol=SPARSE_RTOL, atol=0)
    assert_allclose(np.ravel(got[2]), np.ravel(dense[2]), rtol=SPARSE_RTOL, atol=1e-13)


def _slow_if(rows, slow):
    """pytest params of ``rows``, those with ``slow(row)`` marked slow (their twins,
    the same face and CV kind on the cheaper kernel or basis, run by default)."""
    return [pytest.param(*row, marks=pytest.mark.slow) if slow(row) else
            pytest.param(*row) for row in rows]


def _memo(runner):
    """A face runner that writes no files, run once per row: its result depends only
    on its row's values and input format (the file and cluster fixtures are left out
    of the key), so the dense rows and the sparse column's dense comparison share one
    run. The results are only read."""
    cache = {}
    plain = (str, int, float, type(None), list, tuple)

    @functools.wraps(runner)
    def run(*args, **kw):
        key = repr(([a for a in args if isinstance(a, plain)],
                    sorted((k, v) for k, v in kw.items() if isinstance(v, plain))))
        if key not in cache:
            cache[key] = runner(*args, **kw)
        return cache[key]
    return run


# ----------------------------------------------------------------- RLS (and Nystrom)

N_BASIS, BASIS_SEED = 18, 5


def _rls_basis(m):
    """The rows ``--basis N --basis-seed S`` draws (the draw every face shares)."""
    from rlscore.core.nystrom import select_basis
    return np.sort(select_basis(m, n_basis=N_BASIS, random_state=BASIS_SEED))


def _block_folds(m):
    """K_FOLDS contiguous blocks of rows (as many partitions of a dask array)."""
    return np.array_split(np.arange(m), K_FOLDS)


def _query_folds(q, cv):
    """lqo: one fold per query; kfold: QueryGroups.folds(K_FOLDS, 0) (the fold rule of
    every face, RankRLSCV(cv=k)'s seed 0)."""
    from rlscore.core.structure import QueryGroups
    if cv == "lqo":
        return [np.flatnonzero(q == g) for g in dict.fromkeys(q.tolist())]
    return QueryGroups.from_qids(q).folds(K_FOLDS, seed=0)

