"""Streamed learning runs in memory independent of the number of rows (beyond the
O(m p) labels and held-out predictions): peak RSS of a child process at two sizes."""

import json
import subprocess
import sys

import pytest

_CHILD = r"""
import json, resource, sys
import numpy as np
from rlscore.core.nystrom import NystromFeatureMap, StreamedReducedSet
m, r = int(sys.argv[1]), int(sys.argv[2])
B = 10_000


class Synthetic:
    # rows generated block by block from a seed: the input takes no memory
    def __init__(self, m):
        self.m, self.d, self.qids = m, 20, None
        self.Y = np.concatenate([self._block(s)[:, :1].copy() for s in range(0, m, B)])

    def _block(self, s):
        return np.random.default_rng(s).standard_normal((min(B, self.m - s), 20))

    def blocks(self, size):
        for s in range(0, self.m, B):
            Xb = self._block(s)
            for lo in range(0, Xb.shape[0], size):
                yield s + lo, Xb[lo:lo + size]

    def rows(self, idx):
        return np.vstack([self._block(i - i % B)[i % B].copy() for i in idx])


src = Synthetic(m)
idx = np.sort(np.random.default_rng(1).choice(m, r, replace=False))
fmap = NystromFeatureMap("GaussianKernel", src.rows(idx), gamma=0.05)
st = StreamedReducedSet(src, fmap, basis_indices=idx, lambda_count=3)
st.solve(1.0)
fit = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
st.leave_one_out_path([0.1, 1.0, 10.0])
print(json.dumps({"fit": fit,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def _peak(m, r):
    out = subprocess.run([sys.executable, "-c", _CHILD, str(m), str(r)],
                         capture_output=True, text=True,
                         check=True, env={"OMP_NUM_THREADS": "1",
                                          "OPENBLAS_NUM_THREADS": "1",
                                          "PYTHONSAFEPATH": "1",
                                          "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_peak_rss_does_not_grow_with_rows():
    """m = 2e5 and 1e6 rows: peak RSS within 10% of each other once the O(m p) arrays
    are accounted for (labels Y and the m x L x p leave-one-out predictions, L = 3,
    with their temporaries: 8 (1 + 2 L) bytes a row)."""
    small, large = _peak(200_000, 300), _peak(1_000_000, 300)
    extra = 8 * (1 + 2 * 3) * (1_000_000 - 200_000)
    assert large["fit"] <= 1.10 * small["fit"] + 8 * (1_000_000 - 200_000)
    assert large["peak"] <= 1.10 * small["peak"] + extra
