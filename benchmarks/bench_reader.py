"""svmlight reading and streamed prediction, against scikit-learn's loader, in one run.

(a) read_svmlight (the compiled chunk parser, the strict grammar) vs
    sklearn.datasets.load_svmlight_file on the same file (median of runs);
(b) `rlscore predict` on a file of N lines: the peak RSS of the process (measured by
    the kernel: ru_maxrss of a child) for N and 4N lines -- streamed prediction keeps it
    flat -- and its time against load_svmlight_file + one matrix product.

Run:  python benchmarks/bench_reader.py [--lines 200000]
Not a test: timings depend on the machine and its load (printed).
"""

import argparse
import os
import resource  # noqa: F401  (used in the child)
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import limit_threads, machine_line, median_time, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402


def write_file(path, m, d, rng):
    from sklearn.datasets import dump_svmlight_file
    X = rng.normal(size=(m, d)).round(4)
    X[rng.random((m, d)) < 0.3] = 0
    dump_svmlight_file(X, rng.integers(0, 3, m), path, query_id=np.arange(m) // 20,
                       zero_based=False)


def child_peak(cli_args):
    """(seconds, peak RSS MiB) of one `rlscore` command run in a child process, the peak
    measured by the kernel for that process alone."""
    code = ("import resource, sys; from rlscore.cli import main; rc = main(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(rc)")
    secs, res = median_time(lambda: subprocess.run(
        [sys.executable, "-c", code, *cli_args], check=True, capture_output=True,
        text=True), 1)
    return secs, int(res.stdout.split()[-1]) / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=200000)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    from sklearn.datasets import load_svmlight_file

    from rlscore.utilities.reader import read_svmlight
    rng = np.random.default_rng(0)
    tmp = tempfile.mkdtemp()
    small, big = os.path.join(tmp, "small.txt"), os.path.join(tmp, "big.txt")
    write_file(small, args.lines, 46, rng)
    write_file(big, 4 * args.lines, 46, rng)
    print(machine_line())
    print(f"file: {args.lines} lines, 46 features (LETOR-like), "
          f"{os.path.getsize(small) / 1e6:.0f} MB")
    print("| benchmark | rlscore | baseline | ratio | target | |\n|---|---|---|---|---|---|")
    t_ours, (X, _, _) = median_time(lambda: read_svmlight(small), args.repeats)
    t_skl, (Xs, _) = median_time(lambda: load_svmlight_file(small), args.repeats)
    assert abs(X - Xs[:, :X.shape[1]]).max() == 0
    row("(a) read_svmlight vs load_svmlight_file", t_ours, t_skl, "sklearn", 1.0)
    # (b) streamed predict: train a model on the small file, predict both files
    model = os.path.join(tmp, "m.npz")
    subprocess.run([sys.executable, "-m", "rlscore", "fit", small, "-o", model,
                    "--learner", "rls", "-q"], check=True)
    code = ("import sys, numpy as np; from sklearn.datasets import load_svmlight_file; "
            "from rlscore.model_io import load_model; p = load_model(sys.argv[1]); "
            "X, _ = load_svmlight_file(sys.argv[2], n_features=46); "
            "np.savetxt(sys.argv[3], p.predict(X))")
    for name, path in (("N", small), ("4N", big)):
        out = os.path.join(tmp, f"p{name}.txt")
        secs, peak = child_peak(["predict", model, path, "-o", out])
        print(f"| (b) rlscore predict, {name} lines ({os.path.getsize(path) / 1e6:.0f} MB): "
              f"peak RSS {peak:.0f} MiB | {secs:.2f} s | | | | |")
        base, _ = median_time(lambda: subprocess.run(
            [sys.executable, "-c", code, model, path, out + ".ref"], check=True), 1)
        row(f"(b) predict {name} lines vs sklearn load + X @ w (+ interpreter start)",
            secs, base, "sklearn", 1.0)
        a, b = np.loadtxt(out), np.loadtxt(out + ".ref")
        assert np.allclose(a, b, rtol=1e-9, atol=1e-9), "streamed predict differs"


if __name__ == "__main__":
    main()
