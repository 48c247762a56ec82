"""A million rows on one machine (issue #32): streamed Nystrom RLS (direct, with the exact
LOO path over 13 lambdas), preconditioned CG, learning from an svmlight file, against
scikit-learn's Nystroem + Ridge / RidgeCV and Falkon (CPU) at the same centres and lambda,
with the floor of the kernel blocks and Phi^T Phi.

Every run is a child process (peak RSS is its own ``ru_maxrss``). Data sets (``--m``):

* an integer m: synthetic, d = 20, y = sin(x.w1) + 0.5 cos(1.5 x.w2) + 0.1 noise,
  Gaussian kernel gamma = 1 / d, generated in the child from a seed, plus 10 000 test
  rows from the same generator;
* ``beijing``: Beijing multi-site air quality, log PM2.5 from 10 numeric columns;
* ``kddcup``: KDD Cup 1999 10%, +-1 (attack / normal), 38 numeric columns (byte counts
  log1p'd) standardized plus 80 one-hot columns; 10 000 random rows of the labelled
  test file ``corrected`` held out.

Methods (``--methods``):

* ``direct``: ``StreamedReducedSet`` over the in-memory array (fit = statistics pass +
  one lambda; LOO path = exact leave-one-out over 13 lambdas with basis removal);
* ``file``: the same from the svmlight file ``FILE_DIR/train_<m>.svm`` through
  ``SvmlightSource`` (two passes over the file; ``--write-svmlight`` writes it and the
  held-out ``test_<m>.svm`` with the same generator); ``--no-loo`` skips the LOO pass;
* ``pcg``: ``pcg_reduced_set`` on ``NystromFactors`` (Falkon's preconditioner, the
  factors in one r x r array), ``--iters`` iterations, ``--pcg-cache no`` to recompute
  the kernel blocks, ``--pcg-dtype float32`` for single-precision kernel blocks (one
  SGEMM with a vectorized exponential), ``--pcg-tol`` to stop at a relative residual;
* ``sklearn``: ``Nystroem`` fitted on the same basis rows + ``Ridge(alpha=lambda)``;
  ``sklearn-cv``: the same with ``RidgeCV`` over the 13 lambdas (its LOO, GCV mode);
* ``falkon``: Falkon (``falkon.Falkon``, CPU, same centres through ``FixedSelector``,
  sigma = sqrt(d / 2), penalty = lambda / m since Falkon's loss is a mean and ours a
  sum, ``--iters`` CG iterations, ``max_cpu_mem`` = ``--falkon-mem-gb``), run with the
  interpreter given by ``--falkon-python`` on the same data written to ``--scratch``.
  ``--check-falkon`` compares its predictions with ours on a small problem at
  convergence (the lambda mapping);
* ``parts``: where the time of a file pass goes, on ``FILE_DIR/train_<m>.svm``: the
  scanning pass, parsing alone, kernel blocks alone (in memory), K^T K by SYRK alone.

    python benchmarks/bench_scale.py --m 100000 1000000 --r 1000 2000
    python benchmarks/bench_scale.py --m kddcup beijing --r 1000 2000 --methods direct sklearn-cv
    python benchmarks/bench_scale.py --write-svmlight /scratch --m 10000000
    python benchmarks/bench_scale.py --m 10000000 --r 2000 --methods file --file-dir /scratch
    python benchmarks/bench_scale.py --m 1000000 --r 2000 --methods falkon \\
        --falkon-python /path/to/venv/bin/python

Columns: wall (CPU) seconds -- the machine is shared, so CPU seconds and the floor (in
CPU seconds) are the comparable figures; peak RSS of the child; test RMSE; floor =
measured DGEMM rate over the flops of the kernel blocks (2 m r d) plus Phi^T Phi
(m r^2, SYRK) for the direct path, plus t iterations of two block products (4 m r t)
and, where the blocks are recomputed (PCG uncached, Falkon), t more kernel passes.
Data generation and reading the test rows are not timed. Measured tables are in
docs/large_data.rst.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _data import SHARED_DATA  # noqa: E402
from _timing import limit_threads, machine_line  # noqa: E402

D = 20
N_TEST = 10_000
LAMBDA = 1.0
GRID = [2.0 ** k for k in range(-6, 7)]          # 13 lambdas

DATA = SHARED_DATA
KDD_NAMES = [
    "duration", "protocol_type", "service", "flag", "src_bytes", "dst_bytes", "land",
    "wrong_fragment", "urgent", "hot", "num_failed_logins", "logged_in", "num_compromised",
    "root_shell", "su_attempted", "num_root", "num_file_creations", "num_shells",
    "num_access_files", "num_outbound_cmds", "is_host_login", "is_guest_login", "count",
    "srv_count", "serror_rate", "srv_serror_rate", "rerror_rate", "srv_rerror_rate",
    "same_srv_rate", "diff_srv_rate", "srv_diff_host_rate", "dst_host_count",
    "dst_host_srv_count", "dst_host_same_srv_rate", "dst_host_diff_srv_rate",
    "dst_host_same_src_port_rate", "dst_host_srv_diff_host_rate", "dst_host_serror_rate",
    "dst_host_srv_serror_rate", "dst_host_rerror_rate", "dst_host_srv_rerror_rate", "label"]


# -- data ------------------------------------------------------------------------------
def _beijing(seed=0):
    """Beijing multi-site air quality (UCI 501): log1p PM2.5 from the 10 other numeric
    columns (pollutants and weather), rows with a missing value dropped, features and
    target standardized on the training rows; a random 10 000 rows held out."""
    import glob
    import numpy as np
    import pandas as pd
    cols = ["PM10", "SO2", "NO2", "CO", "O3", "TEMP", "PRES", "DEWP", "RAIN", "WSPM"]
    frames = [pd.read_csv(f, usecols=cols + ["PM2.5"]) for f in
              sorted(glob.glob(os.path.join(DATA, "beijing_air_quality", "*.csv.xz")))]
    df = pd.concat(frames).dropna()
    X = df[cols].to_numpy(np.float64)
    y = np.log1p(df["PM2.5"].to_numpy(np.float64))
    perm = np.random.default_rng(seed).permutation(len(y))
    te, tr = perm[:N_TEST], perm[N_TEST:]
    mu, sd = X[tr].mean(0), X[tr].std(0)
    X = (X - mu) / sd
    ym, ys = y[tr].mean(), y[tr].std()
    y = (y - ym) / ys
    return np.ascontiguousarray(X[tr]), y[tr], np.ascontiguousarray(X[te]), y[te]


def _kddcup(seed=0):
    """KDD Cup 1999 10% (494 021 rows) as +-1 regression (attack = +1): the 38 numeric
    columns (src_bytes, dst_bytes log1p'd) standardized on the training rows (constant
    columns left at 0), the 3 symbolic ones one-hot (80 columns, the test file reindexed
    to them); 10 000 random rows of the labelled test file held out."""
    import numpy as np
    import pandas as pd
    folder = os.path.join(DATA, "kddcup99_10pct")
    train = pd.read_csv(os.path.join(folder, "kddcup.data_10_percent.gz"), header=None,
                        names=KDD_NAMES)
    test = pd.read_csv(os.path.join(folder, "corrected.gz"), header=None, names=KDD_NAMES)
    test = test.iloc[np.sort(np.random.default_rng(seed).choice(len(test), N_TEST,
                                                                replace=False))]
    cat = ["protocol_type", "service", "flag"]
    num = [c for c in KDD_NAMES[:-1] if c not in cat]

    def encode(df):
        Xn = df[num].to_numpy(np.float64)
        for c in ("src_bytes", "dst_bytes"):
            j = num.index(c)
            Xn[:, j] = np.log1p(Xn[:, j])
        return Xn, pd.get_dummies(df[cat], dtype=np.float64)
    Xn, Xc = encode(train)
    Xnt, Xct = encode(test)
    Xct = Xct.reindex(columns=Xc.columns, fill_value=0.0)
    mu, sd = Xn.mean(0), Xn.std(0)
    sd[sd == 0] = 1.0
    X = np.hstack([(Xn - mu) / sd, Xc.to_numpy()])
    Xt = np.hstack([(Xnt - mu) / sd, Xct.to_numpy()])
    y = np.where(train["label"] == "normal.", -1.0, 1.0)
    yt = np.where(test["label"] == "normal.", -1.0, 1.0)
    return np.ascontiguousarray(X), y, np.ascontiguousarray(Xt), yt


def _synthetic(m, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    w1, w2 = rng.standard_normal(D) / np.sqrt(D), rng.standard_normal(D) / np.sqrt(D)

    def make(n):
        X = rng.standard_normal((n, D))
        y = np.sin(X @ w1) + 0.5 * np.cos(1.5 * X @ w2)
        return X, y + 0.1 * rng.standard_normal(n)
    X, y = make(m)
    Xt, yt = make(N_TEST)
    return X, y, Xt, yt


def _data(name):
    if name == "beijing":
        return _beijing()
    if name == "kddcup":
        return _kddcup()
    return _synthetic(int(name))


def _basis(m, r):
    """The basis rows: r of m drawn uniformly (seed 1), sorted -- shared by every method."""
    import numpy as np
    return np.sort(np.random.default_rng(1).choice(m, r, replace=False))


def _file_paths(folder, m):
    return (os.path.join(folder, f"train_{m}.svm"), os.path.join(folder, f"test_{m}.svm"))


def write_svmlight_files(folder, m, chunk=200_000):
    """Write the synthetic data of size m (the generator of :func:`_synthetic`) as
    ``train_<m>.svm`` and ``test_<m>.svm`` (7 significant digits, 1-based indices), in
    chunks of rows. O(m d) time, O(m d) memory (the generator draws X whole)."""
    import numpy as np
    X, y, Xt, yt = _synthetic(m)
    fmt = "%.7g " + " ".join(f"{j + 1}:%.7g" for j in range(D)) + "\n"
    for path, A, b in zip(_file_paths(folder, m), (X, Xt), (y, yt)):
        with open(path + ".part", "w") as fh:
            for lo in range(0, A.shape[0], chunk):
                rows = np.column_stack([b[lo:lo + chunk], A[lo:lo + chunk]]).tolist()
                fh.write("".join(fmt % tuple(row) for row in rows))
        os.replace(path + ".part", path)
        print(f"wrote {path}: {os.path.getsize(path) / 2**30:.2f} GiB", flush=True)


# -- measurements ----------------------------------------------------------------------
def _gemm_rate(dtype="float64"):
    """Measured DGEMM (or SGEMM) flop rate (flop per CPU second, so that the floor
    compares with the runs' CPU times on a shared machine), best of three 2000^3
    products."""
    import numpy as np
    A = np.random.default_rng(0).standard_normal((2000, 2000)).astype(dtype)
    best = np.inf
    for _ in range(3):
        t = time.process_time()
        A @ A
        best = min(best, time.process_time() - t)
    return 2 * 2000 ** 3 / best


class _Clock:
    """Wall and process-CPU seconds since construction (``lap`` restarts)."""

    def __init__(self):
        self.lap()

    def lap(self):
        w, c = time.perf_counter(), time.process_time()
        out = None if not hasattr(self, "w") else (w - self.w, c - self.c)
        self.w, self.c = w, c
        return out


def _rmse(pred, y):
    import numpy as np
    return float(np.sqrt(np.mean((np.ravel(pred) - np.ravel(y)) ** 2)))


def _direct(out, src, fmap, idx, Xt, yt, y, loo=True, verbose=None):
    """Fit (statistics pass + one lambda), test RMSE, and the LOO path over GRID."""
    import numpy as np
    from rlscore.core.nystrom import StreamedReducedSet
    clock = _Clock()
    st = StreamedReducedSet(src, fmap, basis_indices=idx, verbose=verbose)
    W = st.solve(LAMBDA)
    out["fit"], out["fit_cpu"] = clock.lap()
    pred = st.predictor(W).predict(Xt)
    out["rmse"] = _rmse(pred, yt)
    out["sign_error"] = float(np.mean(np.sign(np.ravel(pred)) != np.sign(yt)))
    if loo:
        clock.lap()
        P = st.leave_one_out_path(GRID)
        out["loo"], out["loo_cpu"] = clock.lap()
        err = np.sqrt(np.mean((P[:, :, 0] - np.ravel(y)[:, None]) ** 2, axis=0))
        out["loo_best_lambda"] = GRID[int(np.argmin(err))]
        out["loo_best_rmse"] = float(err.min())


def _child(job):
    import numpy as np
    method, name, r = job["method"], job["data"], job["r"]
    out = dict(method=method, data=name, r=r)
    rate = _gemm_rate()
    out["gflops"] = rate / 1e9
    if method == "file":
        from rlscore.core.nystrom import NystromFeatureMap
        from rlscore.utilities.reader import SvmlightSource, read_svmlight
        train, test = _file_paths(job["file_dir"], name)
        clock = _Clock()
        src = SvmlightSource(train)
        out["scan"], out["scan_cpu"] = clock.lap()
        m, d = src.m, src.d
        idx = _basis(m, r)
        fmap = NystromFeatureMap("GaussianKernel", src.rows(idx), gamma=1.0 / d)
        out["basis"], out["basis_cpu"] = clock.lap()
        Xt, yt = read_svmlight(test, fdim=d, zero_based=False)[:2]
        _direct(out, src, fmap, idx, Xt, yt, src.Y, loo=job["loo"],
                verbose=job.get("verbose"))
        # the scan and basis passes are part of fitting from a file
        out["fit"] += out["scan"] + out["basis"]
        out["fit_cpu"] += out["scan_cpu"] + out["basis_cpu"]
        out["floor"] = (2 * m * r * d + m * r * r) / rate
    elif method == "parts":
        _parts(out, job, rate)
        m = out["m"]
    else:
        X, y, Xt, yt = _data(name)
        m, d = X.shape
        idx = _basis(m, r)
        gamma = 1.0 / d
        if method == "dump":
            np.savez(job["npz"], X=X, y=y, Xt=Xt, yt=yt, idx=idx, gamma=gamma)
            return print(json.dumps(dict(m=m, d=d)))
        if method in ("direct", "pcg"):
            from rlscore.core.nystrom import NystromFactors, NystromFeatureMap, pcg_reduced_set
            from rlscore.core.structure import ArraySource
            clock = _Clock()
            # PCG: the one-array factors (C and A in one r x r array, T by solves)
            fmap = (NystromFeatureMap if method == "direct" else NystromFactors)(
                "GaussianKernel", X[idx], gamma=gamma)
            out["factor"], out["factor_cpu"] = clock.lap()
            src = ArraySource(X, y)
            if method == "direct":
                _direct(out, src, fmap, idx, Xt, yt, y, loo=job["loo"],
                        verbose=job.get("verbose"))
                out["floor"] = (2 * m * r * d + m * r * r) / rate
            else:
                opts = {} if job["pcg_dtype"] == "float64" else {"dtype": np.float32}
                laps = []
                from rlscore.core.nystrom import PCGOptions
                pcg = PCGOptions(rtol=job.get("pcg_tol", 1e-12), maxiter=job["iters"],
                                 callback=lambda k, W, rel: laps.append(clock.lap()))
                res = pcg_reduced_set(src, fmap, LAMBDA, pcg=pcg,
                                      cache={"auto": "auto", "no": False}[job["pcg_cache"]],
                                      **opts)
                out["fit"], out["fit_cpu"] = clock.lap()
                # the fit is: the basis factor, the preconditioner + right-hand side
                # pass (before the first iteration), the iterations
                out["fit"] += out["factor"] + sum(w for w, _ in laps)
                out["fit_cpu"] += out["factor_cpu"] + sum(c for _, c in laps)
                out["iter_cpu"] = sorted(c for _, c in laps[1:])[len(laps[1:]) // 2] \
                    if len(laps) > 1 else None
                out["setup_cpu"] = laps[0][1] - (out["iter_cpu"] or 0) if laps else None
                t = out["iterations"] = res.iterations
                out["cached"] = bool(res.extras["operator"].cached)
                out["rmse"] = _rmse(fmap.predictor(res.solution).predict(Xt), yt)
                if job["pcg_dtype"] == "float32":
                    out["sgflops"] = _gemm_rate("float32") / 1e9
                kern = 2 * m * r * d * (1 if out["cached"] else t + 1)
                # the block products at the rate of the blocks' precision
                out["floor"] = (kern + 4 * m * r * t) / (out.get("sgflops", 0) * 1e9 or rate)
        elif method in ("sklearn", "sklearn-cv"):
            from sklearn.kernel_approximation import Nystroem
            from sklearn.linear_model import Ridge, RidgeCV
            clock = _Clock()
            # fitted on the basis rows alone: n_components = r keeps all of them
            ny = Nystroem(kernel="rbf", gamma=gamma, n_components=r).fit(X[idx])
            F = ny.transform(X)
            if method == "sklearn":
                model = Ridge(alpha=LAMBDA, fit_intercept=False, solver="cholesky")
                model.fit(F, y)
                out["fit"], out["fit_cpu"] = clock.lap()
            else:
                model = RidgeCV(alphas=GRID, fit_intercept=False).fit(F, y)
                out["loo"], out["loo_cpu"] = clock.lap()
                out["loo_best_lambda"] = float(model.alpha_)
            del F
            out["rmse"] = _rmse(model.predict(ny.transform(Xt)), yt)
            out["floor"] = (2 * m * r * d + m * r * r) / rate
        else:
            raise ValueError(f"unknown method {method!r}")
    out["m"] = m
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def _parts(out, job, rate):
    """Where a file pass's time goes, on the whole file ``train_<m>.svm``: (1) parsing
    alone (one pass of SvmlightSource.blocks, CSR blocks densified), (2) the kernel
    blocks alone from the rows in memory, (3) K_b^T K_b by SYRK alone on the last
    kernel block -- each with the block size the streamed learner takes from the
    working-memory budget. O(m r (d + r))."""
    import numpy as np
    from rlscore._blocks import rows_per_block
    from rlscore.core.nystrom import NystromFeatureMap
    from rlscore.utilities.reader import SvmlightSource
    from scipy.linalg import blas
    train, _ = _file_paths(job["file_dir"], job["data"])
    r = job["r"]
    clock = _Clock()
    src = SvmlightSource(train)
    out["scan"], out["scan_cpu"] = clock.lap()
    n, d = src.m, src.d
    # rows per block as StreamedReducedSet sizes them (13 lambdas, one output)
    bs = rows_per_block(8 * (r + d) + 8 * (2 * r + 2 * 13 + 2), n)
    X = np.empty((n, d))
    clock.lap()
    for start, Xb in src.blocks(bs):
        X[start:start + Xb.shape[0]] = Xb.toarray()
    out["parse"], out["parse_cpu"] = clock.lap()
    fmap = NystromFeatureMap("GaussianKernel", X[_basis(n, r)], gamma=1.0 / d)
    buf = np.empty((bs, r))
    clock.lap()
    for lo in range(0, n, bs):
        fmap.kernel_rows(X[lo:lo + bs], out=buf[:min(bs, n - lo)])
    out["kernel"], out["kernel_cpu"] = clock.lap()
    acc = np.zeros((r, r), order="F")
    for lo in range(0, n, bs):
        acc = blas.dsyrk(1.0, buf[:min(bs, n - lo)].T, beta=1.0, c=acc, trans=0, lower=0,
                         overwrite_c=1)
    out["syrk"], out["syrk_cpu"] = clock.lap()
    out["block_size"], out["m"] = bs, n
    out["floor_kernel"] = 2 * n * r * d / rate
    out["floor_syrk"] = n * r * r / rate


def _falkon_child(job):
    """Falkon on the data written by the ``dump`` child (run with Falkon's interpreter)."""
    import numpy as np
    import torch
    from falkon import Falkon, FalkonOptions
    from falkon.center_selection import FixedSelector
    from falkon.kernels import GaussianKernel
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    Dz = np.load(job["npz"])
    X, y, Xt, yt, idx = (Dz[k] for k in ("X", "y", "Xt", "yt", "idx"))
    gamma = float(Dz["gamma"])
    m = X.shape[0]
    out = dict(method="falkon", data=job["data"], r=len(idx), m=m, gflops=_gemm_rate() / 1e9)
    clock = _Clock()
    Xtr = torch.from_numpy(X)
    C = Xtr[torch.from_numpy(idx)].clone()
    opt = FalkonOptions(use_cpu=True, keops_active="no", debug=False,
                        cg_tolerance=job.get("cg_tol", 1e-7),
                        max_cpu_mem=job["falkon_mem_gb"] * 2**30)
    model = Falkon(kernel=GaussianKernel(sigma=float(np.sqrt(0.5 / gamma)), opt=opt),
                   penalty=job["lambda"] / m, M=len(idx), center_selection=FixedSelector(C),
                   maxiter=job["iters"], error_every=None, options=opt)
    model.fit(Xtr, torch.from_numpy(y).reshape(-1, 1))
    out["fit"], out["fit_cpu"] = clock.lap()
    pred = model.predict(torch.from_numpy(Xt)).numpy().ravel()
    out["rmse"] = _rmse(pred, yt)
    out["iterations"] = job["iters"]
    d, r, t = X.shape[1], len(idx), job["iters"]
    out["floor"] = (2 * m * r * d * (t + 1) + 4 * m * r * t) / (out["gflops"] * 1e9)
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if job.get("save_pred"):
        np.save(job["save_pred"], pred)
    print(json.dumps(out))


def _spawn(job, python, limit_gb):
    cmd = [python, os.path.abspath(__file__), "--child", json.dumps(job)]
    pre = None
    if limit_gb:
        lim = int(limit_gb * 2**30)

        def pre():
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    # with progress (--progress) the child's stderr goes to ours
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, preexec_fn=pre,
                       stderr=None if job.get("verbose") else subprocess.PIPE)
    if p.returncode != 0:
        tail = (p.stderr or "(error on stderr above)").strip().splitlines()[-1]
        return dict(job, error=tail[:120])
    return json.loads(p.stdout.strip().splitlines()[-1])


def _run(job, a):
    if job["method"] != "falkon":
        return _spawn(job, sys.executable, a.limit_gb)
    if not a.falkon_python:
        return dict(job, error="no --falkon-python given")
    with tempfile.TemporaryDirectory(dir=a.scratch) as tmp:
        job = dict(job, npz=os.path.join(tmp, "data.npz"))
        res = _spawn(dict(job, method="dump"), sys.executable, a.limit_gb)
        if "error" in res:
            return res
        # Falkon's own memory option bounds its buffers; the cap is left to it
        return _spawn(job, a.falkon_python, None)


def check_falkon(a, m=3000, r=300):
    """Falkon's predictions against ours on a small synthetic problem at convergence
    (many CG iterations, tight tolerance): the lambda mapping penalty = lambda / m."""
    import numpy as np
    from rlscore.core.nystrom import NystromFeatureMap, StreamedReducedSet
    from rlscore.core.structure import ArraySource
    with tempfile.TemporaryDirectory(dir=a.scratch) as tmp:
        npz, pred = os.path.join(tmp, "data.npz"), os.path.join(tmp, "pred.npy")
        X, y, Xt, yt = _synthetic(m)
        idx = _basis(m, r)
        np.savez(npz, X=X, y=y, Xt=Xt, yt=yt, idx=idx, gamma=1.0 / D)
        for lam in (LAMBDA, 0.01):
            job = dict(method="falkon", data=str(m), r=r, iters=500, cg_tol=1e-14,
                       falkon_mem_gb=a.falkon_mem_gb, npz=npz, save_pred=pred, **{"lambda": lam})
            res = _spawn(job, a.falkon_python, None)
            if "error" in res:
                print(f"falkon check failed: {res['error']}")
                return
            fmap = NystromFeatureMap("GaussianKernel", X[idx], gamma=1.0 / D)
            st = StreamedReducedSet(ArraySource(X, y), fmap, basis_indices=idx)
            ours = np.ravel(st.predictor(st.solve(lam)).predict(Xt))
            theirs = np.load(pred)
            diff = np.max(np.abs(ours - theirs)) / np.max(np.abs(ours))
            print(f"falkon check m={m} r={r} lambda={lam} (penalty {lam / m:.3g}): max "
                  f"|ours - falkon| / max |ours| = {diff:.2e}; RMSE ours "
                  f"{_rmse(ours, yt):.5f}, falkon {res['rmse']:.5f}", flush=True)


# -- table -----------------------------------------------------------------------------
def _fmt_time(res, key):
    return "" if res.get(key) is None else f"{res[key]:.1f} ({res[key + '_cpu']:.1f})"


def _label(name, res):
    m = res.get("m", name)
    return f"{name} {m}" if name in ("beijing", "kddcup") else f"{m:.0e}".replace("+0", "")


def _row(name, r, method, res):
    if "error" in res:
        return f"| {name} | {r} | {method} | | | | | | | failed: {res['error']} |"
    note = []
    if method == "parts":
        return (f"| {_label(name, res)} | {r} | parts | parse "
                f"{_fmt_time(res, 'parse')}; kernel {_fmt_time(res, 'kernel')}; K^T K "
                f"{_fmt_time(res, 'syrk')} | | {res['peak_mb']:.0f} | | "
                f"{res['floor_kernel'] + res['floor_syrk']:.1f} | | scan pass "
                f"{_fmt_time(res, 'scan')}; blocks of {res['block_size']} rows; floors "
                f"kernel {res['floor_kernel']:.1f}, K^T K {res['floor_syrk']:.1f} |")
    if method in ("pcg", "falkon"):
        note.append(f"{res['iterations']} iterations")
    if method == "pcg":
        note.append(("cached" if res["cached"] else "recomputed") + " blocks"
                    + (" (float32)" if "sgflops" in res else ""))
        if res.get("iter_cpu") is not None:
            note.append(f"basis factor {res['factor_cpu']:.0f}, preconditioner + "
                        f"right-hand side {res['setup_cpu']:.0f}, median iteration "
                        f"{res['iter_cpu']:.1f} CPU s")
        if "sgflops" in res:
            note.append(f"SGEMM {res['sgflops']:.1f} GFLOP/s")
    if "loo_best_lambda" in res:
        note.append(f"LOO picks lambda={res['loo_best_lambda']:g}")
    if method == "file":
        note.append(f"scan pass {res['scan']:.0f} s, basis rows {res['basis']:.0f} s")
    if name == "kddcup" and "sign_error" in res:
        note.append(f"sign error {res['sign_error']:.4f}")
    note.append(f"GEMM {res['gflops']:.1f} GFLOP/s, load {os.getloadavg()[0]:.1f}")
    fit_cpu = res.get("fit_cpu")
    ratio = "" if fit_cpu is None else f"{fit_cpu / res['floor']:.2f}"
    return (f"| {_label(name, res)} | {r} | {method} | {_fmt_time(res, 'fit')} | "
            f"{_fmt_time(res, 'loo')} | {res['peak_mb']:.0f} | {res['rmse']:.4f} | "
            f"{res['floor']:.1f} | {ratio} | {'; '.join(note)} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", nargs="+", default=["100000"],
                    help="rows of the synthetic data, or beijing / kddcup")
    ap.add_argument("--r", type=int, nargs="+", default=[1000, 2000])
    ap.add_argument("--methods", nargs="+", default=["direct", "pcg", "sklearn"],
                    choices=["direct", "file", "pcg", "sklearn", "sklearn-cv", "falkon",
                             "parts"])
    ap.add_argument("--iters", type=int, default=20, help="PCG / Falkon iterations")
    ap.add_argument("--pcg-dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--pcg-tol", type=float, default=1e-12,
                    help="PCG stops at this relative residual (default: run --iters)")
    ap.add_argument("--pcg-cache", choices=["auto", "no"], default="auto",
                    help="PCG kernel-block cache (no: recomputed, the factors' memory)")
    ap.add_argument("--no-loo", action="store_true", help="skip the LOO pass")
    ap.add_argument("--progress", action="store_true",
                    help="progress of the streamed passes on stderr")
    ap.add_argument("--limit-gb", type=float, default=6.0,
                    help="address-space limit of each child (GB; 0 = none)")
    ap.add_argument("--file-dir", help="folder of train_<m>.svm / test_<m>.svm")
    ap.add_argument("--write-svmlight", metavar="DIR",
                    help="write the synthetic data of each --m as svmlight files, exit")
    ap.add_argument("--falkon-python", help="python of a venv where falkon is installed")
    ap.add_argument("--falkon-mem-gb", type=float, default=4.0,
                    help="Falkon's max_cpu_mem (GB)")
    ap.add_argument("--check-falkon", action="store_true",
                    help="compare Falkon's predictions with ours on a small problem")
    ap.add_argument("--scratch", default=None, help="folder for the data handed to Falkon")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        job = json.loads(a.child)
        return (_falkon_child if job["method"] == "falkon" else _child)(job)
    if a.write_svmlight:
        for m in a.m:
            write_svmlight_files(a.write_svmlight, int(m))
        return
    if a.check_falkon:
        return check_falkon(a)
    print(f"threads={limit_threads()} d={D} (synthetic) lambda={LAMBDA} Gaussian "
          f"gamma=1/d, {N_TEST} test rows; LOO over {len(GRID)} lambdas; {machine_line()}")
    print("| m | r | method | fit wall (cpu) s | LOO path wall (cpu) s | peak RSS (MB) | "
          "test RMSE | floor (cpu s) | fit cpu / floor | note |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for name in a.m:
        for r in a.r:
            for method in a.methods:
                job = dict(method=method, data=name, r=r, iters=a.iters,
                           pcg_dtype=a.pcg_dtype, pcg_cache=a.pcg_cache, pcg_tol=a.pcg_tol,
                           loo=not a.no_loo, file_dir=a.file_dir,
                           falkon_mem_gb=a.falkon_mem_gb, verbose=a.progress or None,
                           **{"lambda": LAMBDA})
                res = _run(job, a)
                print(_row(name, r, method, res), flush=True)


if __name__ == "__main__":
    limit_threads()
    main()
