"""Model files: round trips for every predictor type, and refusal of bad files."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.learner import RLS, KronRLS, QueryRankRLS
from rlscore.model_io import (FORMAT_VERSION, ModelFileError, load_model, read_metadata,
                              save_model)
from rlscore.predictor import (KernelPairwisePredictor, KernelPredictor,
                               LinearPairwisePredictor, LinearPredictor)

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)


def _data(rng, m=30, d=6):
    return rng.standard_normal((m, d)), rng.standard_normal(m)


@pytest.mark.parametrize("kernel,params", [("LinearKernel", {"bias": 1.0}),
                                           ("GaussianKernel", {"gamma": 0.3}),
                                           ("PolynomialKernel",
                                            {"gamma": 0.5, "degree": 3, "coef0": 1.0})])
@pytest.mark.parametrize("sparse", [False, True])
def test_learner_round_trip(tmp_path, rng, kernel, params, sparse):
    X, y = _data(rng)
    Xtr = sp.csr_matrix(X) if sparse else X
    if kernel == "LinearKernel":
        # a linear kernel with more features than examples gives a KernelPredictor
        X = rng.standard_normal((10, 40))
        y = rng.standard_normal(10)
        Xtr = sp.csr_matrix(X) if sparse else X
    learner = RLS(Xtr, y, regparam=0.7, kernel=kernel, **params)
    path = tmp_path / "m.npz"
    save_model(learner, path, {"note": "hi", "grid": np.array([1.0, 2.0])})
    pred, meta = load_model(path, return_metadata=True)
    assert type(pred) is type(learner.predictor)
    Xt = rng.standard_normal((7, X.shape[1]))
    np.testing.assert_allclose(pred.predict(Xt), learner.predict(Xt), rtol=1e-12,
                               atol=1e-12)
    assert meta["learner"] == "RLS" and meta["regparam"] == 0.7
    assert meta["info"] == {"note": "hi", "grid": [1.0, 2.0]}
    assert meta["format_version"] == FORMAT_VERSION
    if isinstance(pred, KernelPredictor):
        assert meta["kernel"]["name"] == kernel and meta["kernel"]["params"] == params
        assert sp.issparse(pred.kernel.train_X) == sparse


def test_linear_predictor_multi_output_and_query_rankrls(tmp_path, rng):
    X = rng.standard_normal((40, 5))
    Y = rng.standard_normal((40, 3))
    p = LinearPredictor(rng.standard_normal((5, 3)), rng.standard_normal(3))
    save_model(p, tmp_path / "a.npz")
    q = load_model(tmp_path / "a.npz")
    np.testing.assert_array_equal(q.predict(X), p.predict(X))
    qr = QueryRankRLS(X, Y[:, 0], np.repeat(np.arange(8), 5), regparam=2.0)
    save_model(qr, tmp_path / "b.npz")
    np.testing.assert_array_equal(load_model(tmp_path / "b.npz").predict(X), qr.predict(X))


def test_pairwise_round_trip(tmp_path, rng):
    K1 = rng.standard_normal((6, 6)); K1 = K1 @ K1.T
    K2 = rng.standard_normal((5, 5)); K2 = K2 @ K2.T
    Y = rng.standard_normal(30)
    kron = KronRLS(K1=K1, K2=K2, Y=Y, regparam=1.0)
    save_model(kron, tmp_path / "k.npz")
    pred = load_model(tmp_path / "k.npz")
    assert isinstance(pred, KernelPairwisePredictor)
    np.testing.assert_array_equal(pred.predict(K1[:3], K2), kron.predict(K1[:3], K2))
    # sampled training pairs, two Kronecker terms with weights
    i1, i2 = rng.integers(0, 6, 12), rng.integers(0, 5, 12)
    p = KernelPairwisePredictor(rng.standard_normal(12), [i1, i1], [i2, i2], [1.0, 0.5])
    save_model(p, tmp_path / "s.npz")
    q = load_model(tmp_path / "s.npz")
    np.testing.assert_allclose(q.predict([K1, K1], [K2, K2]), p.predict([K1, K1], [K2, K2]))
    lp = LinearPairwisePredictor(rng.standard_normal((3, 4)))
    save_model(lp, tmp_path / "l.npz")
    lq = load_model(tmp_path / "l.npz")
    X1, X2 = rng.standard_normal((5, 3)), rng.standard_normal((6, 4))
    np.testing.assert_array_equal(lq.predict(X1, X2), lp.predict(X1, X2))


def test_feature_indices_stored(tmp_path):
    p = LinearPredictor(np.array([1.0, 2.0]))
    save_model(p, tmp_path / "f.npz", feature_indices=[3, 10**9], n_file_features=10**9 + 1)
    _, meta = load_model(tmp_path / "f.npz", return_metadata=True)
    np.testing.assert_array_equal(meta["feature_indices"], [3, 10**9])
    assert meta["n_file_features"] == 10**9 + 1
    with pytest.raises(ValueError, match="feature_indices has 1 entries"):
        save_model(p, tmp_path / "g.npz", feature_indices=[3])


def _rewrite(src, dst, edit):
    """Copy the archive, passing the parsed metadata (and arrays) through ``edit``."""
    with np.load(src) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(arrays.pop("__metadata__").tobytes())
    edit(meta, arrays)
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(dst, **arrays)


def test_bad_files(tmp_path, rng):
    X, y = _data(rng)
    good = tmp_path / "good.npz"
    save_model(RLS(X, y, kernel="GaussianKernel", gamma=0.1), good)
    assert read_metadata(good)["predictor"] == "KernelPredictor"

    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("1 1:0.5\n")
    with pytest.raises(ModelFileError, match="not a readable rlscore model file"):
        load_model(tmp_path / "text.npz")
    raw = good.read_bytes()
    (tmp_path / "trunc.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ModelFileError):
        load_model(tmp_path / "trunc.npz")
    np.savez(tmp_path / "plain.npz", W=np.ones(3))
    with pytest.raises(ModelFileError, match="no metadata"):
        load_model(tmp_path / "plain.npz")
    np.savez(tmp_path / "obj.npz", __metadata__=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ModelFileError):       # pickled content is refused, never loaded
        load_model(tmp_path / "obj.npz")

    def newer(meta, arrays):
        meta["format_version"] = FORMAT_VERSION + 1
    _rewrite(good, tmp_path / "newer.npz", newer)
    with pytest.raises(ModelFileError, match="newer rlscore"):
        load_model(tmp_path / "newer.npz")

    def other_format(meta, arrays):
        meta["format"] = "something-else"
    _rewrite(good, tmp_path / "fmt.npz", other_format)
    with pytest.raises(ModelFileError, match="unknown file format"):
        load_model(tmp_path / "fmt.npz")

    def tampered(meta, arrays):
        arrays["A"] = arrays["A"] + 1.0
    _rewrite(good, tmp_path / "tamper.npz", tampered)
    with pytest.raises(ModelFileError, match="checksum"):
        load_model(tmp_path / "tamper.npz")

    def bad_kernel(meta, arrays):
        meta["kernel"]["name"] = "os.system"
    _rewrite(good, tmp_path / "kern.npz", bad_kernel)
    with pytest.raises(ModelFileError, match="unknown kernel"):
        load_model(tmp_path / "kern.npz")


def test_unsupported_objects(tmp_path):
    with pytest.raises(TypeError, match="cannot save"):
        save_model(object(), tmp_path / "x.npz")
    with pytest.raises(TypeError, match="JSON"):
        save_model(LinearPredictor(np.ones(2)), tmp_path / "x.npz", {"f": object()})
