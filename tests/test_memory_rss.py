"""The memory budget bounds the peak resident set of the whole process (issue 44 item
15): a child process trains with a budget and reads its own high-water mark (VmHWM of
/proc/self/status) at exit; the peak must not exceed the budget it was given. The
budget is placed a few MiB above what the child holds after its imports, so the run's
arrays, its blocks and the parser's buffers have to fit in what is left (the former
plan counted the arrays alone against the whole budget, and overshot it by the
interpreter, the imports and the parser). A budget below what the process already
holds is refused before any work, with a message that says so."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from rlscore.cli import main
from rlscore.learner import StreamedRLS
from rlscore.utilities.reader import write_svmlight

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/status"),
                                reason="reads VmRSS / VmHWM of /proc/self/status")

# read by the child itself, not through rlscore (the quantity under test)
_STATUS = r"""
def status(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
"""

# the imports of the run, then what the process holds: the budget's starting point
BASELINE = _STATUS + r"""
import numpy, scipy.linalg, scipy.sparse
import rlscore.cli, rlscore.learner, rlscore.utilities.reader
import rlscore.core.rls
print(status("VmRSS"))
"""

# the command line in the child (main([...]) as `rlscore fit` runs it), then the peak
CLI_CHILD = _STATUS + r"""
import json, sys
from rlscore.cli import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "peak": status("VmHWM")}))
"""

# StreamedRLS on the file, its plan, then the peak
LEARNER_CHILD = _STATUS + r"""
import json, sys
import numpy as np
from rlscore.learner import StreamedRLS
from rlscore.utilities.reader import SvmlightSource
path, budget, nb, nl = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
model = StreamedRLS(SvmlightSource(path), kernel="GaussianKernel", gamma=0.1,
                    n_basis=nb, random_state=0, memory_budget=budget,
                    regparams=list(2.0 ** np.arange(-nl // 2, nl - nl // 2)))
print(json.dumps({"peak": status("VmHWM"), "estimate": model.plan.peak_bytes / 2**20,
                  "block": model.plan.block_size, "m": model.cv_predictions.size // nl}))
"""


def _child(code, *args, cwd):
    env = dict(os.environ, PYTHONSAFEPATH="1", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=cwd,
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1], out.stderr


def _file(tmp_path, m, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(m)
    path = tmp_path / "train.svm"
    write_svmlight(path, X, y)
    return path


def _baseline(tmp_path):
    return float(_child(BASELINE, cwd=tmp_path)[0])


def _check_peaks(tmp_path, m, n_basis, n_lambdas, room):
    """The command line and StreamedRLS, each in a child with budget = the child's
    memory after its imports + ``room`` MiB: the peak resident set stays within the
    budget; the run is the leave-one-out selection over ``n_lambdas`` lambdas."""
    path = _file(tmp_path, m)
    budget = _baseline(tmp_path) + room
    grid = ",".join(str(2.0 ** k) for k in range(-n_lambdas // 2,
                                                  n_lambdas - n_lambdas // 2))
    line, err = _child(CLI_CHILD, "fit", str(path), "--kernel", "gaussian", "--gamma",
                       "0.1", "--basis", n_basis, "--regparams", grid, "--cv", "loo",
                       "--memory-budget", f"{budget:.3f}", "-q", "-o",
                       str(tmp_path / "m.npz"), cwd=tmp_path)
    cli = json.loads(line)
    assert cli["rc"] == 0, err
    assert cli["peak"] <= budget, (cli, budget, err)
    line, err = _child(LEARNER_CHILD, path, budget, n_basis, n_lambdas, cwd=tmp_path)
    fit = json.loads(line)
    assert fit["m"] == m
    assert fit["estimate"] <= budget
    assert fit["peak"] <= budget, (fit, budget)


def test_peak_rss_within_budget_small(tmp_path):
    """2e4 rows x 10 from an svmlight file, 100 centres, leave-one-out over 6
    lambdas, 16 MiB above the imports: the whole run would take more (one block of
    every row is about 65 MiB), so the plan must size the blocks from what is left."""
    _check_peaks(tmp_path, 20_000, 100, 6, room=16.0)


@pytest.mark.slow
def test_peak_rss_within_budget_large(tmp_path):
    """2e5 rows x 10, 200 centres, leave-one-out over 8 lambdas (the held-out
    predictions alone are 12 MiB), 64 MiB above the imports."""
    _check_peaks(tmp_path, 200_000, 200, 8, room=64.0)


def test_budget_below_the_process_is_refused(tmp_path, capsys):
    """A budget below what the process already holds (the interpreter and the
    imports are tens of MiB) is refused before any work, saying so, in the library
    and on the command line (exit code 2, no model file)."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 3))
    y = X[:, 0]
    with pytest.raises(ValueError, match="memory_budget=8 MiB is too small for this "
                                         "process: it already holds"):
        StreamedRLS(X, y, n_basis=10, memory_budget=8)
    path = _file(tmp_path, 200, d=3)
    out = tmp_path / "m.npz"
    rc = main(["fit", str(path), "--kernel", "gaussian", "--basis", "10",
               "--memory-budget", "8", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and not out.exists()
    assert "--memory-budget=8 MiB is too small for this process" in err
    assert "resident" in err and "a larger --memory-budget" in err
