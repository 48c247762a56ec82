"""Harrell's C for right-censored data (issue 43): rlscore against lifelines and
scikit-survival, ratios against baselines run in the same process.

Rows: m = 10^4, 10^5, 10^6 rows of random data (exponential event and censoring times
rounded to 3 decimals, so times tie; risks rounded to 2 decimals, so risks tie; ~60 %
events). rlscore's ``concordance_index_censored`` against lifelines'
``concordance_index`` (passed -risk: its scores are "higher = longer survival"; it
ties risks only when equal, so here, with risks 0.01 apart, the values agree) at every m,
target <= 0.1 x lifelines' time at 10^6; against scikit-survival's
``concordance_index_censored`` (O(m x events)) up to 10^5. The counts of rlscore and
scikit-survival are checked equal where both run.

Timings are the median of ``--repeats`` runs, one BLAS thread; the machine load is
printed (other processes make every number noisy). Run:
python benchmarks/bench_survival_cindex.py [--quick] [--repeats 3]
"""

import argparse

from _timing import HEADER, limit_threads, machine_line, median_time, row  # noqa: E402

limit_threads()

import numpy as np  # noqa: E402


def make_data(m, seed=0):
    rng = np.random.default_rng(seed)
    risk = np.round(rng.standard_normal(m), 2)
    t_event = rng.exponential(np.exp(-risk))
    t_cens = rng.exponential(1.5, m)
    event = t_event <= t_cens
    time = np.round(np.minimum(t_event, t_cens), 3)
    return event, time, risk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="only m = 10^4 and 10^5")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from rlscore.measure import concordance_index_censored
    try:
        from lifelines.utils import concordance_index as lifelines_c
    except ImportError:
        lifelines_c = None
    try:
        from sksurv.metrics import concordance_index_censored as sksurv_c
    except ImportError:
        sksurv_c = None
    print(machine_line())
    print(HEADER)
    sizes = [10 ** 4, 10 ** 5] if args.quick else [10 ** 4, 10 ** 5, 10 ** 6]
    for m in sizes:
        event, time, risk = make_data(m)
        ours, res = median_time(lambda: concordance_index_censored(event, time, risk),
                                args.repeats)
        if lifelines_c is not None:
            base, c_ll = median_time(lambda: lifelines_c(time, -risk, event),
                                     args.repeats if m < 10 ** 6 else 1)
            row(f"Harrell's C, m = {m:.0e}", ours, base, "lifelines",
                target=0.1 if m == 10 ** 6 else None,
                note=f"C = {res[0]:.12f}, lifelines {c_ll:.12f}")
        if sksurv_c is not None and m <= 10 ** 5:
            base, ref = median_time(lambda: sksurv_c(event, time, risk), 1)
            same = res[1:] == tuple(int(v) for v in ref[1:]) and abs(res[0] - ref[0]) < 1e-12
            row(f"Harrell's C, m = {m:.0e}", ours, base, "scikit-survival",
                note="equal" if same else "DIFFERENT")


if __name__ == "__main__":
    main()
