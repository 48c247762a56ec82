"""The command line trains core models (docs/architecture.rst, "The road from a face to
the core"): every fit path records the core class it trained in the model file -- never
a learner class of another face, never the ``RefitModel`` wrapper of a selection by
refits -- and predicts as the learner face does on the same data."""

import numpy as np
import pytest

from rlscore.learner import KernelRankSVM, KfoldLinearRankSVM, LinearRankSVM
from rlscore.measure import cindex
from rlscore.model_io import load_model, read_metadata
from rlscore.utilities.reader import write_svmlight

pytestmark = [pytest.mark.filterwarnings("ignore:the selected regparam"),
              pytest.mark.usefixtures("arrays_only_budget")]


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(11)
    m = 72
    X = rng.standard_normal((m, 3))
    y = np.digitize(X @ [1.0, -0.5, 0.2] + 0.3 * rng.standard_normal(m), [-0.5, 0.5])
    q = np.repeat(np.arange(12), 6)
    with_q, without_q = tmp_path / "q.txt", tmp_path / "g.txt"
    write_svmlight(with_q, X, y.astype(float), q)
    write_svmlight(without_q, X, y.astype(float))
    return {"X": X, "y": y.astype(float), "q": q, "q_file": with_q, "g_file": without_q}


def _fit(run_cli, tmp_path, argv):
    out = tmp_path / "m.npz"
    code, _, err = run_cli(["fit", *argv, "-o", out, "-q"])
    assert code == 0, err
    return read_metadata(str(out)), load_model(str(out))


def test_ranksvm_fit_is_the_core_model(files, run_cli, tmp_path):
    X, y, q = files["X"], files["y"], files["q"]
    meta, pred = _fit(run_cli, tmp_path, [files["q_file"], "--learner", "ranksvm",
                                          "--regparam", "0.1"])
    assert (meta["learner"], meta["regparam"]) == ("RankSVMModel", 0.1)
    ref = LinearRankSVM(X, y, q, regparam=0.1).predict(X)
    np.testing.assert_allclose(np.ravel(pred.predict(X)), ref, rtol=1e-8, atol=1e-12)


def test_kernel_ranksvm_fit_is_the_core_model(files, run_cli, tmp_path):
    X, y, q = files["X"], files["y"], files["q"]
    meta, pred = _fit(run_cli, tmp_path, [files["q_file"], "--learner", "ranksvm",
                                          "--kernel", "gaussian", "--gamma", "0.5",
                                          "--regparam", "0.1"])
    assert meta["learner"] == "RankSVMModel"
    ref = KernelRankSVM(X, y, q, regparam=0.1, kernel="GaussianKernel",
                        gamma=0.5).predict(X)
    np.testing.assert_allclose(np.ravel(pred.predict(X)), ref, rtol=1e-8, atol=1e-12)


def test_ranksvm_kfold_without_qids_is_the_core_model(files, run_cli, tmp_path):
    """The K-fold of examples (a file without qid:) selects as KfoldLinearRankSVM on the
    command's folds, and the file holds the model trained on every row at the choice."""
    X, y = files["X"], files["y"]
    meta, pred = _fit(run_cli, tmp_path, [files["g_file"], "--learner", "ranksvm",
                                          "--regparams", "0.001,0.1,10", "--cv", "kfold",
                                          "--folds", "3", "--seed", "2"])
    assert meta["learner"] == "RankSVMModel"
    from rlscore.cli._select import example_folds
    ref = KfoldLinearRankSVM(X, y, None, folds=example_folds(X.shape[0], 3, 2),
                             regparams=[0.001, 0.1, 10.0], measure=cindex)
    np.testing.assert_allclose(meta["info"]["cv_performances"], ref.cv_performances,
                               rtol=1e-12)
    assert meta["regparam"] == ref.regparam
    np.testing.assert_allclose(np.ravel(pred.predict(X)), ref.predict(X), rtol=1e-8,
                               atol=1e-12)


def test_ranksvm_selected_by_refits_records_the_model_not_the_wrapper(files, run_cli,
                                                                     tmp_path):
    """--cv lqo retrains RankSVM without each query (a RefitModel); the file records the
    RankSVMModel trained on every row at the chosen regparam."""
    X, y, q = files["X"], files["y"], files["q"]
    meta, pred = _fit(run_cli, tmp_path, [files["q_file"], "--learner", "ranksvm",
                                          "--regparams", "0.01,1", "--cv", "lqo"])
    assert meta["learner"] == "RankSVMModel"
    ref = LinearRankSVM(X, y, q, regparam=meta["regparam"]).predict(X)
    np.testing.assert_allclose(np.ravel(pred.predict(X)), ref, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("argv,name", [
    (["--learner", "rls"], "RLSModel"),
    (["--learner", "rls", "--kernel", "gaussian", "--gamma", "learn"], "RLSModel"),
    (["--learner", "rls", "--kernel", "gaussian", "--gamma", "0.5", "--basis", "20",
      "--stream"], "StreamedFit"),
])
def test_every_fit_path_records_a_core_class(files, run_cli, tmp_path, argv, name):
    meta, _ = _fit(run_cli, tmp_path, [files["g_file"], *argv])
    assert meta["learner"] == name
