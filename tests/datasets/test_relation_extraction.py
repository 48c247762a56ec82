"""The synthetic relation-extraction generator and the tutorial that uses it."""

import importlib.util
import itertools
import pathlib

import numpy as np
import pytest

from rlscore.datasets import make_relation_extraction
from rlscore.datasets.relation_extraction import _INTERACT_VERBS, _NEUTRAL_VERBS
from rlscore.kernel import AllPathsGraphKernel, relation_graph

TUTORIAL = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tutorials" / \
    "relation_extraction.py"


def test_generator_shapes_determinism_and_parses():
    g1, y1, s1, parses = make_relation_extraction(30, random_state=5, return_parses=True)
    g2, y2, s2 = make_relation_extraction(30, random_state=5)
    assert len(g1) == len(y1) == len(s1) == len(parses)
    assert set(np.unique(y1)) <= {-1.0, 1.0}
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(s1, s2)
    assert set(s1) == set(range(30))
    # each sentence yields every unordered pair of its 2 or 3 mentions
    for i in range(30):
        idx = np.flatnonzero(s1 == i)
        mentions = parses[idx[0]]["other_entities"] + [parses[idx[0]]["entity1"],
                                                        parses[idx[0]]["entity2"]]
        assert len(idx) == len(list(itertools.combinations(mentions, 2)))
    k = AllPathsGraphKernel(g1)
    rebuilt = [relation_graph(**p) for p in parses]
    np.testing.assert_allclose(k.getKM(rebuilt), k.getKM(g2), rtol=1e-12)


def test_generator_labels_follow_templates():
    _, y, _ = make_relation_extraction(40, noise=0.0, random_state=1,
                                       variant_weights=[0, 0, 1, 0, 0])
    assert np.all(y == -1)
    _, y, _, parses = make_relation_extraction(40, noise=0.0, random_state=2,
                                               variant_weights=[1, 0, 0, 0, 0],
                                               return_parses=True)
    for label, p in zip(y, parses):
        verbs = set(p["tokens"])
        assert (label > 0) == bool(verbs & set(_INTERACT_VERBS))
        assert (label < 0) == bool(verbs & set(_NEUTRAL_VERBS))
    _, y_noisy, _ = make_relation_extraction(40, noise=1.0, random_state=2,
                                             variant_weights=[1, 0, 0, 0, 0])
    np.testing.assert_array_equal(y_noisy, -y)


def test_generator_bad_input():
    with pytest.raises(ValueError, match="noise"):
        make_relation_extraction(5, noise=1.5)
    with pytest.raises(ValueError, match="n_sentences"):
        make_relation_extraction(0)
    with pytest.raises(ValueError, match="variant_weights"):
        make_relation_extraction(5, variant_weights=[1, 0])


def _load_tutorial():
    spec = importlib.util.spec_from_file_location("relation_extraction_tutorial", TUTORIAL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tutorial_threshold_is_the_best_f_threshold():
    tut = _load_tutorial()
    rng = np.random.default_rng(0)
    for _ in range(20):
        y = np.where(rng.random(25) < 0.4, 1.0, -1.0)
        y[0] = 1.0
        p = np.round(rng.standard_normal(25), 1)       # ties
        thr, f = tut.best_f_threshold(y, p)
        brute = max(tut.f_score(y, p > t) for t in np.r_[np.unique(p) - 1e-9, p.max()])
        assert f == pytest.approx(brute)
        assert tut.f_score(y, p > thr) == pytest.approx(f)


def test_tutorial_runs_and_learns():
    tut = _load_tutorial()
    results = tut.main(["--quick"])
    for variant in ("sum", "max"):
        auc_mean, f_mean = results[variant][:, 0].mean(), results[variant][:, 1].mean()
        assert auc_mean > 0.75, (variant, auc_mean)
        assert f_mean > 0.5, (variant, f_mean)
