"""Test configuration: make sure the compiled package is the one under test."""

import json
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

# Child processes (``python -c ...`` in the CLI, fuzz and bounds tests) must import the
# installed package too: without this, a child started in the repository root puts the
# source folder (no compiled extensions) first on sys.path (PYTHONSAFEPATH, Python >= 3.11,
# which is why the package requires 3.11: 3.10 reached its end of life in October 2026).
os.environ.setdefault("PYTHONSAFEPATH", "1")


def pytest_report_header(config):
    import rlscore
    from rlscore._ext import _lpo  # fails loudly if the extensions were not built
    return f"rlscore {rlscore.__version__} from {rlscore.__file__} (ext: {_lpo.__file__})"


@pytest.fixture(scope="session")
def client():
    """One dask LocalCluster (2 worker processes, 1 thread each, loopback) for every
    test that uses rlscore.distributed (tests/distributed, the face matrix)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def _rlscore_reference_folds(ssize, k, seed):
    """RLScore 0.8's random_folds written out: each fold sampled with
    ``random.Random(seed)`` from the tuple of the *set* of remaining indices, which is
    then reduced by ``set.difference`` (the order of a CPython int set matters)."""
    import random
    rng = random.Random(seed)
    remaining = set(range(ssize))
    size, extra = divmod(ssize, k)
    folds = []
    for i in range(k):
        fold = rng.sample(tuple(remaining), size + (1 if i < extra else 0))
        remaining = remaining.difference(fold)
        folds.append(fold)
    return folds


def _cindex_by_hand(y, p):
    """The c-index by its pair definition, O(m^2): over the ordered pairs with
    y_i > y_j, the fraction that p orders the same way (a tie in p counts 1/2). None
    when no two labels differ (no pair: undefined; each test says what that means)."""
    num = den = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] > y[j]:
                den += 1
                num += 1.0 if p[i] > p[j] else 0.5 if p[i] == p[j] else 0.0
    return num / den if den else None


@pytest.fixture(scope="session")
def cindex_by_hand():
    """The brute-force c-index every fast one is compared with (one copy for every
    test): ``cindex_by_hand(y, p)`` is a float, or None when there is no pair."""
    return _cindex_by_hand


@pytest.fixture
def run_cli(capsys):
    """The command line in this process, as a user runs it (one copy for every CLI
    test): ``run_cli(argv)`` -> (exit code, stdout, stderr); arguments are str()-ed."""
    from rlscore.cli import main

    def run(argv):
        code = main([str(a) for a in argv])
        out = capsys.readouterr()
        return code, out.out, out.err
    return run


def _lpo_by_refit(y, refit_pair, qid=None, per_query=False):
    """Leave-pair-out ranking accuracy by brute force, O(m^2) refits: over the pairs
    i < j with different labels (within one query when ``qid`` is given),
    ``refit_pair(i, j)`` gives the predictions (p_i, p_j) of the model trained without
    rows i and j; a pair scores 1 when they order i and j as the labels do, 1/2 for a
    tie, 0 otherwise; the mean score (``per_query``: the mean over the queries that have
    a pair of each query's mean)."""
    scores = {}
    for i in range(len(y)):
        for j in range(i + 1, len(y)):
            if y[i] == y[j] or (qid is not None and qid[i] != qid[j]):
                continue
            pi, pj = refit_pair(i, j)
            scores.setdefault(qid[i] if per_query else 0, []).append(
                0.5 if pi == pj else float((pi > pj) == (y[i] > y[j])))
    return float(np.mean([np.mean(v) for v in scores.values()])) if per_query else \
        float(np.mean(scores[0]))


@pytest.fixture(scope="session")
def lpo_by_refit():
    """The brute-force leave-pair-out estimate every LPO shortcut is compared with (one
    copy for every test): ``lpo_by_refit(y, refit_pair, qid=None, per_query=False)``."""
    return _lpo_by_refit


def _check_holdout_index_errors(holdout):
    """``holdout(indices)`` refuses what every hold-out entry point refuses: an index
    outside the rows (IndexError), a negative or repeated one (IndexError), no index
    (ValueError)."""
    for bad in ([0, 3, 100], [-1, 0, 2], [1, 1, 2]):
        with pytest.raises(IndexError):
            holdout(bad)
    with pytest.raises(ValueError):
        holdout([])


@pytest.fixture(scope="session")
def check_holdout_index_errors():
    """The index errors every learner's ``holdout`` must raise (one copy)."""
    return _check_holdout_index_errors


def _letor_dcg(rel, n):
    """DCG@n of ranked labels under Eval-Score-4.0.pl's rules: gain 2^label - 1, ranks 1
    and 2 undiscounted, rank r >= 3 divided by log2(r); missing ranks count 0."""
    total = 0.0
    for j in range(min(n, len(rel))):
        r = j + 1
        total += (2.0 ** rel[j] - 1.0) * (1.0 if r <= 2 else 1.0 / math.log2(r))
    return total


def _letor_ndcg_at(rel, k):
    if len(rel) < k:
        return 0.0                 # undefined in the script, summed as 0
    idcg = _letor_dcg(sorted(rel, reverse=True), k)
    return 0.0 if idcg == 0 else _letor_dcg(rel, k) / idcg


def _letor3_lists(rel, top_n=16):
    """Eval-Score-3.0.pl's per-query lists, loop by loop: P@1..N and NDCG@1..N for
    N = min(top_n, len(rel)) (its loops stop at the last document; the script's top_n is
    16, or 10 in some copies), gains from its table {2: 3, 1: 1, 0: 0}, relevant = 1 or 2,
    the discount 1 at positions 0 and 1 and log(2)/log(pos + 1) after."""
    gain = {0: 0.0, 1: 1.0, 2: 3.0}
    n = min(top_n, len(rel))
    prec, hits = [], 0
    for pos in range(n):
        hits += 1 if rel[pos] in (1, 2) else 0
        prec.append(hits / (pos + 1))

    def dcg(r):
        out = [gain[r[0]]]
        for pos in range(1, n):
            d = 1.0 if pos < 2 else math.log(2.0) / math.log(pos + 1.0)
            out.append(out[-1] + gain[r[pos]] * d)
        return out
    ideal = sorted(rel, key=lambda x: -gain[x])
    d, best = dcg(rel), dcg(ideal)
    nd = [d[pos] / best[pos] if best[pos] != 0 else 0.0 for pos in range(n)]
    return prec, nd


def _letor_by_hand(labels, scores, qids, k, convention="letor4"):
    """(NDCG@k, P@k, MAP, MeanNDCG) of a LETOR evaluation script written loop by loop
    from its rules, each the mean over all queries.

    ``convention="letor4"``, Eval-Score-4.0.pl: documents ranked by decreasing score
    with ties in file order (Python's sort is stable, as the script's), a query shorter
    than k has NDCG@k = 0, IDCG = 0 scores 0, P@k counts missing ranks as irrelevant,
    relevant means label > 0, AP = 0 without relevant documents, MeanNDCG is the mean
    of NDCG@1..n_q.

    ``convention="letor3"``, Eval-Score-3.0.pl: the per-query lists of
    :func:`_letor3_lists` (labels 0, 1, 2 only, k <= 16); the value at position k, and
    0 where a short query's list has no such position (the script sums the undefined
    entry as 0, dividing by the number of queries); AP as in 4.0; no MeanNDCG (None).
    """
    queries = {}
    for i, q in enumerate(qids):
        queries.setdefault(q, []).append(i)
    nd, pk, ap, mn = [], [], [], []
    for rows in queries.values():
        rel = [labels[i] for i in sorted(rows, key=lambda i: -scores[i])]
        if convention == "letor3":
            prec, ndq = _letor3_lists([int(x) for x in rel])
            pk.append(prec[k - 1] if k <= len(prec) else 0.0)
            nd.append(ndq[k - 1] if k <= len(ndq) else 0.0)
        else:
            nd.append(_letor_ndcg_at(rel, k))
            pk.append(sum(1 for x in rel[:k] if x > 0) / k)
            mn.append(np.mean([_letor_ndcg_at(rel, j) for j in range(1, len(rel) + 1)]))
        hits, s = 0, 0.0
        for j, x in enumerate(rel):
            if x > 0:
                hits += 1
                s += hits / (j + 1)
        ap.append(s / hits if hits else 0.0)
    return (float(np.mean(nd)), float(np.mean(pk)), float(np.mean(ap)),
            float(np.mean(mn)) if mn else None)


@pytest.fixture(scope="session")
def letor_by_hand():
    """The LETOR reference every IR measure and ``rlscore evaluate`` is compared with
    (one copy for every test): ``letor_by_hand(labels, scores, qids, k,
    convention="letor4")`` is (NDCG@k, P@k, MAP, MeanNDCG) under Eval-Score-4.0.pl's
    rules, or under Eval-Score-3.0.pl's with ``convention="letor3"`` (MeanNDCG None)."""
    return _letor_by_hand


@pytest.fixture
def rlscore_reference_folds():
    """The reference algorithm of RLScore's random_folds (one copy for every test)."""
    return _rlscore_reference_folds


def _check_gradient(objective, z, h=1e-5, rtol=1e-6):
    """An objective's gradient against central differences of its value: ``objective(z)``
    returns (value, gradient), ``objective.value(z)`` the value alone; the gradient must
    equal (f(z + h e_i) - f(z - h e_i)) / 2h to ``rtol`` (absolute floor rtol * max|fd|).
    Returns the value at z."""
    z = np.asarray(z, dtype=float)
    value, grad = objective(z)
    fd = np.array([(objective.value(z + h * e) - objective.value(z - h * e)) / (2 * h)
                   for e in np.eye(len(z))])
    np.testing.assert_allclose(grad, fd, rtol=rtol, atol=rtol * np.abs(fd).max())
    return value


@pytest.fixture(scope="session")
def check_gradient():
    """The finite-difference check every criterion gradient is held to:
    ``check_gradient(objective, z)``."""
    return _check_gradient


@pytest.fixture
def small_text_chunks(monkeypatch):
    """The command line reads data files in chunks of 64 bytes of text (a few lines
    each); returns a list that receives the row count of every chunk parsed."""
    return _patch_small_text_chunks(monkeypatch)


@pytest.fixture
def small_text_chunk_patch():
    """The patch of :func:`small_text_chunks` as a function of a MonkeyPatch, for a
    test that reads the same file first whole, then in small chunks:
    ``with pytest.MonkeyPatch.context() as mp: rows = small_text_chunk_patch(mp)``."""
    return _patch_small_text_chunks


def _patch_small_text_chunks(mp):
    from rlscore.cli import _data
    from rlscore.utilities import reader
    real = reader.iter_svmlight
    rows = []

    def counted(*args, **kwargs):
        for part in real(*args, **kwargs):
            rows.append(part[0].shape[0])
            yield part

    mp.setattr(_data, "text_chunk_bytes", lambda share=1 / 64: 64)
    mp.setattr(reader, "iter_svmlight", counted)
    return rows


@pytest.fixture
def arrays_only_budget(monkeypatch):
    """Plans that count the run's arrays alone: what the process holds
    (:func:`rlscore.core.nystrom.process_bytes`) and a file's parser buffers
    (:func:`rlscore._memory.parser_bytes`) are taken as 0. For the tests that place a
    budget between two estimates of the arrays (bytes apart, far below the test
    process's own memory) and compare faces on arrays with the command line on a
    file; the whole-process budget (the peak resident set of a child process against
    its budget) is tested in tests/test_memory_rss.py."""
    import rlscore._memory
    import rlscore.core.nystrom._memory_plan as plan
    monkeypatch.setattr(plan, "process_bytes", lambda: 0.0)
    monkeypatch.setattr(rlscore._memory, "PARSER_CHUNKS", 0)


def _squared_hinge_fit(Z, y, lam):
    """argmin_w 1/2 sum_k max(0, 1 - y_k z_k w)^2 + lam/2 ||w||^2 over the rows z_k of
    an explicit feature matrix Z (pairwise models: the rows of the difference vectors
    with y = 1, or the np.kron features of labelled pairs): scipy's BFGS from 0, then
    exact Newton steps (the minimizer of the quadratic on the support set, where the
    objective is that quadratic) until the support set repeats; the gradient is
    checked at the end. A normalized loss (1/N) sum l + lam/2 ||w||^2 is this one at
    lam N / 2."""
    from scipy.optimize import minimize

    def fun(w):
        r = np.maximum(1 - y * (Z @ w), 0)
        return 0.5 * r @ r + 0.5 * lam * w @ w, -Z.T @ (y * r) + lam * w
    w = minimize(fun, np.zeros(Z.shape[1]), jac=True, method="BFGS",
                 options={"gtol": 1e-11, "maxiter": 10000}).x
    for _ in range(20):
        S = y * (Z @ w) < 1
        w = np.linalg.solve(Z[S].T @ Z[S] + lam * np.eye(Z.shape[1]), Z[S].T @ y[S])
        if np.array_equal(S, y * (Z @ w) < 1):
            break
    assert np.linalg.norm(fun(w)[1]) <= 1e-9 * max(1.0, np.linalg.norm(Z.T @ y))
    return w


@pytest.fixture(scope="session")
def squared_hinge_fit():
    """The brute-force squared-hinge SVM every SVM face is held to:
    ``squared_hinge_fit(Z, y, lam)`` on explicit features."""
    return _squared_hinge_fit


#: One child process runs a list of command lines through ``rlscore.cli.main`` (argv 1:
#: "1" silences warnings) and prints, as JSON, each one's status and stderr; an
#: exception that escapes ``main`` is status "escaped" with its traceback.
_CLI_CHILD = textwrap.dedent(r"""
    import contextlib, io, json, sys, traceback, warnings
    if sys.argv[1] == "1":
        warnings.simplefilter("ignore")
    from rlscore.cli import main
    out = []
    for argv in json.loads(sys.stdin.read()):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
                code = "escaped"
        out.append({"argv": argv, "code": code, "stderr": err.getvalue()})
    print(json.dumps(out))
""")


def _cli_in_child(argvs, ignore_warnings=False, timeout=600):
    """[{"argv", "code", "stderr"}] of each command line in ``argvs``, all run in one
    child process (a crash of the interpreter fails the test with its stderr)."""
    flag = "1" if ignore_warnings else "0"
    proc = subprocess.run([sys.executable, "-c", _CLI_CHILD, flag], input=json.dumps(argvs),
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"child died ({proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def cli_in_child():
    """Hostile command lines run away from the test process:
    ``cli_in_child(argvs, ignore_warnings=False)``."""
    return _cli_in_child


def _cv_plus_bounds(mu, R, alpha):
    """Barber et al.'s CV+ interval by brute force (sorted lists): ``mu`` (t, n) the
    hold-out models' predictions at t test points, ``R`` (n,) the hold-out residuals;
    the floor(alpha (n + 1))-th smallest of mu - |R| and the ceil((1 - alpha)(n + 1))-th
    smallest of mu + |R| per test point. Returns (lo, hi), each (t,)."""
    mu, R = np.atleast_2d(mu), np.abs(np.asarray(R))
    n = R.size
    lo = np.sort(mu - R, axis=1)[:, math.floor(alpha * (n + 1)) - 1]
    hi = np.sort(mu + R, axis=1)[:, math.ceil((1 - alpha) * (n + 1)) - 1]
    return lo, hi


@pytest.fixture(scope="session")
def cv_plus_bounds():
    """``cv_plus_bounds(mu, R, alpha)`` -> (lo, hi): CV+ from refits' predictions."""
    return _cv_plus_bounds
