import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from rlscore.plot import cv_curve, grid_edge  # noqa: E402


def test_curve_data_equal_the_table_and_png_is_written(tmp_path):
    import matplotlib.pyplot as plt
    grid = [2.0 ** k for k in range(-4, 5)]
    perf = np.array([0.6, 0.65, 0.7, 0.72, 0.71, 0.7, 0.69, 0.68, 0.66])
    path = tmp_path / "cv.png"
    fig = cv_curve(grid, perf, chosen=(1.0, 0.72), measure="c-index", path=path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    line = fig.axes[0].lines[0]
    np.testing.assert_array_equal(line.get_xdata(), grid)
    np.testing.assert_array_equal(line.get_ydata(), perf)
    assert fig.axes[0].get_xscale() == "log"
    plt.close(fig)


def test_edge_choice_warns_and_is_noted():
    import matplotlib.pyplot as plt
    with pytest.warns(UserWarning, match="upper edge"):
        fig = cv_curve([0.1, 1, 10], [[1, 2, 3], [1, 1, 1]], chosen=10.0,
                       labels=["gamma=1", "gamma=2"])
    # the note is the axes' title: above the curves and the legend, wrapped to fit
    assert "upper edge" in fig.axes[0].get_title().replace("\n", " ")
    assert len(fig.axes[0].lines) == 3
    plt.close(fig)


def test_grid_edge_and_bad_input():
    assert grid_edge([1, 2, 3], 1) == "lower"
    assert grid_edge([1, 2, 3], 2) is None
    assert grid_edge([1], 1) is None
    with pytest.raises(ValueError, match="grid"):
        cv_curve([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="positive"):
        cv_curve([0, 1], [1, 2])
