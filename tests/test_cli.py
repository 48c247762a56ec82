"""The command line: ``rlscore demo`` runs the main job on the bundled data."""

import re
import subprocess
import tempfile
import sys

from rlscore.cli import main


def test_demo_prints_what_it_learned_and_cv_performance(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "270 patients, 13 features" in out
    auc = float(re.search(r"leave-pair-out AUC = ([0-9.]+)", out).group(1))
    assert 0.85 < auc < 0.95          # heart disease is predictable, not perfectly
    assert "largest weights" in out


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_module_entry_point():
    # outside the checkout, so that the installed package (not the source folder) runs
    res = subprocess.run([sys.executable, "-m", "rlscore", "--help"], capture_output=True,
                         text=True, timeout=300, cwd=tempfile.gettempdir())
    assert res.returncode == 0 and "demo" in res.stdout
