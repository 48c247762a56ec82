"""Where faces meet (issue 35 items 1, 3, 5-11; issue 30's auc contract): every face
compared with a brute-force computation on the same data -- refits without the held-out
rows or pairs, measures counted by hand (the conftest references).

Each test failed on the code before the fix: pooled scores under a "per query" label,
silent all-zero NDCG selections, AttributeErrors, the CLI refusing regparam 0, two rows
marked best, save_model refusing fitted estimators, names one face took and another did
not, PNG bytes in a .pdf, an index-vector message for a kernel of the wrong width, and
auc accepting 0/1 against RLScore's contract.
"""

import json
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from rlscore import measure as M
from rlscore.learner import (RLS, GlobalRankRLS, LeaveOneOutRLS, LeaveQueryOutRankRLS,
                             QueryRankRLS)
from rlscore.measure import ShortQueryWarning, UndefinedPerformance
from rlscore.utilities.reader import write_svmlight

RTOL = 1e-9


@pytest.fixture
def qfile(tmp_path):
    """Queries of unequal sizes (so pooled, per-pair and per-query means all differ),
    graded labels with ties, written as a LETOR file; (path, X, y, qids)."""
    rng = np.random.default_rng(5)
    sizes = [3, 5, 7, 4, 6]
    qids = np.repeat(np.arange(len(sizes)), sizes)
    m = qids.size
    X = np.round(rng.normal(size=(m, 3)), 4)
    y = np.round(np.clip(X[:, 0] + 0.7 * rng.normal(size=m), -1, 2.9)).astype(float) + 1
    y[qids == 4] = [0, 1, 1, 2, 3, 3]
    path = tmp_path / "q.txt"
    write_svmlight(path, X, y, qids=qids)
    return path, X, y, qids


def _per_query_mean(values):
    values = [v for v in values if v is not None]
    return float(np.mean(values))


def _refit_loo(X, y, lam, learner=RLS):
    m = len(y)
    out = np.empty(m)
    for i in range(m):
        keep = np.r_[0:i, i + 1:m]
        out[i] = np.ravel(learner(X[keep], y[keep], regparam=lam).predict(X[i:i + 1]))[0]
    return out


def _refit_lpo_per_query(lpo_by_refit, X, y, qids, lam, learner=RLS):
    """Per query, the fraction of its pairs with different labels that the model
    retrained without the pair orders as the labels (ties 1/2); the mean over the
    queries that have a pair (the conftest reference, per query)."""
    keep = lambda i, j: np.setdiff1d(np.arange(len(y)), [i, j])          # noqa: E731
    return lpo_by_refit(y, lambda i, j: np.ravel(
        learner(X[keep(i, j)], y[keep(i, j)], regparam=lam).predict(X[[i, j]])),
        qid=qids, per_query=True)


# ----------------------------------------------------------------- item 1: per query

def test_cli_loo_on_qids_is_per_query(qfile, run_cli, cindex_by_hand, letor_by_hand):
    path, X, y, qids = qfile
    grid = [0.1, 3.0]
    code, out, err = run_cli(["cv", path, "--learner", "rls", "--cv", "loo", "--measure",
                             "cindex", "--regparams", "0.1,3", "--format", "json"])
    assert code == 0, err
    res = json.loads(out)
    assert res["per_query"] is True and res["measure"] == "cindex"
    brute = []
    for lam in grid:
        P = _refit_loo(X, y, lam)
        brute.append(_per_query_mean(cindex_by_hand(y[qids == q], P[qids == q])
                                     for q in np.unique(qids)))
        assert brute[-1] != pytest.approx(cindex_by_hand(y, P))      # pooled differs
    assert_allclose(res["cv_performances"], brute, rtol=RTOL)
    # NDCG@3 of the leave-one-out predictions, query by query (LETOR 4.0 rules)
    code, out, err = run_cli(["cv", path, "--learner", "rls", "--cv", "loo", "--measure",
                             "ndcg@3", "--regparams", "0.1,3", "--format", "json"])
    assert code == 0, err
    brute = [letor_by_hand(y, _refit_loo(X, y, lam), qids, 3)[0] for lam in grid]
    assert_allclose(json.loads(out)["cv_performances"], brute, rtol=RTOL)


@pytest.mark.parametrize("learner,option", [(RLS, "rls"), (GlobalRankRLS, "rankrls")])
def test_cli_lpo_on_qids_is_over_pairs_within_queries(qfile, run_cli, learner, option,
                                                      lpo_by_refit):
    path, X, y, qids = qfile
    grid = [0.1, 3.0]
    code, out, err = run_cli(["cv", path, "--learner", option, "--cv", "lpo", "--regparams",
                             "0.1,3", "--format", "json"])
    assert code == 0, err
    res = json.loads(out)
    # graded labels: the pairwise accuracy is a c-index, not an "auc"
    assert res["per_query"] is True and res["measure"] == "cindex"
    brute = [_refit_lpo_per_query(lpo_by_refit, X, y, qids, lam, learner) for lam in grid]
    assert_allclose(res["cv_performances"], brute, rtol=1e-8)
    code, out, err = run_cli(["cv", path, "--learner", option, "--cv", "lpo", "--regparams",
                             "0.1,3"])
    assert code == 0 and "cindex per query" in out.splitlines()[0]
    # --measure auc is refused on graded labels (it would name a c-index "auc")
    code, _, err = run_cli(["cv", path, "--learner", option, "--cv", "lpo", "--measure",
                           "auc", "--regparams", "0.1,3"])
    assert code == 2 and "--measure cindex" in err


@pytest.mark.parametrize("cv", ["loo", "lpo"])
def test_cli_per_query_cv_undefined_is_a_data_error(tmp_path, run_cli, cv):
    f = tmp_path / "tied.txt"          # every query has all its labels tied
    f.write_text("1 qid:1 1:1 2:1\n1 qid:1 1:1 2:0\n2 qid:2 1:0.5 2:3\n"
                 "2 qid:2 1:0.2 2:3\n0 qid:3 1:3 2:3\n")
    code, _, err = run_cli(["cv", f, "--cv", cv, "--measure", "cindex", "--regparams", "1"])
    assert code == 1 and f"the {cv} estimate of cindex is undefined" in err


def test_cli_lpo_auc_on_binary_labels_per_query(qfile, run_cli, lpo_by_refit):
    path, X, y, qids = qfile
    yb = np.where(y > 1.5, 1.0, 0.0)
    write_svmlight(path, X, yb, qids=qids)
    code, out, err = run_cli(["cv", path, "--learner", "rls", "--cv", "lpo", "--regparams",
                             "0.5", "--format", "json"])
    assert code == 0, err
    res = json.loads(out)
    assert res["measure"] == "auc"
    assert_allclose(res["cv_performances"], [_refit_lpo_per_query(lpo_by_refit, X, yb, qids, 0.5)],
                    rtol=1e-8)


def test_rankrlscv_lpo_with_queries_is_per_query(qfile, lpo_by_refit):
    """RankRLSCV(cv="lpo") with query ids: the same per-query rule (queries of unequal
    pair counts make it differ from the pooled fraction)."""
    pytest.importorskip("sklearn")
    from rlscore.estimators import RankRLS, RankRLSCV
    _, X, y, qids = qfile
    alphas = [0.05, 2.0]
    est = RankRLSCV(alphas=alphas, cv="lpo").fit(X, y, qid=qids)

    def refit(a):
        def pair(i, j):
            keep = np.setdiff1d(np.arange(len(y)), [i, j])
            return RankRLS(alpha=a).fit(X[keep], y[keep], qid=qids[keep]).predict(X[[i, j]])
        return pair

    brute = [lpo_by_refit(y, refit(a), qid=qids, per_query=True) for a in alphas]
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=1e-8)


# ------------------------------------------------------------ item 3: short queries

def test_ndcg_short_queries_warn_once_in_every_python_face(letor_by_hand):
    pytest.importorskip("sklearn")
    from rlscore.estimators import RankRLSCV
    rng = np.random.default_rng(3)
    qids = np.repeat(np.arange(6), 7)
    X = rng.normal(size=(42, 4))
    y = np.clip(np.round(X[:, 0] + rng.normal(size=42)), 0, 3)
    with pytest.warns(ShortQueryWarning) as rec:
        est = RankRLSCV(alphas=[0.01, 1, 100], cv="lqo", scoring="ndcg").fit(X, y, qid=qids)
    short = [w for w in rec if issubclass(w.category, ShortQueryWarning)]
    assert len(short) == 1 and "6 of 6 queries have fewer than 10 documents" in \
        str(short[0].message) and "'ndcg@7'" in str(short[0].message)
    assert np.all(est.cv_results_["cv_performances"] == 0.0)
    with pytest.warns(ShortQueryWarning) as rec:
        sel = LeaveQueryOutRankRLS(X, y, qids, regparams=[0.01, 1, 100], measure=M.ndcg)
    assert sum(issubclass(w.category, ShortQueryWarning) for w in rec) == 1
    assert np.all(sel.cv_performances == 0.0)
    # the cutoff the warning suggests scores them: leave-query-out NDCG@7 by refits
    with warnings.catch_warnings():
        warnings.simplefilter("error", ShortQueryWarning)
        est = RankRLSCV(alphas=[0.01, 1, 100], cv="lqo", scoring="ndcg@7").fit(X, y,
                                                                              qid=qids)
    brute = []
    for a in [0.01, 1, 100]:
        P = np.empty(42)
        for q in range(6):
            tr, te = qids != q, qids == q
            P[te] = QueryRankRLS(X[tr], y[tr], qids[tr], regparam=a).predict(X[te])
        brute.append(letor_by_hand(y, P, qids, 7)[0])
    assert_allclose(est.cv_results_["cv_performances"], brute, rtol=RTOL)
    # a plain call warns once per call, naming the count
    with pytest.warns(ShortQueryWarning, match="6 of 6 queries"):
        M.ndcg(y, X[:, 0], qids, k=10)


# --------------------------------------------------------------- item 5: qids=None

@pytest.mark.parametrize("cls", [QueryRankRLS, LeaveQueryOutRankRLS])
def test_query_learners_refuse_qids_none(cls):
    X, y = np.random.default_rng(0).normal(size=(10, 2)), np.arange(10.0)
    with pytest.raises(ValueError, match="qids is None"):
        cls(X, y, None)


# ------------------------------------------------------ items 6-8: CLI options

def test_cli_regparam_zero_equals_least_squares(tmp_path, run_cli):
    from rlscore.model_io import load_model
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 3)), rng.normal(size=20)
    write_svmlight(tmp_path / "t.txt", X, y)
    code, _, err = run_cli(["fit", tmp_path / "t.txt", "-o", tmp_path / "m.npz",
                            "--regparam", "0", "--bias", "0"])
    assert code == 0, err
    w, *_ = np.linalg.lstsq(X, y, rcond=None)
    assert_allclose(np.ravel(load_model(tmp_path / "m.npz").W), w, rtol=1e-9)
    code, out, err = run_cli(["cv", tmp_path / "t.txt", "--regparams", "0,1", "--cv", "loo",
                             "--bias", "0", "--format", "json"])
    assert code == 0, err
    brute = []
    for lam in (0.0, 1.0):
        P = np.empty(20)
        for i in range(20):
            keep = np.r_[0:i, i + 1:20]
            A = X[keep].T @ X[keep] + lam * np.eye(3)
            P[i] = X[i] @ np.linalg.solve(A, X[keep].T @ y[keep])
        brute.append(np.mean((y - P) ** 2))
    assert_allclose(json.loads(out)["cv_performances"], brute, rtol=1e-9)


def test_cli_zero_based_no_names_the_option(tmp_path, run_cli):
    f = tmp_path / "zero.txt"
    f.write_text("1 0:1 1:2\n-1 0:0.5 2:1\n1 1:3 2:1\n")
    code, _, err = run_cli(["fit", f, "-o", tmp_path / "m.npz", "--zero-based", "no"])
    assert code == 1 and "--zero-based yes or auto" in err and "zero_based=" not in err


def test_repeated_grid_values_are_refused_by_every_face(tmp_path, run_cli):
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 3)), rng.normal(size=20)
    write_svmlight(tmp_path / "t.txt", X, y)
    code, out, err = run_cli(["cv", tmp_path / "t.txt", "--regparams", "1,1"])
    assert code == 2 and "twice" in err and "<- best" not in out
    code, _, err = run_cli(["cv", tmp_path / "t.txt", "--regparams", "2^-1..2^1,1"])
    assert code == 2 and "twice" in err
    with pytest.raises(ValueError, match="regparams gives the value 1 twice"):
        LeaveOneOutRLS(X, y, regparams=[1.0, 2.0, 1])


# ------------------------------------------------------------- item 9: save_model

def test_save_model_takes_fitted_estimators(tmp_path):
    pytest.importorskip("sklearn")
    from sklearn.kernel_ridge import KernelRidge

    import rlscore.estimators as E
    from rlscore.model_io import load_model, save_model
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(30, 4)), rng.normal(size=30)
    Xt = rng.normal(size=(7, 4))
    est = E.KernelRLS(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, y)
    save_model(est, tmp_path / "k.npz")
    pred, meta = load_model(tmp_path / "k.npz", return_metadata=True)
    assert meta["learner"] == "KernelRLS" and meta["predictor"] == "KernelPredictor"
    ref = KernelRidge(alpha=0.5, kernel="rbf", gamma=0.3).fit(X, y).predict(Xt)
    assert_allclose(pred.predict(Xt), ref, rtol=1e-8)
    assert_allclose(pred.predict(Xt), est.predict(Xt), rtol=1e-12)
    for e in (E.KernelRLSCV(alphas=[0.1, 1.0]).fit(X, y), E.RankRLS().fit(X, y),
              E.CGRLSRegressor(alpha=1.0).fit(X, y), E.RankSVM().fit(X, y)):
        save_model(e, tmp_path / "e.npz")
        assert_allclose(load_model(tmp_path / "e.npz").predict(Xt), e.predict(Xt),
                        rtol=1e-12, atol=1e-14)
    with pytest.raises(TypeError, match="unfitted KernelRLS"):
        save_model(E.KernelRLS(), tmp_path / "u.npz")


# ------------------------------------------------------- item 10: measure names

@pytest.mark.parametrize("name,function,kw", [
    ("map", M.mean_average_precision, {}),
    ("mean_average_precision", M.mean_average_precision, {}),
    ("p@5", M.precision_at_k, {"k": 5}),
    ("precision_at_k", M.precision_at_k, {"k": 10}),
    ("ndcg@5", M.ndcg, {"k": 5}),
    ("ndcg", M.ndcg, {"k": 10}),
    ("ndcg@3:standard", M.ndcg, {"k": 3, "convention": "standard"}),
    ("meanndcg", M.mean_ndcg, {}),
    ("cindex", M.cindex, {}),
])
def test_one_table_of_measure_names(name, function, kw, letor_by_hand):
    rng = np.random.default_rng(8)
    qids = np.repeat(np.arange(4), 6)
    y = rng.integers(0, 3, 24).astype(float)
    p = rng.normal(size=24)
    named = M.measure_by_name(name)
    assert named(y, p, qids) == function(y, p, qids, **kw)
    if name in ("map", "mean_average_precision"):
        assert named(y, p, qids) == pytest.approx(letor_by_hand(y, p, qids, 5)[2])
    if name == "p@5":
        assert named(y, p, qids) == pytest.approx(letor_by_hand(y, p, qids, 5)[1])


@pytest.mark.parametrize("name", ["p@5", "map", "kendall", "kendall_tau_b",
                                  "precision_at_k", "mean_average_precision", "ndcg@5"])
def test_estimators_and_cli_take_the_same_names(name, qfile, run_cli, letor_by_hand):
    """The CLI and the estimators' scoring take every name of the table; the estimator's
    leave-query-out estimate equals refits scored by hand."""
    pytest.importorskip("sklearn")
    from rlscore.estimators import RankRLSCV
    path, X, y, qids = qfile
    alphas = [0.1, 10.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ShortQueryWarning)
        est = RankRLSCV(alphas=alphas, cv="lqo", scoring=name).fit(X, y, qid=qids)
        code, out, err = run_cli(["cv", path, "--learner", "query-rankrls", "--cv", "lqo",
                                 "--measure", name, "--regparams", "0.1,10", "--format",
                                 "json"])
    assert code == 0, err
    brute = []
    for a in alphas:
        P = np.empty(len(y))
        for q in np.unique(qids):
            tr, te = qids != q, qids == q
            P[te] = QueryRankRLS(X[tr], y[tr], qids[tr], regparam=a).predict(X[te])
        if name.startswith("kendall"):
            brute.append(M.kendall_tau_b(y, P))        # over the whole file (CLI)
            est_value = M.query_kendall_tau_b(y, P, qids)   # per query (estimators)
        else:
            k = 5 if "5" in name else 10
            nd, pk, ap, _ = letor_by_hand(y, P, qids, k)
            brute.append({"p": pk, "m": ap, "n": nd}[name[0]])
            est_value = brute[-1]
        assert est.cv_results_["cv_performances"][alphas.index(a)] == pytest.approx(
            est_value, rel=1e-9)
    assert_allclose(json.loads(out)["cv_performances"], brute, rtol=1e-9)


def test_unknown_names_list_the_table():
    with pytest.raises(ValueError, match="ndcg@K.*kendall_tau_b"):
        M.measure_by_name("ndgc@5")
    with pytest.raises(ValueError, match="only ndcg takes a convention"):
        M.measure_by_name("p@5:standard")


# --------------------------------------------------------------------- item 11

@pytest.mark.parametrize("suffix,magic", [("pdf", b"%PDF"), ("svg", b"<?xml"),
                                          ("png", b"\x89PNG")])
def test_cli_plot_honours_the_suffix(tmp_path, run_cli, suffix, magic):
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 3)), rng.normal(size=20)
    write_svmlight(tmp_path / "t.txt", X, y)
    out = tmp_path / f"cv.{suffix}"
    code, _, err = run_cli(["cv", tmp_path / "t.txt", "--regparams", "1e-3,1e-2,1e-1",
                           "--plot", out, "-q"])
    assert code == 0, err
    assert out.read_bytes().startswith(magic)
    code, _, err = run_cli(["cv", tmp_path / "t.txt", "--regparams", "1", "--plot",
                           tmp_path / "cv.nope"])
    assert code == 2 and ".pdf" in err and not (tmp_path / "cv.nope").exists()


def test_edge_note_stays_inside_the_figure():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rlscore.plot import cv_curve
    grid = [1e-3, 1e-2, 1e-1]
    fig = cv_curve(grid, [3.0, 2.0, 1.0], chosen=(0.1, 1.0), measure="sqerror",
                   warn=False)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    title = fig.axes[0].title
    assert "edge of the grid" in title.get_text()
    box, frame = title.get_window_extent(renderer), fig.bbox
    assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and box.y1 <= frame.y1
    plt.close(fig)


def test_pairwise_kernel_of_wrong_width_names_columns():
    from rlscore.learner import KronRLS
    rng = np.random.default_rng(0)
    K1 = rng.normal(size=(5, 5))
    K2 = rng.normal(size=(4, 4))
    K1, K2 = K1 @ K1.T + np.eye(5), K2 @ K2.T + np.eye(4)
    Y = rng.normal(size=(5, 4))
    learner = KronRLS(K1=K1, K2=K2, Y=Y, regparam=1.0)
    with pytest.raises(ValueError, match="K1pred has 3 columns, but the model was "
                                         "trained on 5 objects of domain 1"):
        learner.predict(K1[:, :3], K2)
    with pytest.raises(ValueError, match="K2pred has 2 columns.* 4 objects of domain 2"):
        learner.predict(K1, K2[:, :2])
    # the right widths: the explicit Kronecker system (F order, domain 1 fastest)
    K = np.kron(K2, K1)
    ref = RLS(K, Y.ravel(order="F"), regparam=1.0, kernel="PrecomputedKernel").predict(K)
    assert_allclose(learner.predict(K1, K2), ref, rtol=1e-8)


def test_repair_kernel_name_is_optional():
    from rlscore.core.kronecker import repair_kernel
    K = np.array([[1.0, 2.0], [2.0, 1.0]])                  # eigenvalues -1 and 3
    with pytest.warns(UserWarning):
        R, (lo, hi) = repair_kernel(K, "shift")
    assert_allclose(R, K + np.eye(2)) and lo == 0.0


# -------------------------------------------------- issue 30: RLScore's auc contract

def test_auc_keeps_rlscore_contract_and_faces_take_zero_one(run_cli, tmp_path):
    """RLScore's test_measure/test_auc.py: labels other than -1/+1 raise
    UndefinedPerformance (``auc([1, 0, 0], [1, 0, 0])``); the measure named "auc" (the
    CLI, the estimators' scoring) and ``zero_one=True`` take 0/1 and booleans, equal to
    the AUC by its pair definition."""
    with pytest.raises(UndefinedPerformance, match="zero_one=True"):
        M.auc([1, 0, 0], [1, 0, 0])
    rng = np.random.default_rng(1)
    y01 = rng.integers(0, 2, 40)
    p = rng.normal(size=40)
    pos, neg = p[y01 == 1], p[y01 == 0]
    by_pairs = np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg])
    for labels in (y01, y01.astype(bool), 2 * y01 - 1):
        assert M.measure_by_name("auc")(labels, p) == pytest.approx(by_pairs, rel=1e-14)
        assert M.auc(labels, p, zero_one=True) == pytest.approx(by_pairs, rel=1e-14)
    assert M.auc(2 * y01 - 1, p) == pytest.approx(by_pairs, rel=1e-14)
    # the command line: --measure auc on a 0/1 file
    X = rng.normal(size=(40, 3))
    write_svmlight(tmp_path / "b.txt", X, y01.astype(float))
    code, out, err = run_cli(["cv", tmp_path / "b.txt", "--regparams", "1", "--cv", "loo",
                             "--measure", "auc", "--format", "json"])
    assert code == 0, err
    P = _refit_loo(X, y01.astype(float), 1.0)
    pos, neg = P[y01 == 1], P[y01 == 0]
    brute = np.mean([1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg])
    assert_allclose(json.loads(out)["cv_performances"], [brute], rtol=1e-9)
