"""Check ``rlscore evaluate`` against the official LETOR 4.0 evaluation script.

LETOR 4.0 ships ``Eval-Score-4.0.pl`` (Jun Xu and Tie-Yan Liu, Microsoft Research Asia),
the script every published LETOR 4.0 table was computed with. rlscore does not ship it;
if you have a copy, this script trains two learners per fold through the command line,
writes their test predictions, runs the Perl script on them (per query, flag 1) and
compares every value it prints -- P@1..10, MAP, NDCG@1..10 and MeanNDCG, per query and
averaged -- with ``rlscore evaluate --per-query --format json``.

Run::

    python docs/tutorials/letor_eval_check.py --script PATH/Eval-Score-4.0.pl \
        [--data PATH/TO/letor4_mq2008] [--folds 1 2 3 4 5]

(the data folder holds ``S1.txt`` ... ``S5.txt``; by default
``$RLSCORE_DATA/letor4_mq2008``). Needs ``perl`` on the PATH. The script prints per-query
values with four decimals and averages with four (the original) -- the comparison allows
half a unit of the last printed digit.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

LEARNERS = ("query-rankrls", "ranksvm")
MEASURES = ([f"p@{k}" for k in range(1, 11)] + ["map"]
            + [f"ndcg@{k}" for k in range(1, 11)] + ["meanndcg"])


def fold_parts(fold):
    """LETOR's fold layout: Fold i trains on S_i, S_i+1, S_i+2, validates on S_i+3 and
    tests on S_i+4 (indices mod 5)."""
    s = [(fold - 1 + j) % 5 + 1 for j in range(5)]
    return s[:3], s[3], s[4]


def concat(paths, out):
    with open(out, "wb") as f:
        for p in paths:
            with open(p, "rb") as g:
                shutil.copyfileobj(g, f)


def rlscore(*args):
    cmd = [sys.executable, "-m", "rlscore", *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def read_perl_output(path):
    """{qid: {measure: value}} and {measure: average} from Eval-Score-4.0.pl's flag-1
    output (two tables: P@k + MAP, then NDCG@k + MeanNDCG)."""
    per_query, average, header = {}, {}, None
    with open(path) as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if not cells[0]:
                continue
            if cells[0] == "qid":
                header = [h.lower() for h in cells[1:]]
                continue
            values = [float(c) for c in cells[1:] if c != ""]
            target = average if cells[0] == "Average" else per_query.setdefault(cells[0], {})
            target.update(zip(header, values))
    return per_query, average


def check_fold(script, data, fold, work):
    train, valid, test = fold_parts(fold)
    part = lambda i: os.path.join(data, f"S{i}.txt")  # noqa: E731
    train_file = os.path.join(work, f"train{fold}.txt")
    concat([part(i) for i in train], train_file)
    rows = []
    for learner in LEARNERS:
        model = os.path.join(work, f"{learner}{fold}.npz")
        pred = os.path.join(work, f"{learner}{fold}.pred")
        out = os.path.join(work, f"{learner}{fold}.eval")
        rlscore("fit", train_file, "-o", model, "--learner", learner, "--valid",
                part(valid), "--measure", "map", "--no-progress")
        rlscore("predict", model, part(test), "-o", pred, "--no-progress")
        subprocess.run(["perl", script, part(test), pred, out, "1"], check=True)
        theirs, their_avg = read_perl_output(out)
        ours = json.loads(rlscore("evaluate", model, part(test), "--measure",
                                  ",".join(MEASURES), "--per-query", "--format", "json",
                                  "--no-progress"))
        by_qid = {r["qid"]: r for r in ours["per_query"]}
        if set(by_qid) != set(theirs):
            raise SystemExit(f"fold {fold} {learner}: the query sets differ")
        q_diff = max(abs(by_qid[q][m] - theirs[q][m]) for q in theirs for m in MEASURES)
        a_diff = max(abs(ours[m] - their_avg[m]) for m in MEASURES)
        rows.append((fold, learner, len(theirs) * len(MEASURES), q_diff, a_diff,
                     ours["ndcg@10"], ours["map"]))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--script", required=True, help="path of Eval-Score-4.0.pl")
    ap.add_argument("--data", default=os.path.join(os.environ.get("RLSCORE_DATA", "."),
                                                   "letor4_mq2008"))
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    args = ap.parse_args(argv)
    if shutil.which("perl") is None:
        raise SystemExit("perl is not on the PATH")
    print("| fold | learner | values compared | max per-query diff | max average diff "
          "| NDCG@10 | MAP |")
    print("|---|---|---|---|---|---|---|")
    worst = 0.0
    with tempfile.TemporaryDirectory() as work:
        for fold in args.folds:
            for fold_, learner, n, qd, ad, nd, mp in check_fold(args.script, args.data,
                                                               fold, work):
                worst = max(worst, qd, ad)
                print(f"| {fold_} | {learner} | {n} | {qd:.1e} | {ad:.1e} | {nd:.4f} "
                      f"| {mp:.4f} |")
    # the script prints 4 decimals: agreement means within half a unit of the 4th
    print("agree" if worst <= 5e-5 + 1e-12 else f"DISAGREE (max difference {worst:.2e})")
    return 0 if worst <= 5e-5 + 1e-12 else 1


if __name__ == "__main__":
    sys.exit(main())
