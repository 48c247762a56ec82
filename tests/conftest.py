"""Test configuration: make sure the compiled package is the one under test."""

import numpy as np
import pytest


def pytest_report_header(config):
    import rlscore
    from rlscore._ext import _lpo  # fails loudly if the extensions were not built
    return f"rlscore {rlscore.__version__} from {rlscore.__file__} (ext: {_lpo.__file__})"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
