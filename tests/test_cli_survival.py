"""The command line on censored data: ``--learner survival-rankrls`` / ``survival-ranksvm``
with ``--time-column`` / ``--event-column`` (fit, cv, predict, evaluate), its one-line
errors, and a fuzz of the survival input run in a child process (no traceback ever)."""

import json

import numpy as np
import pytest

from rlscore.learner import SurvivalRankRLS, SurvivalRankSVM
from rlscore.measure import concordance_index_censored, concordance_index_ipcw

pytestmark = pytest.mark.filterwarnings(
    "ignore::rlscore.core.selection.EdgeOfGridWarning")

SURV = ["--time-column", "T", "--event-column", "E"]


def _write(path, columns, rows):
    with open(path, "w") as fh:
        fh.write(",".join(columns) + "\n")
        for r in rows:
            fh.write(",".join(str(v) for v in r) + "\n")
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("surv")
    rng = np.random.default_rng(0)
    m = 40
    X = np.round(rng.normal(size=(m, 3)), 4)
    time = np.round(rng.exponential(np.exp(-X[:, 0])), 3)
    event = (rng.random(m) < 0.6).astype(int)
    rows = [[time[i], event[i], *X[i]] for i in range(m)]
    train = _write(d / "train.csv", ["T", "E", "a", "b", "c"], rows)
    # the same rows, columns in another order and renamed outcome columns
    other = _write(d / "other.csv", ["c", "status", "a", "futime", "b"],
                   [[X[i, 2], event[i], X[i, 0], time[i], X[i, 1]] for i in range(m)])
    return {"dir": d, "X": X, "time": time, "event": event.astype(bool), "train": train,
            "other": other}


def test_fit_predict_evaluate_equal_the_library(data, run_cli, tmp_path):
    X, time, event = data["X"], data["time"], data["event"]
    model = tmp_path / "m.npz"
    code, out, err = run_cli(["fit", data["train"], "-o", model, "--learner",
                              "survival-rankrls", *SURV, "--kernel", "gaussian",
                              "--gamma", "0.3", "--regparam", "0.5"])
    assert code == 0, err
    ref = SurvivalRankRLS(X, time, event, regparam=0.5, kernel="GaussianKernel",
                          gamma=0.3).predict(X)
    code, out, err = run_cli(["predict", model, data["other"]])
    assert code == 0, err
    np.testing.assert_allclose(np.array(out.split(), dtype=float), ref, rtol=1e-10)
    # evaluate: the model's columns by name, or other columns named on the line
    code, out, err = run_cli(["evaluate", model, data["train"], "--measure", "cindex,uno",
                              "--format", "json"])
    assert code == 0, err
    res = json.loads(out)
    assert res["cindex"] == pytest.approx(concordance_index_censored(event, time, ref)[0],
                                          rel=1e-12)
    assert res["uno"] == pytest.approx(
        concordance_index_ipcw((event, time), (event, time), ref)[0], rel=1e-12)
    code, out, err = run_cli(["evaluate", model, data["other"], "--time-column",
                              "futime", "--event-column", "status"])
    assert code == 0, err
    assert out == f"cindex {res['cindex']!r}\n"
    # another program's risk scores
    (tmp_path / "p.txt").write_text("\n".join(repr(float(v)) for v in ref) + "\n")
    code, out, err = run_cli(["evaluate", data["train"], "--predictions", tmp_path / "p.txt",
                              *SURV])
    assert code == 0, err
    assert out == f"cindex {res['cindex']!r}\n"


def test_survival_ranksvm_fit_equals_the_learner(data, run_cli, tmp_path):
    X, time, event = data["X"], data["time"], data["event"]
    model = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", data["train"], "-o", model, "--learner",
                            "survival-ranksvm", *SURV, "--regparam", "0.1", "--tol",
                            "1e-6"])
    assert code == 0, err
    code, out, err = run_cli(["predict", model, data["train"]])
    ref = SurvivalRankSVM(X, time, event, regparam=0.1, tol=1e-6).predict(X)
    np.testing.assert_allclose(np.array(out.split(), dtype=float), ref, rtol=1e-8,
                               atol=1e-12)


@pytest.mark.parametrize("argv,code,text", [
    (["fit", "{train}", "-o", "{out}", "--learner", "survival-rankrls"], 2,
     "give --time-column NAME and --event-column NAME"),
    (["fit", "{train}", "-o", "{out}", *SURV], 2, "not of --learner rls"),
    (["cv", "{train}", "--learner", "query-rankrls", *SURV], 2, "survival learners"),
    (["fit", "{train}", "-o", "{out}", "--learner", "survival-rankrls", "--time-column",
      "T"], 2, "both --time-column and --event-column"),
    (["fit", "{train}", "-o", "{out}", "--learner", "survival-rankrls", *SURV,
      "--label-column", "a"], 2, "no label column"),
    (["cv", "{train}", "--learner", "survival-rankrls", *SURV, "--cv", "lqo"], 2,
     "supports --cv kfold, loo"),
    (["cv", "{train}", "--learner", "survival-ranksvm", *SURV, "--cv", "loo"], 2,
     "supports --cv kfold"),
    (["cv", "{train}", "--learner", "survival-ranksvm", *SURV, "--kernel", "gaussian"], 2,
     "does not support --kernel gaussian"),
    (["cv", "{train}", "--learner", "survival-rankrls", *SURV, "--measure", "ndcg"], 2,
     "survival measure"),
    (["cv", "{train}", "--learner", "survival-rankrls", *SURV, "--basis", "5"], 2,
     "--basis"),
    (["fit", "{train}", "-o", "{out}", "--learner", "survival-rankrls", *SURV,
      "--stream"], 2, "--stream"),
    (["cv", "{train}", "--learner", "survival-rankrls", *SURV, "--folds", "40"], 1,
     "no fold holds a comparable pair"),
    (["fit", "{train}", "-o", "{out}", "--learner", "survival-rankrls",
      "--time-column", "T", "--event-column", "Z"], 1, "no column named 'Z' (--event-column)"),
    (["fit", "{svm}", "-o", "{out}", "--learner", "survival-rankrls", *SURV], 2,
     "applies to CSV/TSV files"),
    (["evaluate", "{model}", "{train}", "--per-query"], 2, "no queries"),
])
def test_one_line_errors(argv, code, text, data, run_cli, tmp_path):
    svm = tmp_path / "t.txt"
    svm.write_text("1 1:0.5\n")
    model = data["dir"] / "model.npz"
    if not model.exists():
        assert run_cli(["fit", data["train"], "-o", model, "--learner", "survival-rankrls",
                        *SURV, "-q"])[0] == 0
    argv = [a.format(train=data["train"], out=tmp_path / "o.npz", svm=svm, model=model)
            for a in argv]
    got, _, err = run_cli(argv)
    lines = [ln for ln in err.splitlines() if ln.startswith("rlscore: error:")]
    assert got == code and len(lines) == 1 and text in lines[0], err
    assert not (tmp_path / "o.npz").exists()


def _fuzzed_files(d, rng):
    """Survival CSV files with one defect each (and a few good ones)."""
    m = 12
    base = [[float(rng.integers(1, 6)), int(rng.random() < 0.6),
             *np.round(rng.normal(size=3), 3)] for _ in range(m)]
    base[0][1] = 1
    cols = ["T", "E", "a", "b", "c"]
    cases = {
        "nan_time": lambda r: r[3].__setitem__(0, "NaN"),
        "empty_time": lambda r: r[3].__setitem__(0, ""),
        "inf_time": lambda r: r[3].__setitem__(0, "inf"),
        "neg_time": lambda r: r[3].__setitem__(0, -1.5),
        "huge_time": lambda r: r[3].__setitem__(0, "1e400"),
        "event_2": lambda r: r[3].__setitem__(1, 2),
        "event_half": lambda r: r[3].__setitem__(1, 0.5),
        "event_minus": lambda r: r[3].__setitem__(1, -1),
        "event_word": lambda r: r[3].__setitem__(1, "yes"),
        "all_censored": lambda r: [row.__setitem__(1, 0) for row in r],
        "one_row": lambda r: r.__delitem__(slice(1, None)),
        "tied_events": lambda r: [row.__setitem__(0, 3.0) or row.__setitem__(1, 1)
                                  for row in r],
        "short_line": lambda r: r[2].pop(),
        "good": lambda r: None,
    }
    files = {}
    for name, mutate in cases.items():
        rows = [list(row) for row in base]
        mutate(rows)
        files[name] = _write(d / f"{name}.csv", cols, rows)
    files["no_event_col"] = _write(d / "no_event_col.csv", ["T", "a", "b"],
                                   [row[:1] + row[2:4] for row in base])
    files["header_only"] = _write(d / "header_only.csv", cols, [])
    files["dup_col"] = _write(d / "dup_col.csv", ["T", "E", "T", "b", "c"], base)
    return files


def test_fuzzed_survival_input_never_gives_a_traceback(tmp_path, data, cli_in_child):
    files = _fuzzed_files(tmp_path, np.random.default_rng(7))
    argvs = []
    for path in files.values():
        for learner, cv in (("survival-rankrls", "kfold"), ("survival-rankrls", "loo"),
                            ("survival-ranksvm", "kfold")):
            argvs.append(["cv", str(path), "--learner", learner, *SURV, "--cv", cv,
                          "--folds", "2", "--regparams", "0.1,10", "-q"])
        argvs.append(["fit", str(path), "-o", str(tmp_path / "o.npz"), "--learner",
                      "survival-rankrls", *SURV, "-q"])
        argvs.append(["evaluate", str(data["dir"] / "fuzz.npz"), str(path),
                      "--measure", "cindex,uno"])
        argvs.append(["predict", str(data["dir"] / "fuzz.npz"), str(path)])
    # the model evaluated on every file, trained first on a good one
    argvs.insert(0, ["fit", str(data["train"]), "-o", str(data["dir"] / "fuzz.npz"),
                     "--learner", "survival-rankrls", "--time-column", "T",
                     "--event-column", "E", "--feature-columns", "a,b,c", "-q"])
    results = cli_in_child(argvs, ignore_warnings=True)
    bad = []
    for res in results:
        err = res["stderr"]
        errors = [ln for ln in err.splitlines() if ln.startswith("rlscore: error:")]
        ok = "Traceback" not in err and (
            res["code"] == 0 and not errors or res["code"] in (1, 2) and len(errors) == 1)
        if not ok:
            bad.append((res["argv"], res["code"], err[-300:]))
    assert not bad, "\n".join(map(str, bad))
    codes = {tuple(r["argv"][:2]): r["code"] for r in results}
    # the defects are refused, the good file is not
    assert codes[("cv", str(files["good"]))] == 0
    for name in ("nan_time", "neg_time", "event_2", "event_word", "all_censored",
                 "no_event_col", "inf_time"):
        assert codes[("cv", str(files[name]))] == 1, name
