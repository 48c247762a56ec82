"""The compiled entry points check shapes and index ranges once per call: inconsistent
arrays give ValueError/IndexError, never a read or write outside an array. Each bad
call also runs in a child process first, so a crash would be reported as such instead
of killing the test run."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from rlscore._ext import _concordance, _greedy, _kron, _lpo, _nystrom

pytestmark = pytest.mark.quick  # run against every built wheel (.ci/release_check.py)

m, p, n = 6, 2, 4
I = np.intp


def _lpo_args(starts, ends, **over):
    rng = np.random.default_rng(0)
    M = rng.standard_normal((m, m))
    args = dict(M=M @ M.T, bdiag=np.ones(m), R=np.ones((m, p)), F=np.ones((m, p)),
                Y=np.ones((m, p)), starts=np.asarray(starts, I), ends=np.asarray(ends, I),
                out_s=np.empty((len(starts), p)), out_e=np.empty((len(starts), p)))
    args.update(over)
    return args


def _call_lpo_dense(a):
    _lpo.lpo_dense(a["M"], a["bdiag"], a["R"], a["F"], a["Y"], a["starts"], a["ends"],
                   a["out_s"], a["out_e"])


BAD_LPO = [
    ("start beyond m", dict(starts=[0, 10**6], ends=[1, 2])),
    ("negative end", dict(starts=[0, 1], ends=[1, -5])),
    ("same index", dict(starts=[2], ends=[2])),
    ("ends shorter", dict(starts=[0, 1], ends=[1])),
]


@pytest.mark.parametrize("label,kw", BAD_LPO)
def test_lpo_dense_refuses_bad_pairs(label, kw):
    a = _lpo_args(kw["starts"], kw["ends"])
    with pytest.raises((ValueError, IndexError)):
        _call_lpo_dense(a)


@pytest.mark.parametrize("field,value", [
    ("bdiag", np.ones(3)), ("R", np.ones((m - 1, p))), ("Y", np.ones((m, p + 1))),
    ("M", np.ones((m, m - 2))), ("out_s", np.empty((1, p))), ("out_e", np.empty((2, 1)))])
def test_lpo_dense_refuses_bad_shapes(field, value):
    a = _lpo_args([0, 1], [1, 2], **{field: value})
    with pytest.raises(ValueError):
        _call_lpo_dense(a)


def test_lpo_dense_valid_call_still_works():
    a = _lpo_args([0, 1], [3, 2])
    _call_lpo_dense(a)
    assert np.all(np.isfinite(a["out_s"])) and np.all(np.isfinite(a["out_e"]))


def test_lowrank_and_rank_variants_refuse_bad_indices():
    U, w = np.ones((m, 3)), np.ones(3)
    d, R = np.ones(m), np.ones((m, p))
    out = np.empty((2, p))
    bad = np.array([0, 99], I), np.array([1, 2], I)
    with pytest.raises(IndexError):
        _lpo.lpo_lowrank(U, w, d, d, R, R, R, *bad, out, out.copy())
    with pytest.raises(ValueError):
        _lpo.lpo_lowrank(U, np.ones(2), d, d, R, R, R, np.array([0, 1], I),
                         np.array([1, 2], I), out, out.copy())
    with pytest.raises(IndexError):
        _lpo.rank_lpo_dense(np.eye(m), d, -1.0 / m, R, R, d, *bad, out, out.copy())
    with pytest.raises(IndexError):
        _lpo.rank_lpo_lowrank(U, w, d, d, -1.0 / m, R, R, d, *bad, out, out.copy())
    with pytest.raises(ValueError):
        _lpo.rank_lpo_dense(np.eye(m), d, 0.0, R, R, np.ones(2), np.array([0], I),
                            np.array([1], I), out[:1], out[:1].copy())
    with pytest.raises(ValueError):
        _lpo.pair_concordance(np.ones(3), np.ones(2), np.ones(3), np.ones(3))


def _concordance_args(**over):
    a = dict(y=np.arange(m, dtype=float), p=np.arange(m, dtype=float),
             groups=np.array([0, 0, 0, 1, 1, 1], I), n_groups=2,
             out=np.empty((2, 3), np.int64), pties=np.empty(2, np.int64))
    a.update(over)
    return a


@pytest.mark.parametrize("field,value", [
    ("groups", np.array([0, 0, 0, 1, 1, 10**6], I)),
    ("groups", np.array([0, 0, 0, -1, 1, 1], I)),
    ("groups", np.array([0, 0, 1], I)),
    ("p", np.arange(m - 1, dtype=float)),
    ("p", np.array([0, 1, 2, np.nan, 4, 5.0])),
    ("y", np.array([0, 1, 2, np.inf, 4, 5.0])),
    ("n_groups", 0),
    ("out", np.empty((3, 3), np.int64)),
    ("out", np.empty((2, 2), np.int64)),
    ("pties", np.empty(1, np.int64)),
])
def test_pair_counts_refuses_inconsistent_arrays(field, value):
    a = _concordance_args(**{field: value})
    with pytest.raises((ValueError, IndexError)):
        _concordance.pair_counts(a["y"], a["p"], a["groups"], a["n_groups"], a["out"],
                                 a["pties"])


def test_pair_counts_valid_call_counts_pairs():
    a = _concordance_args()
    _concordance.pair_counts(a["y"], a["p"], a["groups"], a["n_groups"], a["out"],
                             a["pties"])
    # labels and predictions agree: 3 pairs per group, all concordant, no ties
    np.testing.assert_array_equal(a["out"], [[3, 3, 0], [3, 3, 0]])


def test_other_kernels_refuse_out_of_range_indices():
    Phi = np.ones((4, 3))
    with pytest.raises(ValueError):
        _nystrom.removal_update(Phi, np.array([0, 7], I), np.array([1], I),
                                np.ones((2, 1)), np.ones((1, 1)), np.ones((1, 2)),
                                np.empty((4, 2)))
    i32 = np.int32
    with pytest.raises(IndexError):
        _kron.scatter_add(np.array([0, 9], i32), np.array([0, 0], i32), np.ones(2),
                          np.zeros((3, 3)))
    with pytest.raises(IndexError):
        _kron.gather_entries(np.ones((3, 3)), np.array([0, 1], i32),
                             np.array([-1, 0], i32), np.empty(2))
    with pytest.raises(IndexError):
        _kron.counting_order(np.array([0, 5], i32), 3, np.empty(2, I))
    with pytest.raises(ValueError):
        _greedy.lqo_update(np.ones(4), 1.0, np.ones(1), np.array([0, 2, 9], I),
                           np.ones(8), np.array([0, 4], I), np.ones((4, 1)))


def test_bad_calls_do_not_crash_a_child():
    code = textwrap.dedent("""
        import numpy as np
        from rlscore._ext import _concordance, _lpo
        I = np.intp
        M = np.eye(4); d = np.ones(4); R = np.ones((4, 1))
        out = np.empty((1, 1))
        for s, e in [(0, 10**9), (-10**9, 1), (3, 4)]:
            try:
                _lpo.lpo_dense(M, d, R, R, R, np.array([s], I), np.array([e], I), out,
                               out.copy())
            except (ValueError, IndexError):
                pass
        try:
            _concordance.pair_counts(np.ones(2), np.ones(2), np.array([0, 10**9], I), 1,
                                     np.empty((1, 3), np.int64), np.empty(1, np.int64))
        except (ValueError, IndexError):
            pass
        print("alive")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "alive", out.stderr
