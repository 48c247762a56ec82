"""What the command says beside its results (issue 44, items 11 and 18): the note on
pointwise regression of a file with qids, -q silencing every note, evaluate reporting
an undefined measure as null beside the others, the short-query warning naming the
rules in force and advising no cutoff for one-document queries, the cost note and the
progress count of leave-query-out by refitting, one format of the selection table,
progress lines printed once."""

import json
import re

import numpy as np
import pytest

from rlscore.utilities.reader import write_svmlight


@pytest.fixture
def qid_file(tmp_path):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(24, 3))
    y = np.round(np.clip(X @ np.array([1.0, -1.0, 0.5]) + 1.0, 0, 3))
    qids = np.repeat([1, 2, 3, 4], 6)
    path = tmp_path / "q.txt"
    write_svmlight(path, X, y, qids)
    return path, X, y, qids


# ------------------------------------------------------------ item 11: notes and -q

def test_default_learner_on_a_file_with_qids_says_it_is_pointwise(qid_file, tmp_path,
                                                                    run_cli):
    path = qid_file[0]
    code, _, err = run_cli(["fit", path, "-o", tmp_path / "m.npz"])
    assert code == 0
    assert "--learner rls (the default) trains pointwise regression" in err
    assert "query-rankrls" in err and "ranksvm" in err
    code, _, err = run_cli(["cv", path, "--regparams", "1"])
    assert code == 0 and "pointwise regression" in err
    # an explicit choice gets no note; nor does a file without qids
    code, _, err = run_cli(["fit", path, "-o", tmp_path / "m.npz", "--learner", "rls"])
    assert code == 0 and "pointwise" not in err
    plain = tmp_path / "plain.txt"
    write_svmlight(plain, qid_file[1], qid_file[2])
    code, _, err = run_cli(["fit", plain, "-o", tmp_path / "m.npz"])
    assert code == 0 and "pointwise" not in err


def test_quiet_silences_every_note(qid_file, tmp_path, run_cli):
    path = qid_file[0]
    argv = ["fit", path, "-o", tmp_path / "m.npz", "--regparams", "0.1,1,10"]
    code, out, err = run_cli(argv)
    assert code == 0 and "--cv not given" in err and "pointwise" in err and out
    code, out, err = run_cli(argv + ["-q"])
    # warnings (here the edge of the grid, maybe) still show; no note does
    assert code == 0 and out == ""
    assert all(line.startswith("rlscore: warning:") for line in err.splitlines()), err
    code, out, err = run_cli(["fit", path, "-o", tmp_path / "m.npz", "--learner",
                              "ranksvm", "-q"])
    assert code == 0 and out == "" and err == ""


# ------------------------------------------------------------ evaluate: undefined measures

def test_evaluate_reports_an_undefined_measure_as_null_beside_the_others(qid_file,
                                                                         tmp_path,
                                                                         run_cli):
    from rlscore.measure import cindex
    path, X, y, qids = qid_file
    model = tmp_path / "m.npz"
    assert run_cli(["fit", path, "-o", model, "--learner", "query-rankrls"])[0] == 0
    from rlscore.model_io import load_model
    P = load_model(model).predict(X)
    expected = cindex(y, P, qids)
    # graded labels: auc (binary labels only) is undefined, cindex is not
    code, out, err = run_cli(["evaluate", model, path, "--measure", "cindex,auc",
                              "--format", "json"])
    assert code == 0, err
    got = json.loads(out)
    assert got["auc"] is None
    np.testing.assert_allclose(got["cindex"], expected, rtol=1e-12)
    assert "auc is undefined here" in err
    code, out, err = run_cli(["evaluate", model, path, "--measure", "auc,cindex",
                              "--per-query"])
    assert code == 0, err
    assert "auc undefined" in out.splitlines()
    assert float(out.splitlines()[-1].split()[1]) == pytest.approx(expected, rel=1e-12)
    # every measure undefined: nothing to report, an error
    code, out, err = run_cli(["evaluate", model, path, "--measure", "auc"])
    assert code == 1 and out == "" and "auc is undefined" in err


# ------------------------------------------------------------ the short-query warning

def _letor_file(tmp_path, sizes):
    rng = np.random.default_rng(2)
    m = sum(sizes)
    X = rng.normal(size=(m, 1))
    y = rng.integers(0, 3, m).astype(float)
    qids = np.repeat(np.arange(len(sizes)), sizes)
    path = tmp_path / "letor.txt"
    write_svmlight(path, X, y, qids)
    return path


@pytest.fixture
def identity(tmp_path, run_cli):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(30, 1))
    write_svmlight(tmp_path / "train.txt", x, x[:, 0])
    model = tmp_path / "id.npz"
    assert run_cli(["fit", tmp_path / "train.txt", "-o", model, "--regparam",
                    "1e-6"])[0] == 0
    return model


def test_short_query_warning_names_the_rules_in_force(tmp_path, identity, run_cli):
    path = _letor_file(tmp_path, [3, 12, 4])
    code, _, err = run_cli(["evaluate", identity, path, "--measure", "ndcg@10",
                            "--convention", "letor3"])
    assert code == 0
    assert "under the LETOR 3.0 rules" in err and "4.0" not in err
    code, _, err = run_cli(["evaluate", identity, path, "--measure", "ndcg@10"])
    assert code == 0 and "under the LETOR 4.0 rules" in err
    # the advice: the shortest query of several documents (3)
    assert "'ndcg@3'" in err


def test_one_document_query_gets_no_cutoff_advice(tmp_path, identity, run_cli):
    import rlscore.measure as M
    # one query of a single document among longer ones: before, the advice was ndcg@1
    path = _letor_file(tmp_path, [1, 12, 4, 6])
    code, _, err = run_cli(["evaluate", identity, path, "--measure", "ndcg@10"])
    assert code == 0
    assert "'ndcg@1'" not in err and "'ndcg@4'" in err
    assert "a single document" in err
    # only one-document queries short: no cutoff is advised at all
    msg = M.short_query_message([1, 1, 12], 10)
    assert "2 of 3 queries have fewer than 10" in msg
    assert "ndcg@" not in msg and "a single document" in msg


# ------------------------------------------------------------ lqo by refitting

def test_lqo_by_refitting_says_the_cost_and_counts_the_queries(qid_file, run_cli):
    from rlscore.learner import LinearRankSVM
    from rlscore.measure import cindex
    path, X, y, qids = qid_file
    code, out, err = run_cli(["cv", path, "--learner", "ranksvm", "--cv", "lqo",
                              "--regparams", "0.1,1", "--progress", "--format", "json"])
    assert code == 0, err
    assert "no exact hold-out shortcut" in err and "4 queries" in err
    assert "8 refits" in err
    assert re.search(r"the first refit took [0-9.e+-]+ (s|min): the 8 take about ", err)
    # one count per regparam, query 1..4 of 4 (each line once)
    for j, lam in enumerate((0.1, 1), start=1):
        for i in range(1, 5):
            line = f"regparam {lam:g} ({j} of 2): queries left out: step {i}/4"
            assert err.count(line) == 1, err
    # the pooled leave-query-out value equals refits by hand
    res = json.loads(out)
    for lam, got in zip(res["regparams"], res["cv_performances"]):
        P = np.empty(len(y))
        for q in np.unique(qids):
            out_q = qids == q
            model = LinearRankSVM(X[~out_q], y[~out_q], qids[~out_q], regparam=lam)
            P[out_q] = model.predict(X[out_q])
        np.testing.assert_allclose(got, cindex(y, P, qids), rtol=1e-6)


# ------------------------------------------------------------ item 18

@pytest.mark.usefixtures("arrays_only_budget")
def test_budget_refusal_suggests_smaller_blocks_only_when_they_fit():
    from rlscore._memory import ReducedSetSizes, reduced_set_peak_bytes
    from rlscore.core.nystrom import ComputePlan, CVIntent, Workload
    from rlscore.core.nystrom import plan_reduced_set as plan_work
    m, b, d = 300, 20, 4

    def plan_reduced_set(m, b, d, p, memory_budget, block_size):
        return plan_work(Workload(m, b, d, p, stream=True),
                         ComputePlan(memory_budget, block_size, solver="direct"),
                         CVIntent("loo", 2))
    kw = {}
    one_row = reduced_set_peak_bytes("streamed", ReducedSetSizes(m, b, d, 1), 1, 2,
                                     0) / 2**20
    # below the one-row estimate no block size helps: none is suggested
    with pytest.raises(ValueError, match="Ways out") as exc:
        plan_reduced_set(m, b, d, 1, memory_budget=one_row * 0.99, block_size=300, **kw)
    assert "block_size" not in str(exc.value).split("Ways out")[1]
    # above it the largest block that fits is named, and it does fit (one more does not)
    budget = one_row * 1.02
    with pytest.raises(ValueError, match="Ways out") as exc:
        plan_reduced_set(m, b, d, 1, memory_budget=budget, block_size=300, **kw)
    rows = int(re.search(r"a smaller block_size \(blocks of (\d+) rows fit\)",
                         str(exc.value)).group(1))
    assert 1 <= rows < 300
    assert plan_reduced_set(m, b, d, 1, memory_budget=budget, block_size=rows,
                            **kw).peak_bytes <= budget * 2**20
    with pytest.raises(ValueError, match="Ways out"):
        plan_reduced_set(m, b, d, 1, memory_budget=budget, block_size=rows + 1, **kw)


def _regression_file(tmp_path, m=120):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(m, 3))
    y = X @ np.array([1.0, 0.5, -1.0]) + 0.2 * rng.normal(size=m)
    path = tmp_path / "r.txt"
    write_svmlight(path, X, y)
    return path


def test_streamed_and_in_memory_fit_print_one_table_format(tmp_path, run_cli):
    path = _regression_file(tmp_path)
    common = ["--kernel", "gaussian", "--gamma", "0.2", "--basis", "15", "--regparams",
              "0.01,0.1,1", "--cv", "loo"]
    code, mem, err = run_cli(["fit", path, "-o", tmp_path / "a.npz", *common])
    assert code == 0, err
    code, streamed, err = run_cli(["fit", path, "-o", tmp_path / "b.npz", "--stream",
                                   *common])
    assert code == 0, err
    table_mem, table_st = mem.splitlines()[:4], streamed.splitlines()[:4]
    assert table_mem[0] == table_st[0] == f"{'regparam':>12}  {'sqerror':>12}"
    for a, b in zip(table_mem[1:], table_st[1:]):
        fa, fb = a.split(), b.split()
        assert fa[0] == fb[0] and fa[2:] == fb[2:]          # regparam, "<- best"
        assert float(fa[1]) == pytest.approx(float(fb[1]), rel=1e-5)


def test_streamed_fit_reports_its_eigendecomposition_once(tmp_path, run_cli):
    # the streamed statistics' eigendecomposition was a stage wrapping psd_eigh's own
    # stage of the same name: "started" twice, "done" twice. (The memory plan reported
    # twice, by the command and again by StreamedRLS, is the plan= of StreamedRLS.)
    path = _regression_file(tmp_path)
    code, _, err = run_cli(["fit", path, "-o", tmp_path / "s.npz", "--kernel",
                            "gaussian", "--gamma", "0.2", "--basis", "15", "--stream",
                            "--regparams", "0.1,1", "--progress"])
    assert code == 0, err
    for what in ("started", "done in"):
        lines = [line for line in err.splitlines()
                 if "eigendecomposition (15 x 15)" in line and what in line]
        assert len(lines) == 1, err


def test_overflowing_value_is_reported_with_its_line(tmp_path, run_cli):
    path = tmp_path / "big.txt"
    path.write_text("1 1:0.5 2:1\n2 1:0.25 2:1e400\n")
    for argv in (["fit", path, "-o", tmp_path / "m.npz"],
                 ["fit", path, "-o", tmp_path / "m.npz", "--kernel", "gaussian",
                  "--gamma", "1", "--basis", "1", "--stream"]):
        code, _, err = run_cli(argv)
        assert code == 1
        assert f"{path}, line 2, column 10: value '1e400' of feature 2 overflows" in err
