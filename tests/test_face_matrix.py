"""The face-equivalence matrix (issue 42): every learner family x every CV kind it
supports x every face that offers it, on the same small data, against brute-force refits
computed here from scratch with numpy.

One row is (family, cv kind, face). Each face's runner returns what the face chose and
estimated: ``(chosen regparam, estimate per grid point, predictions on a held-out test
set)``. The reference of a (family, cv kind) refits on the training rows of every split
by solving the closed form directly (RLS: (K + lam I)^-1 y; RankRLS: (L K + lam I)^-1 L y
with the global Laplacian or the query-centring L; Nystrom: the reduced-set normal equations with
the held-out basis vectors removed, or kept where the face's rule keeps them), scores
the split with the measure written out here, and refits on all rows at the chosen value
for the test predictions. The measure is passed explicitly in every face (their defaults
differ). Closed-form rows are held to rtol 1e-8; RankSVM (no closed form) to the
solvers' tolerance, stated at the row; learned kernel parameters to the gradient
search's tolerance (LEARN_RTOL).

The rows (faces: L learner, E estimator, C command line, G GridSearchCV, D Dask):

* RLS, linear and Gaussian: LOO, K-fold, LPO -- L, E, C; Nystrom with the held-out basis
  rows removed (LOO, K-fold, LPO: L, E; the basis drawn by the face from n_basis: L,
  E, C; drawn by D in K-fold over partitions) or kept (K-fold: L, E, C, D);
* global RankRLS: K-fold, LPO -- L, E, C; Nystrom K-fold kept (L, E, C, D) / removed
  (L, E, C); query RankRLS: LQO, K-fold by query -- L, E, C, G; Nystrom K-fold by query
  kept (L, E, C, D) / removed (L, E, C);
* per query on data with query ids: RLS LOO and LPO (C, E), global RankRLS LPO
  (C), query RankRLS LPO (E);
* linear RankSVM K-fold, by query and without query ids -- L, C, G;
* Kronecker RLS settings A-D -- KronRLS's shortcuts and G over PairwiseRLS; A-C --
  PairwiseRLSCV (E);
* kernel learning (gamma="learn"): RLS and query RankRLS -- L, E, C; Kronecker -- L, E.
"""

import functools
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from rlscore.utilities.cross_validation import random_folds
from rlscore.utilities.reader import write_svmlight

pytestmark = pytest.mark.filterwarnings(
    "ignore::rlscore.core.selection.EdgeOfGridWarning")

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
    opts = [str(o) for o in options]
    code, out, err = run_cli(["cv", train, *opts, "--format", "json"])
    assert code == 0, err
    res = json.loads(out)
    code, _, err = run_cli(["fit", train, "-o", tmp_path / "m.npz", *opts])
    assert code == 0, err
    code, _, err = run_cli(["predict", tmp_path / "m.npz", test, "-o", tmp_path / "p.txt"])
    assert code == 0, err
    return res["regparam"], np.array(res["cv_performances"]), np.loadtxt(tmp_path / "p.txt")


# ----------------------------------------------------------------- RLS (and Nystrom)

N_BASIS, BASIS_SEED = 18, 5


def _rls_basis(m):
    """The rows ``--basis N --basis-seed S`` draws (the draw every face shares)."""
    from rlscore.core.nystrom import select_basis
    return np.sort(select_basis(m, n_basis=N_BASIS, random_state=BASIS_SEED))


def _block_folds(m):
    """K_FOLDS contiguous blocks of rows (as many partitions of a dask array)."""
    return np.array_split(np.arange(m), K_FOLDS)


def _rls_reference(kernel, cv, nystrom):
    """(estimates, chosen, test predictions) of the brute force; Nystrom: basis rows
    removed from every split's training ("remove", and "draw": the same rows drawn by
    the face from n_basis and a seed) or the same vectors in every split ("keep").
    ``cv`` "kfold" holds out random_folds(m, K_FOLDS, SEED), "blocks" contiguous
    blocks."""
    if nystrom == "draw":
        return _rls_reference(kernel, cv, "remove")
    X, y, Xt = _regression()
    m = len(y)
    basis = _rls_basis(m) if nystrom else None
    if cv == "loo":
        perfs, error = _loo_estimates(kernel, X, y, basis), True
    elif cv in ("kfold", "blocks"):
        folds = random_folds(m, K_FOLDS, seed=SEED) if cv == "kfold" else _block_folds(m)
        perfs = _kfold_estimates("rls", kernel, X, y, None, folds,
                                 lambda a, b, _: _sqerror(a, b), basis,
                                 keep=nystrom == "keep")
        error = True
    else:
        perfs, error = _lpo_estimates("rls", kernel, X, y, None, basis), False
    lam = _choose(perfs, error)
    pred = _final("rls", kernel, X, y, None, Xt, lam, basis)
    return perfs, lam, pred


_rls_reference = functools.lru_cache(maxsize=None)(_rls_reference)


def _rls_learner(kernel, cv, nystrom, **_):
    from rlscore.learner import KfoldRLS, LeaveOneOutRLS, LeavePairOutRLS
    from rlscore.measure import sqerror
    X, y, Xt = _regression()
    kw = _kernel_options(kernel, "learner")
    if nystrom == "remove":
        kw["basis_indices"] = _rls_basis(len(y))
    elif nystrom == "keep":
        kw["basis_vectors"] = X[_rls_basis(len(y))]
    elif nystrom == "draw":
        kw.update(n_basis=N_BASIS, random_state=BASIS_SEED)
    cls, args = {"loo": (LeaveOneOutRLS, ()), "lpo": (LeavePairOutRLS, ()),
                 "kfold": (KfoldRLS, (random_folds(len(y), K_FOLDS, seed=SEED),))}[cv]
    if cv != "lpo":                       # LeavePairOutRLS has no measure: the AUC
        kw["measure"] = sqerror
    return _learner_result(cls(X, y, *args, regparams=GRID, **kw), Xt)


def _rls_estimator(kernel, cv, nystrom, **_):
    from rlscore.estimators import KernelRLSCV
    X, y, Xt = _regression()
    m = len(y)
    kw = _kernel_options(kernel, "estimator")
    if nystrom == "draw":
        kw.update(n_basis=N_BASIS, random_state=BASIS_SEED)
    elif nystrom:
        kw.update(basis_indices=_rls_basis(m), keep_basis_in_cv=nystrom == "keep")
    if cv == "kfold":
        splits = [(np.setdiff1d(np.arange(m), f), np.sort(f))
                  for f in random_folds(m, K_FOLDS, seed=SEED)]
        est = KernelRLSCV(alphas=GRID, cv=splits, scoring="sqerror", **kw)
    else:
        est = KernelRLSCV(alphas=GRID, cv=cv, scoring="cindex" if cv == "lpo" else
                          "sqerror", **kw)
    est.fit(X, y)
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(Xt)


def _rls_cli(kernel, cv, nystrom, run_cli, tmp_path, **_):
    X, y, Xt = _regression()
    opts = ["--learner", "rls", "--regparams", ",".join(map(str, GRID)), "--cv", cv,
            "--measure", "cindex" if cv == "lpo" else "sqerror"]
    opts += _kernel_options(kernel, "cli")
    if cv == "kfold":
        opts += ["--folds", K_FOLDS, "--seed", SEED]
    if nystrom:
        opts += ["--basis", N_BASIS, "--basis-seed", BASIS_SEED]
        opts += ["--keep-basis-in-cv"] if nystrom == "keep" else []
    return _cli_run(run_cli, tmp_path, X, y, None, Xt, opts)


def _rls_dask(kernel, cv, nystrom, client, **_):
    """rlscore.distributed.RLS (Nystrom, K-fold over partitions), one partition per
    fold. ``nystrom`` "keep": the basis vectors given, the rows of random_folds as the
    partitions ("kfold"); "draw": n_basis rows drawn by the face from the data in its
    order, contiguous blocks as the partitions ("blocks")."""
    da = pytest.importorskip("dask.array")
    import rlscore.distributed as rd
    from rlscore.measure import sqerror
    X, y, Xt = _regression()
    folds = random_folds(len(y), K_FOLDS, seed=SEED) if cv == "kfold" else \
        _block_folds(len(y))
    order = np.concatenate([np.sort(f) for f in folds])
    chunks = tuple(len(f) for f in folds)
    Xd = da.from_array(X[order], chunks=(chunks, -1))
    yd = da.from_array(y[order], chunks=(chunks,))
    basis = {"basis_vectors": X[_rls_basis(len(y))]} if nystrom == "keep" else \
        {"n_basis": N_BASIS, "random_state": BASIS_SEED}
    model = rd.RLS(Xd, yd, kernel="GaussianKernel", gamma=GAMMA, client=client, **basis)
    out = model.kfold(GRID, folds=[[k] for k in range(K_FOLDS)], measure=sqerror)
    return out["best_regparam"], out["cv_performances"], model.predict(Xt)


RLS_FACES = {"learner": _rls_learner, "estimator": _rls_estimator, "cli": _rls_cli,
             "dask": _rls_dask}

RLS_ROWS = []
for _kernel_name in ("linear", "gaussian"):
    for _cv in ("loo", "kfold", "lpo"):
        for _face in ("learner", "estimator", "cli"):
            RLS_ROWS.append((_kernel_name, _cv, None, _face))
for _cv in ("loo", "kfold", "lpo"):
    for _face in ("learner", "estimator"):
        RLS_ROWS.append(("gaussian", _cv, "remove", _face))
for _cv in ("kfold",):
    for _face in ("learner", "estimator", "cli"):
        RLS_ROWS.append(("gaussian", _cv, "keep", _face))
#: The command line draws ``--basis N --basis-seed S`` as the learners draw n_basis /
#: random_state and follows the same rule (``--keep-basis-in-cv`` keeps the rows).
for _cv in ("loo", "kfold", "lpo"):
    for _face in ("learner", "estimator", "cli"):
        RLS_ROWS.append(("gaussian", _cv, "draw", _face))


@pytest.mark.parametrize("kernel,cv,nystrom,face", RLS_ROWS)
def test_rls(kernel, cv, nystrom, face, run_cli, tmp_path):
    perfs, lam, pred = _rls_reference(kernel, cv, nystrom)
    got = RLS_FACES[face](kernel, cv, nystrom, run_cli=run_cli, tmp_path=tmp_path)
    _check(got, perfs, lam, pred)


@pytest.mark.parametrize("cv,nystrom", [("kfold", "keep"), ("blocks", "draw")])
def test_rls_nystrom_kfold_dask(client, cv, nystrom):
    perfs, lam, pred = _rls_reference("gaussian", cv, nystrom)
    _check(_rls_dask("gaussian", cv, nystrom, client), perfs, lam, pred)


# ------------------------------------------------------------------------ RankRLS

def _query_folds(q, cv):
    """lqo: one fold per query; kfold: QueryGroups.folds(K_FOLDS, 0) (the fold rule of
    every face, RankRLSCV(cv=k)'s seed 0)."""
    from rlscore.core.structure import QueryGroups
    if cv == "lqo":
        return [np.flatnonzero(q == g) for g in dict.fromkeys(q.tolist())]
    return QueryGroups.from_qids(q).folds(K_FOLDS, seed=0)


@functools.lru_cache(maxsize=None)
def _rank_reference(family, kernel, cv, nystrom=None):
    """Nystrom (K-fold): "keep" the basis rows in every split, or "remove" the
    held-out ones."""
    X, y, q, Xt = _queries()
    m = len(y)
    basis = _rls_basis(m) if nystrom else None
    if family == "query":
        perfs = _kfold_estimates("query", kernel, X, y, q, _query_folds(q, cv),
                                 _query_cindex, basis, keep=nystrom == "keep")
    elif cv == "kfold":
        perfs = _kfold_estimates("global", kernel, X, y, None,
                                 random_folds(m, K_FOLDS, seed=SEED),
                                 lambda a, b, _: _cindex(a, b), basis,
                                 keep=nystrom == "keep")
    else:
        perfs = _lpo_estimates("global", kernel, X, y)
    lam = _choose(perfs, False)
    pred = _final(family, kernel, X, y, q, Xt, lam, basis)
    return perfs, lam, pred


def _rank_learner(family, kernel, cv, nystrom=None, **_):
    from rlscore.learner import (KfoldQueryRankRLS, KfoldRankRLS, LeavePairOutRankRLS,
                                 LeaveQueryOutRankRLS)
    from rlscore.measure import cindex
    X, y, q, Xt = _queries()
    kw = _kernel_options(kernel, "learner")
    if nystrom == "keep":
        kw["basis_vectors"] = X[_rls_basis(len(y))]
    elif nystrom == "remove":
        kw["basis_indices"] = _rls_basis(len(y))
    cls, args = {("query", "lqo"): (LeaveQueryOutRankRLS, (q,)),
                 ("query", "kfold"): (KfoldQueryRankRLS, (q, K_FOLDS)),
                 ("global", "kfold"): (KfoldRankRLS,
                                       (random_folds(len(y), K_FOLDS, seed=SEED),)),
                 ("global", "lpo"): (LeavePairOutRankRLS, ())}[family, cv]
    if cv != "lpo":
        kw["measure"] = cindex
    return _learner_result(cls(X, y, *args, regparams=GRID, **kw), Xt)


def _rank_estimator(family, kernel, cv, nystrom=None, **_):
    from rlscore.estimators import RankRLSCV
    X, y, q, Xt = _queries()
    m = len(y)
    kw = _kernel_options(kernel, "estimator", bias=False)
    if nystrom:
        kw.update(basis_indices=_rls_basis(m), keep_basis_in_cv=nystrom == "keep")
    if family == "query":
        est = RankRLSCV(alphas=GRID, cv="lqo" if cv == "lqo" else K_FOLDS,
                        scoring="cindex", **kw).fit(X, y, qid=q)
    elif cv == "kfold":
        splits = [(np.setdiff1d(np.arange(m), f), np.sort(f))
                  for f in random_folds(m, K_FOLDS, seed=SEED)]
        est = RankRLSCV(alphas=GRID, cv=splits, scoring="cindex", **kw).fit(X, y)
    else:
        est = RankRLSCV(alphas=GRID, cv="lpo", scoring="cindex", **kw).fit(X, y)
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(Xt)


def _rank_gridsearch(family, kernel, cv, **_):
    """scikit-learn's GridSearchCV(RankRLS(), cv=QuerySplitter(...)) with the query ids
    routed to the splitter, fit and score."""
    import sklearn
    from sklearn.model_selection import GridSearchCV, LeaveOneGroupOut
    from rlscore.estimators import QuerySplitter, RankRLS
    X, y, q, Xt = _queries()
    splitter = QuerySplitter(LeaveOneGroupOut() if cv == "lqo" else K_FOLDS,
                             random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = RankRLS(**_kernel_options(kernel, "estimator", bias=False))
        ranker = ranker.set_fit_request(groups=True).set_score_request(groups=True)
        search = GridSearchCV(ranker, {"alpha": GRID}, cv=splitter).fit(X, y, groups=q)
        pred = search.predict(Xt)
    return search.best_params_["alpha"], search.cv_results_["mean_test_score"], pred


def _rank_cli(family, kernel, cv, run_cli, tmp_path, nystrom=None, **_):
    X, y, q, Xt = _queries()
    opts = ["--learner", "query-rankrls" if family == "query" else "rankrls",
            "--regparams", ",".join(map(str, GRID)), "--cv", cv, "--measure", "cindex"]
    opts += _kernel_options(kernel, "cli")
    if cv == "kfold":
        opts += ["--folds", K_FOLDS, "--seed", 0 if family == "query" else SEED]
    if nystrom:
        opts += ["--basis", N_BASIS, "--basis-seed", BASIS_SEED]
        opts += ["--keep-basis-in-cv"] if nystrom == "keep" else []
    return _cli_run(run_cli, tmp_path, X, y, q if family == "query" else None, Xt, opts)


RANK_FACES = {"learner": _rank_learner, "estimator": _rank_estimator, "cli": _rank_cli,
              "gridsearch": _rank_gridsearch}
RANK_ROWS = [(fam, k, cv, face)
             for k in ("linear", "gaussian")
             for fam, cvs, faces in (("global", ("kfold", "lpo"),
                                      ("learner", "estimator", "cli")),
                                     ("query", ("lqo", "kfold"),
                                      ("learner", "estimator", "cli", "gridsearch")))
             for cv in cvs for face in faces]


@pytest.mark.parametrize("family,kernel,cv,face", RANK_ROWS)
def test_rankrls(family, kernel, cv, face, run_cli, tmp_path):
    perfs, lam, pred = _rank_reference(family, kernel, cv)
    got = RANK_FACES[face](family, kernel, cv, run_cli=run_cli, tmp_path=tmp_path)
    _check(got, perfs, lam, pred)


def _rank_dask(family, kernel, cv, nystrom, client, **_):
    """rlscore.distributed.QueryRankRLS / GlobalRankRLS with the basis vectors given
    (kept in every fold), one partition per fold (of whole queries / of rows)."""
    da = pytest.importorskip("dask.array")
    import rlscore.distributed as rd
    from rlscore.measure import cindex
    X, y, q, Xt = _queries()
    folds = _query_folds(q, cv) if family == "query" else \
        [np.sort(f) for f in random_folds(len(y), K_FOLDS, seed=SEED)]
    order = np.concatenate(folds)
    chunks = tuple(len(f) for f in folds)
    Xd = da.from_array(X[order], chunks=(chunks, -1))
    yd = da.from_array(y[order], chunks=(chunks,))
    kw = dict(kernel="GaussianKernel", gamma=GAMMA, client=client,
              basis_vectors=X[_rls_basis(len(y))])
    model = rd.QueryRankRLS(Xd, yd, da.from_array(q[order], chunks=(chunks,)), **kw) \
        if family == "query" else rd.GlobalRankRLS(Xd, yd, **kw)
    out = model.kfold(GRID, folds=[[k] for k in range(len(folds))], measure=cindex)
    return out["best_regparam"], out["cv_performances"], model.predict(Xt)


@pytest.mark.parametrize("family", ["query", "global"])
@pytest.mark.parametrize("nystrom,face", [
    ("keep", "learner"), ("keep", "estimator"), ("keep", "cli"), ("keep", "dask"),
    ("remove", "learner"), ("remove", "estimator"), ("remove", "cli")])
def test_rankrls_nystrom_kfold(family, nystrom, face, run_cli, tmp_path, request):
    perfs, lam, pred = _rank_reference(family, "gaussian", "kfold", nystrom)
    extra = {"client": request.getfixturevalue("client")} if face == "dask" else {}
    got = {**RANK_FACES, "dask": _rank_dask}[face](
        family, "gaussian", "kfold", nystrom=nystrom, run_cli=run_cli,
        tmp_path=tmp_path, **extra)
    _check(got, perfs, lam, pred)


# ------------------------------------------------------------------- linear RankSVM

SVM_TOL = 1e-10             # the solvers' relative duality gap, every face and the refits
SVM_GRID = [1e-3, 1e-2, 0.1, 1.0, 10.0]


def _svm_atol(lam, X):
    """The spread two solutions within SVM_TOL of the optimum may have on X: by strong
    convexity ||w - w*||^2 <= 2 gap / lam with gap <= SVM_TOL R(0) and R(0) = 1 (the
    hinge at w = 0 with normalize="pairs"), so |x.w - x.w'| <= 2 sqrt(2 SVM_TOL / lam)
    ||x||."""
    return 2 * np.sqrt(2 * SVM_TOL / lam) * np.linalg.norm(X, axis=1).max()


def _svm_data(structure):
    """(X, y, qids or None, Xt, folds): "query" folds of whole queries
    (QueryGroups.folds(K_FOLDS, 0)), "global" random_folds(m, K_FOLDS, SEED) of rows and
    no query ids."""
    X, y, q, Xt = _queries()
    if structure == "query":
        return X, y, q, Xt, _query_folds(q, "kfold")
    return X, y, None, Xt, [np.sort(f) for f in random_folds(len(y), K_FOLDS, seed=SEED)]


@functools.lru_cache(maxsize=None)
def _svm_reference(structure):
    """K-fold of cold LinearRankSVM refits (no closed form): each fold scored per query
    (by all its pairs without query ids), the mean over the folds; the refit on all
    rows at the choice."""
    from rlscore.learner import LinearRankSVM
    X, y, q, Xt, folds = _svm_data(structure)
    perfs = []
    for lam in SVM_GRID:
        scores = []
        for f in folds:
            train = np.setdiff1d(np.arange(len(y)), f)
            p = np.ravel(LinearRankSVM(X[train], y[train], None if q is None else q[train],
                                       regparam=lam, tol=SVM_TOL).predict(X[f]))
            s = _cindex(y[f], p) if q is None else _query_cindex(y[f], p, q[f])
            if s is not None:
                scores.append(s)
        perfs.append(np.mean(scores))
    lam = SVM_GRID[int(np.argmax(perfs))]
    return np.array(perfs), lam, np.ravel(LinearRankSVM(X, y, q, regparam=lam,
                                                        tol=SVM_TOL).predict(Xt))


def _svm_learner(structure, run_cli, tmp_path):
    from rlscore.learner import KfoldLinearRankSVM
    from rlscore.measure import cindex
    X, y, q, Xt, folds = _svm_data(structure)
    L = KfoldLinearRankSVM(X, y, q, folds=folds, regparams=SVM_GRID, measure=cindex,
                           tol=SVM_TOL)
    return _learner_result(L, Xt)


def _svm_cli(structure, run_cli, tmp_path):
    X, y, q, Xt, _ = _svm_data(structure)
    return _cli_run(run_cli, tmp_path, X, y, q, Xt, [
        "--learner", "ranksvm", "--regparams", ",".join(map(str, SVM_GRID)), "--cv",
        "kfold", "--folds", K_FOLDS, "--seed", 0 if q is not None else SEED, "--measure",
        "cindex", "--tol", SVM_TOL])


def _svm_gridsearch(structure, run_cli, tmp_path):
    """GridSearchCV(RankSVM()): QuerySplitter(K_FOLDS) with the query ids routed to
    the splitter, fit and score; without them the same row folds as splits."""
    import sklearn
    from sklearn.model_selection import GridSearchCV
    from rlscore.estimators import QuerySplitter, RankSVM
    X, y, q, Xt, folds = _svm_data(structure)
    with sklearn.config_context(enable_metadata_routing=True):
        ranker = RankSVM(tol=SVM_TOL, max_iter=100000)
        if q is None:
            cv = [(np.setdiff1d(np.arange(len(y)), f), f) for f in folds]
            search = GridSearchCV(ranker, {"alpha": SVM_GRID}, cv=cv).fit(X, y)
        else:
            ranker = ranker.set_fit_request(groups=True).set_score_request(groups=True)
            search = GridSearchCV(ranker, {"alpha": SVM_GRID},
                                  cv=QuerySplitter(K_FOLDS, random_state=0))
            search.fit(X, y, groups=q)
        pred = search.predict(Xt)
    return search.best_params_["alpha"], search.cv_results_["mean_test_score"], pred


SVM_FACES = {"learner": _svm_learner, "cli": _svm_cli, "gridsearch": _svm_gridsearch}


@pytest.mark.parametrize("structure", ["query", "global"])
@pytest.mark.parametrize("face", list(SVM_FACES))
def test_linear_ranksvm_kfold(face, structure, run_cli, tmp_path):
    perfs, lam, pred = _svm_reference(structure)
    got = SVM_FACES[face](structure, run_cli, tmp_path)
    # the c-indices of solutions within SVM_TOL of each other are equal unless two
    # held-out scores lie within _svm_atol (not on this data): estimates to RTOL,
    # predictions to the solver's bound
    _check(got, perfs, lam, pred, pred_atol=_svm_atol(lam, _queries()[3]))


# ------------------------------------------------------- kernel learning (gamma="learn")

@functools.lru_cache(maxsize=None)
def _wave():
    """A Gaussian-kernel problem whose leave-one-out optimum is inside (gamma ~0.78,
    regparam ~0.33; leave-query-out over _WAVE_QIDS: ~0.85, ~0.16): a sine in one of
    two features with noise."""
    rng = np.random.default_rng(2)
    X = np.round(rng.uniform(-3, 3, size=(60, 2)), 6)
    y = np.round(np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=60), 6)
    return X[:48], y[:48], X[48:]


_WAVE_QIDS = np.repeat(np.arange(8), 6)         # 8 queries of 6 rows of _wave()


def _learning_criterion(family, gamma, lam):
    """What the gradient search minimizes, by refits: RLS the leave-one-out mean
    squared error; query RankRLS the leave-query-out error, each held-out query's
    centred residual (labels minus their query mean against predictions minus theirs)
    squared, summed over the queries and divided by m."""
    X, y, _ = _wave()
    G = np.exp(-gamma * ((X[:, None] - X[None]) ** 2).sum(-1))
    q = _WAVE_QIDS
    groups = [[i] for i in range(len(y))] if family == "rls" else \
        [np.flatnonzero(q == v) for v in np.unique(q)]
    total = 0.0
    for te in groups:
        tr = np.setdiff1d(np.arange(len(y)), te)
        r = y[te] - _refit(family, G, y, q, tr, lam)(te)
        if family == "query":
            r = r - r.mean()
        total += r @ r
    return total / len(y)


@functools.lru_cache(maxsize=None)
def _learned_by_learner(family):
    """One run of the learner's search (the reference checks it, its row compares it)."""
    from rlscore.learner import LeaveOneOutRLS, LeaveQueryOutRankRLS
    X, y, Xt = _wave()
    L = LeaveOneOutRLS(X, y, kernel="GaussianKernel", gamma="learn") if family == "rls" \
        else LeaveQueryOutRankRLS(X, y, _WAVE_QIDS, kernel="GaussianKernel", gamma="learn")
    return L.gamma, L.regparam, L.kernel_learning.criterion, L.predict(Xt)


def _learn_learner(family, run_cli, tmp_path):
    return _learned_by_learner(family)


def _learn_estimator(family, run_cli, tmp_path):
    from rlscore.estimators import KernelRLSCV, RankRLSCV
    X, y, Xt = _wave()
    if family == "rls":
        est = KernelRLSCV(kernel="rbf", gamma="learn", cv="loo").fit(X, y)
    else:
        est = RankRLSCV(kernel="rbf", gamma="learn", cv="lqo").fit(X, y, qid=_WAVE_QIDS)
    return est.gamma_, est.alpha_, None, est.predict(Xt)


def _learn_cli(family, run_cli, tmp_path):
    from rlscore.model_io import read_metadata
    X, y, Xt = _wave()
    q = None if family == "rls" else _WAVE_QIDS
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    write_svmlight(train, X, y, q)
    write_svmlight(test, Xt, np.zeros(len(Xt)), None if q is None else
                   np.zeros(len(Xt), dtype=int))
    code, _, err = run_cli(["fit", train, "-o", tmp_path / "m.npz", "--learner",
                            {"rls": "rls", "query": "query-rankrls"}[family],
                            "--kernel", "gaussian", "--gamma", "learn"])
    assert code == 0, err
    code, _, err = run_cli(["predict", tmp_path / "m.npz", test, "-o", tmp_path / "p.txt"])
    assert code == 0, err
    meta = read_metadata(tmp_path / "m.npz")
    return (meta["kernel"]["params"]["gamma"], meta["regparam"], None,
            np.loadtxt(tmp_path / "p.txt"))


LEARN_FACES = {"learner": _learn_learner, "estimator": _learn_estimator,
               "cli": _learn_cli}
LEARN_RTOL = 1e-7           # the gradient search stops at its own tolerance


@functools.lru_cache(maxsize=None)
def _learn_reference(family):
    """The learner's point, checked from scratch: its criterion is the refits' one,
    and no better by refits at gamma or regparam moved by 1 % either way (a local
    minimum)."""
    gamma, lam, criterion, _ = _learned_by_learner(family)
    best = _learning_criterion(family, gamma, lam)
    assert_allclose(criterion, best, rtol=RTOL)
    for g, r in ((gamma * 1.01, lam), (gamma / 1.01, lam), (gamma, lam * 1.01),
                 (gamma, lam / 1.01)):
        assert _learning_criterion(family, g, r) > best
    return gamma, lam


@pytest.mark.parametrize("family", ["rls", "query"])
@pytest.mark.parametrize("face", list(LEARN_FACES))
def test_kernel_learning(face, family, run_cli, tmp_path):
    gamma, lam = _learn_reference(family)
    X, y, Xt = _wave()
    got_gamma, got_lam, _, pred = LEARN_FACES[face](family, run_cli, tmp_path)
    assert_allclose([got_gamma, got_lam], [gamma, lam], rtol=LEARN_RTOL)
    # the face's model is the closed form at the face's own learned point
    Z = np.vstack([X, Xt])
    G = np.exp(-got_gamma * ((Z[:, None] - Z[None]) ** 2).sum(-1))
    ref = _refit(family, G, y, _WAVE_QIDS, np.arange(len(y)), got_lam)(
        len(y) + np.arange(len(Xt)))
    assert_allclose(np.ravel(pred), ref, rtol=RTOL, atol=1e-10)


# ----------------------------------------------------------------------- Kronecker

N1, N2 = 8, 6
ROW_FOLDS, COL_FOLDS = [[0, 2, 5, 7], [1, 3, 4, 6]], [[0, 4, 5], [1, 2, 3]]


@functools.lru_cache(maxsize=None)
def _dyadic():
    """Complete pairwise data: N1 x N2 labels in vec_F order (pair (i, j) at
    i + j N1), linear kernels of both domains, new objects of both domains for the
    test pairs."""
    rng = np.random.default_rng(6)
    X1, X2 = rng.normal(size=(N1 + 3, 3)), rng.normal(size=(N2 + 2, 2))
    Y = (X1[:N1, :1] * X2[:N2, :1].T + 0.3 * rng.normal(size=(N1, N2))).ravel(order="F")
    pairs = np.array([(i, j) for j in range(N2) for i in range(N1)])
    return X1, X2, Y, pairs


def _kron_splits(setting):
    """(train, test) pair positions of each split: A one pair, B one domain-1 object,
    C one domain-2 object, D a block ROW_FOLDS x COL_FOLDS (training without both)."""
    _, _, _, pairs = _dyadic()
    i, j = pairs[:, 0], pairs[:, 1]
    if setting == "A":
        tests = [np.array([t]) for t in range(len(pairs))]
    elif setting in "BC":
        ids = i if setting == "B" else j
        tests = [np.flatnonzero(ids == v) for v in np.unique(ids)]
    else:
        return [(np.flatnonzero(~np.isin(i, R) & ~np.isin(j, C)),
                 np.flatnonzero(np.isin(i, R) & np.isin(j, C)))
                for R in ROW_FOLDS for C in COL_FOLDS]
    return [(np.setdiff1d(np.arange(len(pairs)), t), t) for t in tests]


@functools.lru_cache(maxsize=None)
def _kron_reference(setting):
    """np.kron closed form on every split's training pairs; the estimate is the mean
    over the splits of each split's mean squared error."""
    X1, X2, Y, _ = _dyadic()
    K = np.kron(X2[:N2] @ X2[:N2].T, X1[:N1] @ X1[:N1].T)
    perfs = []
    for lam in GRID:
        errs = []
        for tr, te in _kron_splits(setting):
            a = np.linalg.solve(K[np.ix_(tr, tr)] + lam * np.eye(len(tr)), Y[tr])
            errs.append(_sqerror(Y[te], K[np.ix_(te, tr)] @ a))
        perfs.append(np.mean(errs))
    lam = _choose(perfs, True)
    Kt = np.kron(X2[N2:] @ X2[:N2].T, X1[N1:] @ X1[:N1].T)
    return np.array(perfs), lam, Kt @ np.linalg.solve(K + lam * np.eye(len(Y)), Y)


def _kron_learner(setting):
    """KronRLS's hold-out shortcut of the setting at every grid value (the learner has
    no grid search: the test chooses the first smallest estimate)."""
    from rlscore.learner import KronRLS
    X1, X2, Y, _ = _dyadic()
    L = KronRLS(X1=X1[:N1], X2=X2[:N2], Y=Y, regparam=GRID[0])
    perfs = []
    for lam in GRID:
        L.solve(lam)
        P = {"A": L.in_sample_loo, "B": L.leave_x1_out, "C": L.leave_x2_out,
             "D": lambda: L.out_of_sample_kfold_cv(ROW_FOLDS, COL_FOLDS)}[setting]()
        P = np.ravel(P)
        perfs.append(np.mean([_sqerror(Y[te], P[te]) for _, te in _kron_splits(setting)]))
    lam = _choose(perfs, True)
    L.solve(lam)
    return lam, perfs, L.predict(X1[N1:], X2[N2:])


def _kron_gridsearch(setting):
    """GridSearchCV(PairwiseRLS(kernel="linear")) over the same splits, scored by the
    mean squared error."""
    from sklearn.model_selection import GridSearchCV
    from rlscore.estimators import PairwiseRLS
    X1, X2, Y, pairs = _dyadic()
    search = GridSearchCV(PairwiseRLS(X1, X2, kernel="linear"), {"alpha": GRID},
                          cv=_kron_splits(setting), scoring="neg_mean_squared_error")
    search.fit(pairs, Y)
    test = np.array([(i, j) for j in range(N2, N2 + 2) for i in range(N1, N1 + 3)])
    return (search.best_params_["alpha"], -search.cv_results_["mean_test_score"],
            search.predict(test))


def _kron_estimator(setting):
    """PairwiseRLSCV with the setting's leave-one-out (A pairs, B drugs, C targets)."""
    from rlscore.estimators import PairwiseRLSCV
    X1, X2, Y, pairs = _dyadic()
    cv = {"A": "pairs", "B": "drugs", "C": "targets"}[setting]
    est = PairwiseRLSCV(X1, X2, alphas=GRID, cv=cv, scoring="sqerror").fit(pairs, Y)
    test = np.array([(i, j) for j in range(N2, N2 + 2) for i in range(N1, N1 + 3)])
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(test)


KRON_FACES = {"learner": _kron_learner, "gridsearch": _kron_gridsearch,
              "estimator": _kron_estimator}


# PairwiseRLSCV's setting D holds out GroupKFold's blocks, not this row's ROW_FOLDS x
# COL_FOLDS (tests/estimators/test_pairwise_rls_cv.py holds it against refits)
@pytest.mark.parametrize("face, setting", [
    (face, setting) for face in KRON_FACES for setting in "ABCD"
    if not (face == "estimator" and setting == "D")])
def test_kronecker(face, setting):
    perfs, lam, pred = _kron_reference(setting)
    _check(KRON_FACES[face](setting), perfs, lam, pred)


# --------------------------------------------- per-query LOO / LPO on data with queries

@functools.lru_cache(maxsize=None)
def _per_query_reference(family, cv):
    """On data with query ids, leave-one-out (RLS) or leave-pair-out over the pairs
    within each query, each query scored on its own (c-index), the mean over the
    queries that have a pair; training as the family trains (RLS pointwise, global
    RankRLS over all pairs of the remaining rows, query RankRLS within queries)."""
    X, y, q, Xt = _queries()
    if cv == "loo":
        perfs = _loo_estimates("linear", X, y, measure=lambda a, p: _query_cindex(a, p, q))
    else:
        perfs = _lpo_estimates(family, "linear", X, y, q=q)
    lam = _choose(perfs, False)
    return perfs, lam, _final(family, "linear", X, y, q, Xt, lam)


def _per_query_cli(family, cv, run_cli, tmp_path):
    X, y, q, Xt = _queries()
    return _cli_run(run_cli, tmp_path, X, y, q, Xt, [
        "--learner", {"rls": "rls", "global": "rankrls"}[family], "--cv", cv,
        "--measure", "cindex", "--regparams", ",".join(map(str, GRID)),
        *_kernel_options("linear", "cli")])


def _per_query_estimator(family, cv, run_cli, tmp_path):
    from rlscore.estimators import KernelRLSCV, RankRLSCV
    X, y, q, Xt = _queries()
    est = KernelRLSCV(alphas=GRID, cv=cv, scoring="cindex",
                      **_kernel_options("linear", "estimator")) if family == "rls" else \
        RankRLSCV(alphas=GRID, cv=cv, scoring="cindex",
                  **_kernel_options("linear", "estimator", bias=False))
    est.fit(X, y, qid=q)
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(Xt)


PER_QUERY_FACES = {"cli": _per_query_cli, "estimator": _per_query_estimator}
#: KernelRLSCV takes qid/groups for a splitter only ("regression forms no pairs", its
#: fit docstring): cv="loo" / "lpo" ignore them and score the pooled rows, where the
#: command line on the same file (``--learner rls --cv loo|lpo``, LOOCV / QueryLPOCV
#: with the groups) and RankRLSCV(cv="lpo") with qid score per query, as docs/names.rst
#: states for every estimate with query ids. Found by this matrix; which rule wins
#: (and whether sqerror too is per query, as LOOCV with groups would make it, while
#: the command line pools it) is the lead's call.
PER_QUERY_ROWS = [("rls", "loo", "cli"), ("rls", "lpo", "cli"), ("global", "lpo", "cli"),
                  ("query", "lpo", "estimator"), ("rls", "loo", "estimator"),
                  ("rls", "lpo", "estimator")]


@pytest.mark.parametrize("family,cv,face", PER_QUERY_ROWS)
def test_per_query_loo_lpo(family, cv, face, run_cli, tmp_path):
    perfs, lam, pred = _per_query_reference(family, cv)
    _check(PER_QUERY_FACES[face](family, cv, run_cli, tmp_path), perfs, lam, pred)


# ----------------------------------------------------- Kronecker kernel learning

@functools.lru_cache(maxsize=None)
def _kron_wave():
    """Complete pairwise data (8 x 7 objects, one feature each) whose in-sample
    leave-one-pair-out optimum is inside (gamma1 ~1.34, gamma2 ~0.48, regparam ~0.74)."""
    rng = np.random.default_rng(3)
    X1 = np.round(rng.uniform(-2, 2, size=(8, 1)), 6)
    X2 = np.round(rng.uniform(-2, 2, size=(7, 1)), 6)
    Y = (np.sin(1.5 * X1) @ np.cos(X2).T + 0.3 * rng.normal(size=(8, 7))).ravel(order="F")
    return X1, X2, Y


def _kron_gram(g1, g2):
    X1, X2, _ = _kron_wave()
    return np.kron(np.exp(-g2 * (X2 - X2.T) ** 2), np.exp(-g1 * (X1 - X1.T) ** 2))


def _kron_loo_error(g1, g2, lam):
    """In-sample leave-one-pair-out mean squared error by one refit per pair."""
    _, _, Y = _kron_wave()
    G = _kron_gram(g1, g2)
    m = len(Y)
    r = [Y[t] - _refit("rls", G, Y, None, np.r_[0:t, t + 1:m], lam)([t])[0]
         for t in range(m)]
    return float(np.mean(np.square(r)))


@functools.lru_cache(maxsize=None)
def _kron_learn_learner():
    from rlscore.learner import KronRLS
    X1, X2, Y = _kron_wave()
    L = KronRLS(X1=X1, X2=X2, Y=Y, gamma="learn", kernel="GaussianKernel")
    # with gamma="learn" the model holds the learned kernels: predict takes the
    # test-by-training kernels of the objects
    return (L.gamma1, L.gamma2, L.regparam), L.kernel_learning.criterion, \
        np.ravel(L.predict(L.kernel1.getKM(X1), L.kernel2.getKM(X2)))


def _kron_learn_estimator():
    from rlscore.estimators import PairwiseRLS
    X1, X2, Y = _kron_wave()
    pairs = np.array([(i, j) for j in range(len(X2)) for i in range(len(X1))])
    est = PairwiseRLS(X1, X2, kernel="rbf", gamma="learn").fit(pairs, Y)
    return (est.gamma1_, est.gamma2_, est.alpha_), None, est.predict(pairs)


@pytest.mark.parametrize("face", ["learner", "estimator"])
def test_kronecker_kernel_learning(face):
    point, criterion, _ = _kron_learn_learner()
    # the learner's point from scratch: its criterion is the refits' error, and moving
    # any of the three values by 1 % either way makes that error larger
    best = _kron_loo_error(*point)
    assert_allclose(criterion, best, rtol=RTOL)
    for k in range(3):
        for f in (1.01, 1 / 1.01):
            moved = list(point)
            moved[k] *= f
            assert _kron_loo_error(*moved) > best
    got, _, pred = {"learner": _kron_learn_learner,
                    "estimator": _kron_learn_estimator}[face]()
    assert_allclose(got, point, rtol=LEARN_RTOL)
    _, _, Y = _kron_wave()
    G = _kron_gram(got[0], got[1])
    ref = _refit("rls", G, Y, None, np.arange(len(Y)), got[2])(np.arange(len(Y)))
    assert_allclose(pred, ref, rtol=RTOL, atol=1e-10)
