"""The prediction-interval tutorial, small: its findings on diabetes and the Davis code
path on a tiny folder in the Davis format (no MAPIE needed)."""

import importlib.util
import pathlib

import numpy as np
import pytest

pytest.importorskip("sklearn")
TUTORIAL = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "tutorials"
            / "prediction_intervals.py")


def _load():
    spec = importlib.util.spec_from_file_location("tutorial_intervals", TUTORIAL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_diabetes_coverage_and_widths():
    mod = _load()
    res = mod.run_diabetes(n_splits=2, mapie=False)
    cov = {m: c for m, (c, w) in res["methods"].items()}
    width = {m: w for m, (c, w) in res["methods"].items()}
    assert all(0.8 <= c <= 0.98 for c in cov.values()), cov      # nominal 0.9
    assert width["jackknife-minmax"] >= width["jackknife+"] > 0
    assert "jackknife+" in mod.table_diabetes(res)


def test_davis_path_on_tiny_folder(tmp_path):
    from rlscore.datasets import make_drug_target
    mod = _load()
    KD, KT, Y = make_drug_target(12, 8, random_state=0)
    np.savetxt(tmp_path / "drug-target_interaction_affinities_Kd__Davis_et_al.2011v1.txt",
               10 ** (9 - (Y - Y.min() + 5)))
    np.savetxt(tmp_path / "drug-drug_similarities_2D.txt", KD)
    np.savetxt(tmp_path / "target-target_similarities_WS.txt", KT * 1000)
    res = mod.run_davis(str(tmp_path), n_folds=3, mapie=False, n_train_drugs=8, m=50,
                        n_test=14)
    keys = [k for k in res if isinstance(k, tuple)]
    assert len(keys) == 4
    assert all(0.0 <= res[k][0] <= 1.0 and res[k][1] > 0 for k in keys)
    assert "drug-wise" in mod.table_davis(res)
