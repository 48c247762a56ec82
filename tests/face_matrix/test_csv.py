"""Face matrix (issue 42, see ``__init__.py``): the command line on a CSV file
(``--input-format csv``, docs/cli.rst) against the same data as an svmlight file --
the same estimates, the same choice, the same model arrays and the same test
predictions, bit for bit as the docs promise -- and both against the refits: RLS
K-fold, global RankRLS K-fold and query RankRLS leave-query-out."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from rlscore.utilities.cross_validation import random_folds
from rlscore.utilities.reader import write_svmlight

from ._common import (EDGE_OK, GRID, K_FOLDS, SEED, _check, _choose, _cindex,
                      _cli_files, _final, _kernel_options, _kfold_estimates, _queries,
                      _query_cindex, _query_folds, _regression, _sqerror)

pytestmark = EDGE_OK

#: (learner, kernel, cv, measure)
CSV_ROWS = [("rls", "linear", "kfold", "sqerror"),
            ("rankrls", "gaussian", "kfold", "cindex"),
            ("query-rankrls", "linear", "lqo", "cindex")]


def _data(learner):
    if learner == "rls":
        X, y, Xt = _regression()
        return X, y, None, Xt
    X, y, q, Xt = _queries()
    return X, y, (q if learner == "query-rankrls" else None), Xt


def _reference(learner, kernel, cv):
    X, y, q, Xt = _data(learner)
    if learner == "rls":
        family, folds, measure = "rls", random_folds(len(y), K_FOLDS, seed=SEED), \
            (lambda a, b, _: _sqerror(a, b))
    elif learner == "rankrls":
        family, folds, measure = "global", random_folds(len(y), K_FOLDS, seed=SEED), \
            (lambda a, b, _: _cindex(a, b))
    else:
        family, folds, measure = "query", _query_folds(q, "lqo"), _query_cindex
    perfs = _kfold_estimates(family, kernel, X, y, q, folds, measure)
    lam = _choose(perfs, learner == "rls")
    return perfs, lam, _final(family, kernel, X, y, q, Xt, lam)


def _write_csv(path, X, y, q):
    """label, [qid,] f1..fd with the shortest round-trip repr of every value."""
    names = ["label"] + (["qid"] if q is not None else []) + \
        [f"f{k + 1}" for k in range(X.shape[1])]
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for i in range(len(y)):
            head = [repr(float(y[i]))] + ([str(q[i])] if q is not None else [])
            f.write(",".join(head + [repr(float(v)) for v in X[i]]) + "\n")


def _run(run_cli, tmp_path, fmt, learner, kernel, cv, measure):
    """(chosen, estimates, predictions, model arrays) through cv / fit / predict."""
    X, y, q, Xt = _data(learner)
    qt = None if q is None else np.full(len(Xt), q[0])
    d = tmp_path / fmt
    d.mkdir()
    train, test = d / "train.dat", d / "test.dat"
    if fmt == "csv":
        _write_csv(train, X, y, q)
        _write_csv(test, Xt, np.zeros(len(Xt)), qt)
        extra = ["--input-format", "csv"]
    else:
        write_svmlight(train, X, y, q)
        write_svmlight(test, Xt, np.zeros(len(Xt)), qt)
        extra = []
    opts = [str(o) for o in ["--learner", learner, "--regparams", ",".join(map(str, GRID)),
                             "--cv", cv, "--measure", measure,
                             *_kernel_options(kernel, "cli"), *extra]]
    if cv == "kfold":
        opts += ["--folds", str(K_FOLDS), "--seed", str(SEED)]
    lam, perfs, pred, model = _cli_files(run_cli, d, train, test, opts, extra)
    with np.load(model, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files if not k.startswith("__")}   # not the metadata
    return lam, perfs, pred, arrays


@pytest.mark.parametrize("learner,kernel,cv,measure", CSV_ROWS)
def test_csv_equals_svmlight(learner, kernel, cv, measure, run_cli, tmp_path):
    perfs, lam, pred = _reference(learner, kernel, cv)
    csv = _run(run_cli, tmp_path, "csv", learner, kernel, cv, measure)
    svm = _run(run_cli, tmp_path, "svmlight", learner, kernel, cv, measure)
    _check(csv[:3], perfs, lam, pred)
    assert csv[0] == svm[0]
    assert_array_equal(csv[1], svm[1])
    assert_array_equal(csv[2], svm[2])
    assert csv[3].keys() == svm[3].keys() and csv[3]
    for k in svm[3]:
        assert_array_equal(csv[3][k], svm[3][k], err_msg=k)
