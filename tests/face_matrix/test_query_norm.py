"""Face matrix (issue 42, see ``__init__.py``): per-query feature normalization --
``rlscore.estimators.QueryNormalizer`` in a Pipeline before RankRLSCV (query ids
routed by scikit-learn's metadata routing) and the command line's ``--query-norm`` --
against every feature normalized within each query by hand (numpy), then query
RankRLS's leave-query-out refits and the refit at the chosen value; test rows are
normalized within their own queries."""

import numpy as np
import pytest

from rlscore.utilities.reader import write_svmlight

from ._common import (_formats, _same_as_dense, EDGE_OK, GRID, _check, _choose, _cli_files, _final,
                      _kfold_estimates, _queries, _query_cindex, _query_folds)

pytestmark = EDGE_OK

METHODS = ("linear", "zscore", "sum")


def _test_qids(n):
    """The test rows in two queries of their own."""
    return np.repeat([500, 501], [n // 2, n - n // 2])


def _normalize_by_hand(X, q, method):
    """Every column within each query: linear (x - min) / (max - min), zscore
    (x - mean) / std (ddof 0), sum x / sum |x|; 0 where the divisor is 0."""
    out = np.zeros_like(X)
    for g in np.unique(q):
        rows = q == g
        B = X[rows]
        if method == "linear":
            lo, span = B.min(0), B.max(0) - B.min(0)
            num, den = B - lo, span
        elif method == "zscore":
            num, den = B - B.mean(0), B.std(0)
        else:
            num, den = B, np.abs(B).sum(0)
        out[rows] = np.divide(num, den, out=np.zeros_like(num), where=den != 0)
    return out


def _reference(method):
    X, y, q, Xt = _queries()
    Xn, Xtn = _normalize_by_hand(X, q, method), \
        _normalize_by_hand(Xt, _test_qids(len(Xt)), method)
    perfs = _kfold_estimates("query", "linear", Xn, y, q, _query_folds(q, "lqo"),
                             _query_cindex)
    lam = _choose(perfs, False)
    return perfs, lam, _final("query", "linear", Xn, y, q, Xtn, lam)


def _pipeline(method, fmt=None, **_):
    import sklearn
    from sklearn.pipeline import make_pipeline
    from rlscore.estimators import QueryNormalizer, RankRLSCV
    X, y, q, Xt = _queries()
    X, Xt = _formats(X, Xt, fmt)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(
            QueryNormalizer(method).set_transform_request(qid=True),
            RankRLSCV(alphas=GRID, cv="lqo", scoring="cindex",
                      kernel="linear").set_fit_request(qid=True))
        pipe.fit(X, y, qid=q)
        pred = pipe.predict(Xt, qid=_test_qids(Xt.shape[0]))
    est = pipe[-1]
    return est.alpha_, est.cv_results_["cv_performances"], pred


def _cli(method, run_cli, tmp_path):
    X, y, q, Xt = _queries()
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    write_svmlight(train, X, y, q)
    write_svmlight(test, Xt, np.zeros(len(Xt)), _test_qids(len(Xt)))
    return _cli_files(run_cli, tmp_path, train, test, [
        "--learner", "query-rankrls", "--regparams", ",".join(map(str, GRID)), "--cv",
        "lqo", "--measure", "cindex", "--kernel", "linear", "--bias", "0",
        "--query-norm", method])[:3]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("face", ["pipeline", "cli"])
def test_query_norm(face, method, run_cli, tmp_path):
    perfs, lam, pred = _reference(method)
    got = {"pipeline": _pipeline, "cli": _cli}[face](method, run_cli=run_cli,
                                                     tmp_path=tmp_path)
    _check(got, perfs, lam, pred)


@pytest.mark.parametrize("method", METHODS)
def test_query_norm_pipeline_csr(method):
    """CSR input to the pipeline (the normalizer densifies it): the dense pipeline's
    choice, estimates and predictions, and the brute force's."""
    perfs, lam, pred = _reference(method)
    got = _pipeline(method, fmt="csr")
    _check(got, perfs, lam, pred)
    _same_as_dense(got, _pipeline(method))
