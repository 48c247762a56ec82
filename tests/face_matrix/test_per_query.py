"""Face matrix (issue 42, see ``__init__.py``): Per-query LOO and LPO on data with query
ids (RLS, global and query RankRLS): the CLI and the estimators score every query on its
own."""

import functools

import pytest

from ._common import (EDGE_OK, GRID, _check, _choose, _cli_run, _final, _formats,
                      _kernel_options, _loo_estimates, _lpo_estimates, _memo, _queries,
                      _query_cindex, _same_as_dense)

pytestmark = EDGE_OK


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


def _per_query_estimator(family, cv, run_cli=None, tmp_path=None, fmt=None):
    from rlscore.estimators import KernelRLSCV, RankRLSCV
    X, y, q, Xt = _queries()
    X, Xt = _formats(X, Xt, fmt)
    est = KernelRLSCV(alphas=GRID, cv=cv, scoring="cindex",
                      **_kernel_options("linear", "estimator")) if family == "rls" else \
        RankRLSCV(alphas=GRID, cv=cv, scoring="cindex",
                  **_kernel_options("linear", "estimator", bias=False))
    est.fit(X, y, qid=q)
    return est.alpha_, est.cv_results_["cv_performances"], est.predict(Xt)


PER_QUERY_FACES = {"cli": _per_query_cli, "estimator": _memo(_per_query_estimator)}
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



@pytest.mark.parametrize("family,cv", [(f, cv) for f, cv, face in PER_QUERY_ROWS
                                       if face == "estimator"])
def test_per_query_loo_lpo_csr(family, cv):
    perfs, lam, pred = _per_query_reference(family, cv)
    got = PER_QUERY_FACES["estimator"](family, cv, fmt="csr")
    _check(got, perfs, lam, pred)
    _same_as_dense(got, PER_QUERY_FACES["estimator"](family, cv))
