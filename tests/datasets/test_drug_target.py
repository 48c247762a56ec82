"""Drug–target loaders on tiny files written in the formats of the public data sets,
and the synthetic drug–target generator."""

import lzma

import numpy as np
import pytest

from rlscore.datasets import (load_davis, load_metz, load_yamanishi, make_drug_target)
from rlscore.learner import TwoStepRLS


def _write(path, M, fmt="%.6g"):
    np.savetxt(path, M, fmt=fmt, delimiter=" ")


def test_davis(tmp_path, rng):
    Kd = rng.choice([10.0, 300.0, 10000.0, 0.5], size=(4, 6))
    XD = np.eye(4) * 0.5 + 0.5
    XT = rng.random((6, 6)); XT = XT + XT.T
    _write(tmp_path / "drug-target_interaction_affinities_Kd__Davis_et_al.2011v1.txt", Kd)
    _write(tmp_path / "drug-drug_similarities_2D.txt", XD)
    np.savetxt(tmp_path / "target-target_similarities_WS.txt", XT, fmt="%.17g")
    D, T, Y = load_davis(tmp_path)
    np.testing.assert_array_equal(D, XD)
    np.testing.assert_array_equal(T, XT)
    np.testing.assert_allclose(Y, 9 - np.log10(Kd))
    assert Y[Kd == 10000.0].tolist() == [5.0] * int(np.sum(Kd == 10000.0))
    np.testing.assert_array_equal(load_davis(tmp_path, affinity="Kd")[2], Kd)
    with pytest.raises(FileNotFoundError, match="WS_normalized"):
        load_davis(tmp_path, target_kernel="normalized")
    with pytest.raises(ValueError, match="affinity"):
        load_davis(tmp_path, affinity="Ki")
    _write(tmp_path / "drug-drug_similarities_2D.txt", np.eye(5))
    with pytest.raises(ValueError, match=r"shape \(5, 5\), expected \(4, 4\)"):
        load_davis(tmp_path)
    with pytest.raises(FileNotFoundError, match="not a directory"):
        load_davis(tmp_path / "nowhere")


def test_metz_xz_and_nan(tmp_path, rng):
    Y = rng.uniform(4, 10, (5, 3))
    Y[rng.random((5, 3)) < 0.4] = np.nan
    with open(tmp_path / "known_drug-target_interaction_affinities_pKi__Metz_et_al.2011.txt",
              "w") as fh:
        np.savetxt(fh, Y, fmt="%.4f")
    XD = np.full((5, 5), 40.0); np.fill_diagonal(XD, 100)
    with lzma.open(tmp_path / "drug-drug_similarities_2D__Metz_et_al.2011.reconstructed.txt.xz",
                   "wt") as fh:
        np.savetxt(fh, XD, fmt="%d")
    XT = np.full((3, 3), 20.0); np.fill_diagonal(XT, 100)
    _write(tmp_path / "target-target_similarities_WS_normalized__Metz_et_al.2011.txt", XT)
    D, T, L = load_metz(tmp_path)
    np.testing.assert_array_equal(D, XD / 100)
    np.testing.assert_array_equal(T, XT / 100)
    np.testing.assert_array_equal(np.isnan(L), np.isnan(Y))
    np.testing.assert_allclose(L[~np.isnan(L)], np.round(Y[~np.isnan(Y)], 4))
    np.testing.assert_array_equal(load_metz(tmp_path, scale=False)[0], XD)


def _table(path, rows, cols, M):
    lines = ["\t" + "\t".join(cols)]
    lines += [r + "\t" + "\t".join(f"{v:g}" for v in row) for r, row in zip(rows, M)]
    path.write_text("\n".join(lines) + "\n")


def test_yamanishi(tmp_path, rng):
    drugs, targets = ["D00001", "D00002", "D00003"], ["hsa1", "hsa2"]
    A = np.array([[1, 0, 0], [0, 1, 1]])               # targets x drugs
    KD = rng.random((3, 3)).round(3)
    KT = np.array([[1, 0.2], [0.2, 1]])
    _table(tmp_path / "nr_admat_dgc.txt", targets, drugs, A)
    _table(tmp_path / "nr_simmat_dc.txt", drugs, drugs, KD)
    _table(tmp_path / "nr_simmat_dg.txt", targets, targets, KT)
    D, T, Y, d_ids, t_ids = load_yamanishi(tmp_path, "nr", return_ids=True)
    np.testing.assert_array_equal(Y, A.T)              # rows are drugs
    np.testing.assert_allclose(D, KD)
    np.testing.assert_array_equal(T, KT)
    assert d_ids == drugs and t_ids == targets
    assert len(load_yamanishi(tmp_path)) == 3
    _table(tmp_path / "gpcr_admat_dgc.txt", targets, drugs, A)
    _table(tmp_path / "gpcr_simmat_dc.txt", drugs[::-1], drugs[::-1], KD)
    _table(tmp_path / "gpcr_simmat_dg.txt", targets, targets, KT)
    with pytest.raises(ValueError, match="drug ids"):
        load_yamanishi(tmp_path, "gpcr")
    with pytest.raises(ValueError, match="subset"):
        load_yamanishi(tmp_path, "xx")
    (tmp_path / "ic_admat_dgc.txt").write_text("\tD1\tD2\nhsa1\t1\n")
    with pytest.raises(ValueError, match="line 2"):
        load_yamanishi(tmp_path, "ic")


def test_make_drug_target_settings_get_harder():
    KD, KT, Y = make_drug_target(30, 25, random_state=0)
    assert KD.shape == (30, 30) and KT.shape == (25, 25) and Y.shape == (30, 25)
    for K in (KD, KT):
        np.testing.assert_allclose(K, K.T)
        np.testing.assert_allclose(np.diag(K), 1.0)
        assert np.linalg.eigvalsh(K).min() > -1e-10
    np.testing.assert_array_equal(make_drug_target(30, 25, random_state=0)[2], Y)
    learner = TwoStepRLS(K1=KD, K2=KT, Y=Y, regparam1=0.1, regparam2=0.1)
    y = Y.ravel(order="F")

    def mse(p):
        return np.mean((p - y) ** 2)
    a, b, c, d = (mse(learner.in_sample_loo()), mse(learner.leave_x1_out()),
                  mse(learner.leave_x2_out()), mse(learner.out_of_sample_loo()))
    assert a < min(b, c) and max(b, c) < d < np.var(y) * 1.5
