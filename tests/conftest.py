"""Test configuration: make sure the compiled package is the one under test."""

import os

import numpy as np
import pytest

# Child processes (``python -c ...`` in the CLI, fuzz and bounds tests) must import the
# installed package too: without this, a child started in the repository root puts the
# source folder (no compiled extensions) first on sys.path (PYTHONSAFEPATH, Python >= 3.11).
os.environ.setdefault("PYTHONSAFEPATH", "1")


def pytest_report_header(config):
    import rlscore
    from rlscore._ext import _lpo  # fails loudly if the extensions were not built
    return f"rlscore {rlscore.__version__} from {rlscore.__file__} (ext: {_lpo.__file__})"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
