"""Prediction intervals through model files and the command line: the stored hold-out
models give the intervals of the library (tested against brute force in
tests/core/rls/test_intervals.py), and bad interval data is refused on load."""

import numpy as np
import pytest

from rlscore.cli import main
from rlscore.core.structure import QueryGroups
from rlscore.core.rls import IntervalModel
from rlscore.learner import RLS
from rlscore.model_io import ModelFileError, load_model, save_model
from rlscore.utilities.reader import write_svmlight


def _data(m=40, d=4, n=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.sin(X[:, 0]) + X[:, 1] + 0.2 * rng.normal(size=m)
    return X, y, rng.normal(size=(n, d))


@pytest.mark.parametrize("kw", [dict(kernel="GaussianKernel", gamma=0.3),
                                dict(kernel="LinearKernel", bias=2.0),
                                dict(kernel="PolynomialKernel", gamma=0.4, degree=2,
                                     coef0=1.0, basis_indices=[1, 4, 9, 16, 25])])
@pytest.mark.parametrize("method, extra", [("jackknife+", {}), ("cv+", {"n_folds": 4})])
def test_model_file_round_trip(tmp_path, kw, method, extra):
    X, y, Xt = _data()
    learner = RLS(X, y, regparam=0.4, **kw)
    path = tmp_path / "m.npz"
    save_model(learner, path, intervals=learner.interval_model(method, **extra))
    pred, meta = load_model(path, return_metadata=True)
    im = IntervalModel.from_arrays(pred, meta["intervals"], meta["interval_arrays"])
    for a, b in zip(im.predict_interval(Xt, 0.2, method),
                    learner.predict_interval(Xt, 0.2, method, **extra)):
        np.testing.assert_allclose(a[:, 0], b, rtol=1e-10)
    assert meta["intervals"]["kind"] == ("loo" if method == "jackknife+" else "folds")


class _Fake:
    def __init__(self, info, arrays):
        self.info, self.arrays = info, arrays

    def to_arrays(self):
        return self.info, self.arrays


def _good(learner, method="jackknife+", **kw):
    info, arrays = learner.interval_model(method, **kw).to_arrays()
    return dict(info), {k: v.copy() for k, v in arrays.items()}


@pytest.mark.parametrize("break_it, needle", [
    (lambda i, a: i.update(kind="bootstrap"), "unknown kind"),
    (lambda i, a: a.update(coef=a["coef"][:-1]), "coefficient rows"),
    (lambda i, a: a.update(coef=a["coef"][:, :-1]), "columns"),
    (lambda i, a: a["residuals"].__setitem__((0, 0), np.nan), "NaN"),
    (lambda i, a: a.update(residuals=a["residuals"][:-1]), "residuals"),
    (lambda i, a: a.update(fold_of=np.zeros(40, dtype=np.int64)), "fold"),
    (lambda i, a: a.update(extra=np.zeros(3)), "unexpected"),
    (lambda i, a: a.update(coef=a["coef"].astype(np.float32)), "dtype"),
    (lambda i, a: i.update(n_train=True), "n_train"),
])
def test_bad_interval_data_is_refused(tmp_path, break_it, needle):
    X, y, _ = _data()
    learner = RLS(X, y, regparam=0.4, kernel="GaussianKernel", gamma=0.3)
    info, arrays = _good(learner)
    break_it(info, arrays)
    with pytest.raises(ModelFileError, match=needle):
        save_model(learner, tmp_path / "m.npz", intervals=_Fake(info, arrays))


@pytest.mark.parametrize("break_it, needle", [
    (lambda i, a: a.update(fold_of=np.where(a["fold_of"] == 3, 7, a["fold_of"])), "fold"),
    (lambda i, a: i.update(n_folds=1), "n_folds"),
    (lambda i, a: a.update(corr_rows=np.array([0, 0])), "corr_rows"),
    (lambda i, a: a.pop("intercept"), "intercept"),
])
def test_bad_fold_and_linear_data_is_refused(tmp_path, break_it, needle):
    X, y, _ = _data()
    learner = RLS(X, y, regparam=0.4)                       # linear: LinearPredictor
    info, arrays = _good(learner, "cv+", n_folds=4)
    break_it(info, arrays)
    with pytest.raises(ModelFileError, match=needle):
        save_model(learner, tmp_path / "m.npz", intervals=_Fake(info, arrays))


def _files(tmp_path, qids=None):
    X, y, Xt = _data(m=48)
    write_svmlight(tmp_path / "train.txt", X, y, qids)
    write_svmlight(tmp_path / "test.txt", Xt, np.zeros(len(Xt)))
    return X, y, Xt


def _lines(text):
    return np.array([[float(v) for v in line.split("\t")] for line in text.splitlines()])


def test_cli_jackknife_plus_equals_library(tmp_path, capsys):
    X, y, Xt = _files(tmp_path)
    model = tmp_path / "g.npz"
    assert main(["fit", str(tmp_path / "train.txt"), "-o", str(model), "--kernel",
                 "gaussian", "--gamma", "0.3", "--regparam", "0.5", "--intervals",
                 "jackknife", "-q"]) == 0
    assert main(["predict", str(model), str(tmp_path / "test.txt"), "--interval",
                 "0.9"]) == 0
    got = _lines(capsys.readouterr().out)
    ref = RLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.3)
    np.testing.assert_allclose(got, np.column_stack(ref.predict_interval(Xt, 0.1)),
                               rtol=1e-10)
    assert main(["predict", str(model), str(tmp_path / "test.txt"), "--interval", "0.8",
                 "--interval-method", "jackknife-minmax"]) == 0
    got = _lines(capsys.readouterr().out)
    np.testing.assert_allclose(
        got, np.column_stack(ref.predict_interval(Xt, 0.2, "jackknife-minmax")),
        rtol=1e-10)


def test_cli_cv_plus_holds_out_whole_queries(tmp_path, capsys):
    qids = [f"q{i // 4}" for i in range(48)]
    X, y, Xt = _files(tmp_path, qids)
    model = tmp_path / "c.npz"
    assert main(["fit", str(tmp_path / "train.txt"), "-o", str(model), "--regparams",
                 "0.1,1,10", "--cv", "kfold", "--folds", "4", "--seed", "2",
                 "--intervals", "cv", "-q"]) == 0
    assert main(["predict", str(model), str(tmp_path / "test.txt"), "--interval",
                 "0.75"]) == 0
    got = _lines(capsys.readouterr().out)
    lam = load_model(model, True)[1]["regparam"]
    folds = QueryGroups.from_qids(qids).folds(4, 2)      # what the CLI draws
    ref = RLS(X, y, regparam=lam).predict_interval(Xt, 0.25, "cv+", folds=folds)
    np.testing.assert_allclose(got, np.column_stack(ref), rtol=1e-10)


def test_cli_refusals(tmp_path, capsys):
    _files(tmp_path)
    train, test = str(tmp_path / "train.txt"), str(tmp_path / "test.txt")
    plain = str(tmp_path / "p.npz")
    assert main(["fit", train, "-o", plain, "-q"]) == 0
    assert main(["predict", plain, test, "--interval", "0.9"]) == 1
    assert "no prediction-interval data" in capsys.readouterr().err
    jk = str(tmp_path / "j.npz")
    assert main(["fit", train, "-o", jk, "--intervals", "jackknife", "-q"]) == 0
    assert main(["predict", jk, test, "--interval", "1.5"]) == 2
    assert "strictly between 0 and 1" in capsys.readouterr().err
    assert main(["predict", jk, test, "--interval", "0.9", "--interval-method",
                 "cv+"]) == 2
    assert "fold" in capsys.readouterr().err
    assert main(["fit", train, "-o", jk, "--learner", "rankrls", "--intervals",
                 "jackknife"]) == 2
    assert "--learner rls" in capsys.readouterr().err


def test_cli_interval_streams_chunks_with_the_whole_file_result(tmp_path, capsys,
                                                                small_text_chunk_patch):
    """predict --interval reads the data file in chunks (64 bytes of text here: dozens
    of chunks); the lines equal those of one chunk and the library's intervals for the
    whole file, for both kinds of hold-out models."""
    X, y, Xt = _files(tmp_path)
    test = str(tmp_path / "test.txt")
    for kind, method, extra in (("jackknife", "jackknife+", {}),
                                ("cv", "cv+", {"n_folds": 4})):
        model = str(tmp_path / f"{kind}.npz")
        fit = ["fit", str(tmp_path / "train.txt"), "-o", model, "--kernel", "gaussian",
               "--gamma", "0.3", "--regparam", "0.5", "--intervals", kind, "-q"]
        assert main(fit + (["--folds", "4"] if kind == "cv" else [])) == 0
        assert main(["predict", model, test, "--interval", "0.8"]) == 0
        whole = capsys.readouterr().out
        with pytest.MonkeyPatch.context() as mp:
            rows = small_text_chunk_patch(mp)
            assert main(["predict", model, test, "--interval", "0.8"]) == 0
        # the same numbers (to the rounding of GEMMs of other shapes)
        np.testing.assert_allclose(_lines(capsys.readouterr().out), _lines(whole),
                                   rtol=1e-12, atol=1e-14)
        assert len(rows) > 5 and sum(rows) == Xt.shape[0]
        if kind == "jackknife":
            ref = RLS(X, y, regparam=0.5, kernel="GaussianKernel", gamma=0.3)
            np.testing.assert_allclose(_lines(whole),
                                       np.column_stack(ref.predict_interval(Xt, 0.2)),
                                       rtol=1e-10)
        assert _lines(whole).shape == (Xt.shape[0], 3)


# The child's own high-water mark (VmHWM): ru_maxrss keeps the forked parent's mark
# across exec, which made the child's peak follow the test process's memory.
_RSS_CHILD = r"""
import sys
from rlscore.cli import main
code = main(["predict", sys.argv[1], sys.argv[2], "--interval", "0.9", "-o", sys.argv[3]])
hwm = [int(line.split()[1]) * 1024 for line in open("/proc/self/status")
       if line.startswith("VmHWM:")]
print(hwm[0] if code == 0 and hwm else -1)
"""


@pytest.mark.slow
def test_cli_interval_peak_memory_does_not_grow_with_the_file(tmp_path):
    """Peak RSS of ``predict --interval`` in a child process on 2e4 and 1e5 test lines:
    within 10% of each other (+ 8 bytes a line); the outputs agree line for line."""
    import subprocess
    import sys
    from rlscore.utilities.reader import write_svmlight
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 5))
    write_svmlight(str(tmp_path / "train.txt"), X, np.sin(X[:, 0]))
    model = str(tmp_path / "jk.npz")
    assert main(["fit", str(tmp_path / "train.txt"), "-o", model, "--kernel", "gaussian",
                 "--gamma", "0.3", "--regparam", "0.5", "--intervals", "jackknife",
                 "-q"]) == 0
    Xt = rng.normal(size=(100_000, 5))
    peaks, outs = {}, {}
    for n in (20_000, 100_000):
        test = tmp_path / f"t{n}.txt"
        write_svmlight(str(test), Xt[:n], np.zeros(n))
        out = tmp_path / f"p{n}.txt"
        run = subprocess.run([sys.executable, "-c", _RSS_CHILD, model, str(test), str(out)],
                             capture_output=True, text=True, check=True,
                             env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                                  "PYTHONSAFEPATH": "1", "PATH": "/usr/bin:/bin"})
        peaks[n] = int(run.stdout.split()[-1])
        outs[n] = out.read_text().splitlines()
    assert peaks[20_000] > 0
    assert peaks[100_000] <= 1.10 * peaks[20_000] + 8 * 80_000, peaks
    # line for line; a row's last digit may differ with the shape of the BLAS call its
    # block made (the last row of the shorter file ends a block there)
    a = np.array([[float(v) for v in line.split()] for line in outs[100_000][:20_000]])
    b = np.array([[float(v) for v in line.split()] for line in outs[20_000]])
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
