"""rlscore fit --gamma learn: the learned parameters in the model file and its metadata;
option combinations that cannot work are usage errors."""

import numpy as np
import pytest

from rlscore.cli import main
from rlscore.learner import LeaveOneOutRLS
from rlscore.model_io import load_model, read_metadata
from rlscore.utilities.reader import read_svmlight, write_svmlight


@pytest.fixture
def train_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    path = tmp_path / "train.txt"
    write_svmlight(str(path), X, y)
    return path, X, y


def test_fit_gamma_learn_writes_learned_parameters(train_file, tmp_path, capsys):
    path, X, y = train_file
    out = tmp_path / "m.npz"
    assert main(["fit", str(path), "-o", str(out), "--kernel", "gaussian",
                 "--gamma", "learn"]) == 0
    # the file holds the values as text: the same learner on the values read back
    Xf, yf, _ = read_svmlight(str(path))
    ref = LeaveOneOutRLS(Xf, yf[:, 0], kernel="GaussianKernel", gamma="learn")
    pred = load_model(str(out))
    assert pred.kernel.gamma == ref.gamma
    np.testing.assert_allclose(pred.predict(X), ref.predict(X), rtol=1e-10)
    meta = read_metadata(str(out))
    kl = meta["info"]["kernel_learning"] if "info" in meta else meta["kernel_learning"]
    assert kl["regparam"] == ref.regparam
    assert len(kl["criterion_per_step"]) == len(ref.cv_history)
    assert "learned by leave-one-out gradient" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [["--kernel", "linear"], ["--regparam", "1"],
                                   ["--regparams", "1,2"], ["--cv", "kfold"],
                                   ["--learner", "ranksvm"], ["--basis", "5"]])
def test_fit_gamma_learn_bad_combinations(train_file, tmp_path, extra):
    path, _, _ = train_file
    argv = ["fit", str(path), "-o", str(tmp_path / "m.npz"), "--kernel", "gaussian",
            "--gamma", "learn"] + extra
    assert main(argv) == 2


def test_cv_refuses_gamma_learn_and_bad_values(train_file):
    path, _, _ = train_file
    assert main(["cv", str(path), "--kernel", "gaussian", "--gamma", "learn"]) == 2
    with pytest.raises(SystemExit):
        main(["cv", str(path), "--kernel", "gaussian", "--gamma", "lern"])


@pytest.fixture
def query_file(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(48, 3))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=48)
    q = np.repeat(np.arange(8), 6)
    path = tmp_path / "rank.txt"
    write_svmlight(str(path), X, y, qids=q)
    return path, X


@pytest.mark.parametrize("learner", ["query-rankrls", "rankrls"])
def test_fit_gamma_learn_ranking_writes_the_core_result(query_file, tmp_path, capsys,
                                                        learner):
    from rlscore.core.hyper import learn_kernel_global, learn_kernel_lqo
    from rlscore.learner import GlobalRankRLS, QueryRankRLS
    path, X = query_file
    out = tmp_path / "m.npz"
    assert main(["fit", str(path), "-o", str(out), "--learner", learner, "--kernel",
                 "gaussian", "--gamma", "learn"]) == 0
    Xf, yf, qf = read_svmlight(str(path))
    if learner == "query-rankrls":
        core = learn_kernel_lqo(Xf, yf[:, 0], qf, "GaussianKernel")
        ref = QueryRankRLS(Xf, yf[:, 0], qf, regparam=core.regparam,
                           kernel="GaussianKernel", gamma=core.kernel_params["gamma"])
    else:
        core = learn_kernel_global(Xf, yf[:, 0], "GaussianKernel")
        ref = GlobalRankRLS(Xf, yf[:, 0], regparam=core.regparam,
                            kernel="GaussianKernel", gamma=core.kernel_params["gamma"])
    pred = load_model(str(out))
    assert pred.kernel.gamma == core.kernel_params["gamma"]
    np.testing.assert_allclose(pred.predict(X), ref.predict(X), rtol=1e-8, atol=1e-10)
    meta = read_metadata(str(out))
    kl = meta["info"]["kernel_learning"] if "info" in meta else meta["kernel_learning"]
    assert kl["regparam"] == core.regparam and kl["criterion"] == core.criterion
    assert ("leave-query-out" if learner == "query-rankrls" else "global RankRLS") in \
        kl["method"]
    assert "learned by" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [["--cv", "loo"], ["--regparam", "1"],
                                   ["--kernel", "linear"],
                                   ["--learn-criterion", "evidence"]])
def test_fit_gamma_learn_query_bad_combinations(query_file, tmp_path, extra):
    path, _ = query_file
    argv = ["fit", str(path), "-o", str(tmp_path / "m.npz"), "--learner",
            "query-rankrls", "--kernel", "gaussian", "--gamma", "learn"] + extra
    assert main(argv) == 2


@pytest.mark.parametrize("penalty", ["bayes", "0.01"])
def test_fit_gamma_learn_ard_and_penalty(train_file, tmp_path, capsys, penalty):
    """--ard and --kernel-penalty pass through to LeaveOneOutRLS(ard=, penalty=): the
    same learned widths, in the model file and its metadata."""
    path, X, y = train_file
    out = tmp_path / "m.npz"
    assert main(["fit", str(path), "-o", str(out), "--kernel", "gaussian",
                 "--gamma", "learn", "--ard", "--kernel-penalty", penalty]) == 0
    Xf, yf, _ = read_svmlight(str(path))
    ref = LeaveOneOutRLS(Xf, yf[:, 0], kernel="GaussianKernel", gamma="learn", ard=True,
                         penalty=penalty if penalty == "bayes" else float(penalty))
    pred = load_model(str(out))
    np.testing.assert_allclose(pred.kernel.gamma, ref.gamma, rtol=1e-12)
    np.testing.assert_allclose(pred.predict(X), ref.predict(X), rtol=1e-10)
    meta = read_metadata(str(out))
    kl = meta["info"]["kernel_learning"] if "info" in meta else meta["kernel_learning"]
    assert kl["ard"] is True
    assert kl["penalty"] == (penalty if penalty == "bayes" else float(penalty))
    assert len(kl["kernel_params"]["gamma"]) == X.shape[1]


@pytest.mark.parametrize("extra", [["--ard"], ["--kernel-penalty", "bayes"]])
def test_ard_and_penalty_need_gamma_learn(train_file, tmp_path, extra):
    path, _, _ = train_file
    assert main(["fit", str(path), "-o", str(tmp_path / "m.npz"), "--kernel", "gaussian",
                 "--gamma", "0.5"] + extra) == 2


def test_ard_needs_gaussian_and_penalty_value(train_file, tmp_path):
    path, _, _ = train_file
    base = ["fit", str(path), "-o", str(tmp_path / "m.npz"), "--gamma", "learn"]
    assert main(base + ["--kernel", "polynomial", "--ard"]) == 2
    for bad in ("-1", "jeffreys", "nan"):
        with pytest.raises(SystemExit):
            main(base + ["--kernel", "gaussian", "--kernel-penalty", bad])


def test_fit_learn_criterion_evidence(train_file, tmp_path, capsys):
    path, X, y = train_file
    out = tmp_path / "m.npz"
    assert main(["fit", str(path), "-o", str(out), "--kernel", "gaussian", "--gamma",
                 "learn", "--ard", "--learn-criterion", "evidence"]) == 0
    Xf, yf, _ = read_svmlight(str(path))
    ref = LeaveOneOutRLS(Xf, yf[:, 0], kernel="GaussianKernel", gamma="learn", ard=True,
                         criterion="evidence")
    pred = load_model(str(out))
    np.testing.assert_allclose(pred.kernel.gamma, ref.gamma, rtol=1e-12)
    meta = read_metadata(str(out))
    kl = meta["info"]["kernel_learning"] if "info" in meta else meta["kernel_learning"]
    assert kl["criterion_name"] == "evidence" and kl["criterion"] == ref.kernel_learning.criterion
    assert "learned by evidence gradient" in capsys.readouterr().out
    assert main(["fit", str(path), "-o", str(out), "--kernel", "gaussian", "--gamma",
                 "0.5", "--learn-criterion", "evidence"]) == 2


@pytest.mark.parametrize("extra,name", [(["--ard"], "evidence"), ([], "loo"),
                                        (["--ard", "--kernel-penalty", "bayes"], "loo")])
def test_fit_default_learn_criterion(train_file, tmp_path, capsys, extra, name):
    """Without --learn-criterion (auto): the evidence with --ard (the leave-one-out
    error over-fits many widths), the leave-one-out error otherwise; the metadata name
    the criterion minimized and hold its value at the learned point."""
    path, X, y = train_file
    out = tmp_path / "m.npz"
    assert main(["fit", str(path), "-o", str(out), "--kernel", "gaussian", "--gamma",
                 "learn"] + extra) == 0
    Xf, yf, _ = read_svmlight(str(path))
    kw = {"ard": "--ard" in extra}
    if "bayes" in extra:
        kw["penalty"] = "bayes"
    ref = LeaveOneOutRLS(Xf, yf[:, 0], kernel="GaussianKernel", gamma="learn",
                         criterion=name, **kw)
    np.testing.assert_allclose(load_model(str(out)).kernel.gamma, ref.gamma, rtol=1e-12)
    meta = read_metadata(str(out))
    kl = meta["info"]["kernel_learning"] if "info" in meta else meta["kernel_learning"]
    assert kl["criterion_name"] == name
    assert kl["criterion"] == ref.kernel_learning.criterion
    assert ("learned by evidence gradient" in capsys.readouterr().out) == (name == "evidence")
