"""One index checker (rlscore._validation.as_index_array) behind every face that takes
indices: each refuses the same bad inputs with the same message naming its argument."""

import re

import numpy as np
import pytest

from rlscore._validation import IndexArrayError, as_index_array
from rlscore.core.structure import pairs_to_flat
from rlscore.core.structure import PairwiseKernelOperator, as_index_vector
from rlscore.estimators import KernelRLSCV
from rlscore.learner import RLS, CGKronRLS
from rlscore.model_io import ModelFileError, load_model, save_model
from rlscore.predictor import KernelPairwisePredictor
from rlscore.utilities.array_tools import as_index_list

M = 6          # every face below indexes M objects

BAD = {
    "out of range": [0, 1, M + 3],
    "negative": [-1, 0, 1],
    "strings": ["0", "1", "2"],
    "fraction": [0.5, 1.0, 2.0],
    "bool": [True, False, True],
    "2-D": [[0, 1, 2], [1, 2, 3]],
}


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((M, 3)), rng.standard_normal(M), rng


def _rls_holdout(inds):
    X, y, _ = _data()
    RLS(X=X, Y=y, regparam=1.0).holdout(inds)


def _cv_split(inds):
    X, y, _ = _data()
    KernelRLSCV(alphas=[1.0], cv=[(np.arange(3), inds)]).fit(X, y)


def _pairs(inds):
    pairs_to_flat(inds, [0, 1, 2], (M, 4))


def _pairwise_predict(inds):
    _, _, rng = _data()
    KernelPairwisePredictor(rng.standard_normal(12)).predict(
        rng.standard_normal((M, 4)), rng.standard_normal((3, 3)), inds, [0, 1, 2])


def _operator(inds):
    _, _, rng = _data()
    PairwiseKernelOperator(rng.standard_normal((M, M)), np.eye(3), inds, [0, 1, 2])


def _cg_kron(inds):
    _, _, rng = _data()
    A = rng.standard_normal((M, M))
    CGKronRLS(K1=A @ A.T, K2=np.eye(3), Y=np.ones(3), label_row_inds=inds,
              label_col_inds=[0, 1, 2], regparam=1.0)


# face -> (call, the argument name in the message, what the face forbids beyond BAD)
FACES = {
    "_validation.as_index_array": (lambda i: as_index_array(i, M, "idx"), "idx"),
    "utilities.as_index_list": (lambda i: as_index_list(i, M, "idx"), "idx"),
    "core.vec_trick.as_index_vector": (lambda i: as_index_vector(i, M, "idx"), "idx"),
    "learner RLS.holdout": (_rls_holdout, "indices"),
    "estimators cv splits": (_cv_split, "the test indices of split 0"),
    "core.pairs.pairs_to_flat": (_pairs, "rows"),
    "KernelPairwisePredictor.predict": (_pairwise_predict, "inds_K1pred"),
    "PairwiseKernelOperator": (_operator, "row_inds_K1"),
    "CGKronRLS": (_cg_kron, "label_row_inds"),
}


def _canonical(bad, name):
    """The checker's own message for this input under this name."""
    with pytest.raises(ValueError) as info:
        as_index_array(bad, M, name, unique=False)
    return str(info.value)


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("face", sorted(FACES))
def test_every_face_refuses_bad_indices_with_one_message(face, kind):
    call, name = FACES[face]
    bad = BAD[kind]
    if face == "CGKronRLS" and kind == "2-D":
        # a 2-D array there is one index vector per kernel term: refused for the count
        with pytest.raises(ValueError, match="label_row_inds must hold one index vector"):
            call(np.asarray(bad))
        return
    with pytest.raises(ValueError) as info:
        call(bad)
    msg = str(info.value)
    assert name in msg
    assert _canonical(bad, name) in msg, msg
    if kind in ("out of range", "negative"):
        # RLScore's convention (IndexError) and scikit-learn's (ValueError) at once
        assert isinstance(info.value, IndexError) and isinstance(info.value, ValueError)
        assert re.search(rf"holds index -?\d+, outside 0\.\.{M - 1}", msg)
    else:
        assert not isinstance(info.value, IndexError)


def test_good_indices_pass_every_face_unchanged():
    np.testing.assert_array_equal(as_index_array([2.0, 0, 5], M), [2, 0, 5])
    assert as_index_array(np.array([1, 3]), M).dtype == np.intp
    assert as_index_vector([1, 1], M, "v").dtype == np.int32
    assert as_index_list([4, 4], M).tolist() == [4, 4]          # repeats allowed there
    mask = np.zeros(M, dtype=bool)
    mask[[1, 4]] = True
    np.testing.assert_array_equal(as_index_array(mask, M, mask=True), [1, 4])


def test_options_of_the_checker():
    with pytest.raises(IndexArrayError, match="idx holds repeated indices"):
        as_index_array([1, 1], M, "idx")
    with pytest.raises(ValueError, match="idx is empty"):
        as_index_array([], M, "idx")
    assert as_index_array([], M, "idx", allow_empty=True).size == 0
    with pytest.raises(ValueError, match="boolean mask must have length"):
        as_index_array([True, False], M, "idx", mask=True)
    with pytest.raises(ValueError, match="more than"):
        as_index_array([0], 2**31, "idx", dtype=np.int32)
    with pytest.raises(ValueError, match="non-integral"):
        as_index_array([0.0, np.nan], M, "idx")
    with pytest.raises(ValueError, match="dtype complex"):
        as_index_array(np.array([1 + 0j]), M, "idx")


@pytest.mark.parametrize("bad, needle", [
    (np.array([0, 1, 2**31 + 5], dtype=np.int64), r"holds index 2147483653, outside 0\.\."),
    (np.array([-1, 0, 1], dtype=np.int64), r"holds index -1, outside 0\.\."),
])
def test_model_files_refuse_bad_training_indices(tmp_path, bad, needle):
    """The model-file face: a training index vector out of range is refused with the
    checker's message naming the member (the file's checksum updated to match)."""
    from rlscore.model_io import _digest
    import json
    import zipfile

    _, _, rng = _data()
    pred = KernelPairwisePredictor(rng.standard_normal(3), [0, 1, 2], [0, 1, 2])
    path = tmp_path / "m.npz"
    save_model(pred, path)
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(arrays["__metadata__"].tobytes())
    arrays["inds1"] = bad
    meta["sha256"]["inds1"] = _digest(bad)
    arrays["__metadata__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **arrays)
    assert zipfile.is_zipfile(path)
    with pytest.raises(ModelFileError, match="member 'inds1' " + needle):
        load_model(path)
