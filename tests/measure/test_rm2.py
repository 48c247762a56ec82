"""r_m^2 (rlscore.measure.rm2) against its definition computed independently: scipy's
Pearson correlation for r^2 and a least-squares fit through the origin for r0^2."""

import numpy as np
import pytest
from scipy import stats

from rlscore.measure import UndefinedPerformance, measure_by_name, rm2


def reference(y, p, variant="roy"):
    r2 = stats.pearsonr(y, p)[0] ** 2
    k = np.linalg.lstsq(p[:, None], y, rcond=None)[0][0]
    r02 = 1 - np.sum((y - k * p) ** 2) / np.sum((y - y.mean()) ** 2)
    gap = r2 - r02 if variant == "roy" else r2 ** 2 - r02 ** 2
    return r2 * (1 - np.sqrt(abs(gap)))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("variant", ["roy", "deepdta"])
def test_rm2_equals_the_definition(seed, variant):
    rng = np.random.default_rng(seed)
    y = rng.normal(6, 1, size=200)          # pKd-like
    p = 0.6 * y + rng.normal(2.0, 0.5, size=200)
    assert rm2(y, p, variant=variant) == pytest.approx(reference(y, p, variant),
                                                       rel=1e-12)


def test_variants_differ_by_the_squares():
    rng = np.random.default_rng(9)
    y = rng.normal(size=100)
    p = y + rng.normal(3.0, 0.8, size=100)   # offset: r0^2 far from r^2
    a, b = rm2(y, p), rm2(y, p, variant="deepdta")
    assert a != pytest.approx(b, rel=1e-3)
    assert a == pytest.approx(reference(y, p)) and b == pytest.approx(
        reference(y, p, "deepdta"))


def test_perfect_predictions_and_columns():
    y = np.arange(1.0, 11.0)
    assert rm2(y, y) == pytest.approx(1.0, abs=1e-12)
    Y = np.column_stack([y, y[::-1] ** 2])
    P = np.column_stack([y + 0.1 * np.sin(y), y[::-1] ** 2 + np.cos(y)])
    assert rm2(Y, P) == pytest.approx(np.mean([reference(Y[:, c], P[:, c])
                                               for c in range(2)]), rel=1e-12)
    assert rm2.iserror is False
    assert measure_by_name("rm2")(y, P[:, 0]) == rm2(y, P[:, 0])


@pytest.mark.parametrize("y, p", [(np.ones(5), np.arange(5.0)),
                                  (np.arange(5.0), np.full(5, 2.0)),
                                  (np.arange(5.0), np.zeros(5))])
def test_undefined_cases(y, p):
    with pytest.raises(UndefinedPerformance):
        rm2(y, p)


def test_bad_variant():
    with pytest.raises(ValueError, match="variant"):
        rm2(np.arange(4.0), np.arange(4.0), variant="graphdta")
