"""The three faces give the same numbers: the command line (``rlscore fit / predict /
evaluate / cv``), the RLScore-compatible learners and the scikit-learn estimators,
trained with the same regparam / alpha on one LETOR-format file (queries, graded labels
0-2, 10 features); and progress reporting (``--progress``, ``verbose=True``) never
changes a number."""

import json

import numpy as np
import pytest

from rlscore.cli import main
from rlscore.estimators import KernelRLS, KernelRLSCV, RankRLS, RankRLSCV, RankSVM
from rlscore.learner import (LeaveOneOutRLS, LeaveQueryOutRankRLS, LinearRankSVM,
                             QueryRankRLS, RLS)
from rlscore.measure import cindex, mean_average_precision, ndcg
from rlscore.utilities.reader import write_svmlight

LAM = 0.5
GRID = [0.01, 0.1, 1.0, 10.0]


def _letor(rng, n_queries, per_query, w):
    X = rng.normal(size=(n_queries * per_query, w.size))
    s = X @ w + 0.5 * rng.normal(size=X.shape[0])
    y = np.digitize(s, np.quantile(s, [0.5, 0.8])).astype(float)      # grades 0, 1, 2
    return X, y, np.repeat(np.arange(n_queries) * 7 + 3, per_query)


@pytest.fixture(scope="module")
def letor(tmp_path_factory):
    rng = np.random.default_rng(1)
    w = rng.normal(size=10)
    X, y, q = _letor(rng, 10, 8, w)
    Xt, yt, qt = _letor(rng, 4, 12, w)             # 12 per query: NDCG@10 is defined
    d = tmp_path_factory.mktemp("faces")
    write_svmlight(d / "train.txt", X, y, q)
    write_svmlight(d / "test.txt", Xt, yt, qt)
    return X, y, q, Xt, yt, qt, d


def _cli(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "Traceback" not in out.err
    return out.out, out.err


FACES = {
    "query-rankrls": (lambda X, y, q: QueryRankRLS(X, y, q, regparam=LAM),
                      lambda X, y, q: RankRLS(alpha=LAM).fit(X, y, qid=q), 1e-10),
    "rls": (lambda X, y, q: RLS(X, y, regparam=LAM),
            lambda X, y, q: KernelRLS(alpha=LAM).fit(X, y), 1e-10),
    "ranksvm": (lambda X, y, q: LinearRankSVM(X, y, q, regparam=LAM),
                lambda X, y, q: RankSVM(alpha=LAM).fit(X, y, qid=q), 1e-8),
}


@pytest.mark.parametrize("name", list(FACES))
def test_cli_learner_and_estimator_predict_and_measure_the_same(name, letor, capsys):
    X, y, q, Xt, yt, qt, d = letor
    make_learner, make_estimator, tol = FACES[name]
    model, pred = d / f"{name}.npz", d / f"{name}.pred"
    _cli(["fit", d / "train.txt", "-o", model, "--learner", name, "--regparam", LAM],
         capsys)
    _cli(["predict", model, d / "test.txt", "-o", pred], capsys)
    p_cli = np.loadtxt(pred)
    p_learner = np.ravel(make_learner(X, y, q).predict(Xt))
    p_est = make_estimator(X, y, q).predict(Xt)
    np.testing.assert_allclose(p_cli, p_learner, rtol=0, atol=tol)
    np.testing.assert_allclose(p_est, p_learner, rtol=0, atol=tol)
    out, _ = _cli(["evaluate", model, d / "test.txt", "--measure", "ndcg@10,map,cindex",
                   "--format", "json"], capsys)
    printed = json.loads(out)
    expected = {"ndcg@10": ndcg(yt, p_learner, qt, k=10),
                "map": mean_average_precision(yt, p_learner, qt),
                "cindex": cindex(yt, p_learner, qt)}
    assert 0 < expected["ndcg@10"] < 1                  # a real value, not the 0 of
    for key, value in expected.items():                 # LETOR's short-query rule
        assert printed[key] == pytest.approx(value, abs=1e-12)


def _cv_table(out):
    """The measure column of ``rlscore cv``'s table."""
    return np.array([float(line.split()[1]) for line in out.splitlines()[2:]])


def _cv_json(argv, capsys):
    """``rlscore cv ... --format json``: the measure per regparam at full precision."""
    out, _ = _cli([*argv, "--format", "json"], capsys)
    result = json.loads(out)
    assert result["regparams"] == [float(g) for g in argv[argv.index("--regparams") + 1]
                                   .split(",")]
    return np.array(result["cv_performances"]), result


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_cv_table_matches_the_selection_learners_and_estimators(letor, capsys):
    X, y, q, _, _, _, d = letor
    grid = ",".join(map(str, GRID))
    out, _ = _cli(["cv", d / "train.txt", "--learner", "query-rankrls", "--regparams",
                   grid, "--cv", "lqo"], capsys)
    lqo = LeaveQueryOutRankRLS(X, y, q, regparams=GRID, measure=cindex)
    est = RankRLSCV(alphas=GRID, cv="lqo").fit(X, y, qid=q)
    np.testing.assert_allclose(est.cv_results_["cv_performances"], lqo.cv_performances,
                               rtol=0, atol=1e-12)
    # the table prints 6 decimals, the JSON all of them
    np.testing.assert_allclose(_cv_table(out), lqo.cv_performances, rtol=0, atol=5e-7)
    perfs, result = _cv_json(["cv", d / "train.txt", "--learner", "query-rankrls",
                              "--regparams", grid, "--cv", "lqo"], capsys)
    np.testing.assert_allclose(perfs, lqo.cv_performances, rtol=0, atol=1e-12)
    assert result["regparam"] == lqo.regparam and result["measure"] == "cindex"
    assert result["per_query"] and result["higher_is_better"]
    out, _ = _cli(["cv", d / "train.txt", "--learner", "rls", "--regparams", grid,
                   "--cv", "loo"], capsys)
    loo = LeaveOneOutRLS(X, y, regparams=GRID)
    est = KernelRLSCV(alphas=GRID, cv="loo").fit(X, y)
    np.testing.assert_allclose(est.cv_results_["cv_performances"], loo.cv_performances,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(_cv_table(out), loo.cv_performances, rtol=0, atol=5e-7)
    perfs, result = _cv_json(["cv", d / "train.txt", "--learner", "rls", "--regparams",
                              grid, "--cv", "loo"], capsys)
    np.testing.assert_allclose(perfs, loo.cv_performances, rtol=0, atol=1e-12)
    assert result["regparam"] == loo.regparam and not result["higher_is_better"]


def test_ranksvm_leave_query_out_table_equals_retraining(letor, capsys):
    X, y, q, _, _, _, d = letor
    out, _ = _cli(["cv", d / "train.txt", "--learner", "ranksvm", "--regparams",
                   "0.1,1", "--cv", "lqo"], capsys)
    expected = []
    for lam in (0.1, 1.0):
        P = np.empty(y.size)
        for qq in np.unique(q):
            test = q == qq
            P[test] = LinearRankSVM(X[~test], y[~test], q[~test],
                                    regparam=lam).predict(X[test])
        expected.append(np.mean([cindex(y[q == qq], P[q == qq]) for qq in np.unique(q)]))
    np.testing.assert_allclose(_cv_table(out), expected, rtol=0, atol=5e-7)
    perfs, _ = _cv_json(["cv", d / "train.txt", "--learner", "ranksvm", "--regparams",
                         "0.1,1", "--cv", "lqo"], capsys)
    np.testing.assert_allclose(perfs, expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", list(FACES))
def test_progress_and_verbose_report_but_change_nothing(name, letor, capsys):
    X, y, q, Xt, _, _, d = letor
    make_learner, make_estimator, _ = FACES[name]
    paths = {}
    for flag in ("--no-progress", "--progress"):
        paths[flag] = d / f"{name}{flag}.pred"
        _, err = _cli(["fit", d / "train.txt", "-o", d / f"{name}{flag}.npz", "--learner",
                       name, "--regparam", LAM, flag], capsys)
        if flag == "--progress":
            assert f"rlscore: training {name}: started" in err
            assert f"rlscore: training {name}: done in" in err
        else:
            assert err == ""
        _cli(["predict", d / f"{name}{flag}.npz", d / "test.txt", "-o", paths[flag],
              flag], capsys)
    assert (np.loadtxt(paths["--progress"]) == np.loadtxt(paths["--no-progress"])).all()
    quiet = make_learner(X, y, q).predict(Xt)
    capsys.readouterr()
    import rlscore.learner as L
    cls = type(make_learner(X, y, q))
    args = (X, y) if cls is L.RLS else (X, y, q)
    loud = cls(*args, regparam=LAM, verbose=True).predict(Xt)
    assert capsys.readouterr().err != ""
    assert np.array_equal(quiet, loud)
    est = make_estimator(X, y, q)
    loud_est = type(est)(**{**est.get_params(), "verbose": True})
    loud_est = loud_est.fit(X, y) if name == "rls" else loud_est.fit(X, y, qid=q)
    assert capsys.readouterr().err != ""
    assert np.array_equal(est.predict(Xt), loud_est.predict(Xt))
