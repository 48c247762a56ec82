"""Check ``rlscore evaluate`` against the official LETOR evaluation scripts.

LETOR 4.0 ships ``Eval-Score-4.0.pl`` and LETOR 3.0 ``Eval-Score-3.0.pl`` (Jun Xu and
Tie-Yan Liu, Microsoft Research Asia), the scripts the published LETOR tables were
computed with. rlscore does not ship them; if you have a copy, this script trains two
learners per fold through the command line, writes their test predictions, runs the
Perl script on them (per query, flag 1) and compares every value it prints -- P@k, MAP,
NDCG@k (k = 1..10; 4.0 also MeanNDCG), per query and averaged -- with
``rlscore evaluate --per-query --format json`` (``--convention letor3`` for the 3.0
script).

Run::

    python docs/tutorials/letor_eval_check.py --script PATH/Eval-Score-4.0.pl \
        [--data PATH/TO/letor4_mq2008] [--folds 1 2 3 4 5]
    python docs/tutorials/letor_eval_check.py --script PATH/Eval-Score-3.0.pl \
        --convention letor3 --data PATH/TO/letor3_ohsumed

(the data folder holds ``S1.txt`` ... ``S5.txt``; by default
``$RLSCORE_DATA/letor4_mq2008``). Needs ``perl`` on the PATH. The 4.0 script prints
per-query values and averages with four decimals -- the comparison allows half a unit
of the last printed digit; the 3.0 script prints full precision (allowed 1e-9).
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
MEASURES3 = MEASURES[:-1]                   # LETOR 3.0's script has no MeanNDCG


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


def read_perl3_output(path, qids):
    """{qid: {measure: value}} and {measure: average} from Eval-Score-3.0.pl's flag-1
    output: lines "precision of queryI:", "Map of queryI:", "NDCG of queryI:" (I the
    index of the query in numerically sorted qid order) and the averages "precision:",
    "MAP:", "NDCG:". A query's P@k / NDCG@k lists stop at its last document (or at the
    script's top position, 16 or 10): a missing value is absent here."""
    order = sorted(qids, key=float)
    per_query, average = {}, {}
    kinds = {"precision": "p@", "NDCG": "ndcg@"}
    with open(path) as f:
        for line in f:
            cells = [c for c in line.rstrip("\n").split("\t") if c != ""]
            if not cells:
                continue
            head, values = cells[0], [float(c) for c in cells[1:]]
            name, _, rest = head.rstrip(":").partition(" of query")
            target = per_query.setdefault(order[int(rest)], {}) if rest else average
            if name in ("Map", "MAP"):
                target["map"] = values[0]
            else:
                target.update({f"{kinds[name]}{k + 1}": v for k, v in enumerate(values)})
    return per_query, average


def check_fold(script, data, fold, work, convention="letor4"):
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
        measures = MEASURES3 if convention == "letor3" else MEASURES
        ours = json.loads(rlscore("evaluate", model, part(test), "--measure",
                                  ",".join(measures), "--per-query", "--format", "json",
                                  "--convention", convention, "--no-progress"))
        by_qid = {r["qid"]: r for r in ours["per_query"]}
        if convention == "letor3":
            theirs, their_avg = read_perl3_output(out, list(by_qid))
        else:
            theirs, their_avg = read_perl_output(out)
        if set(by_qid) != set(theirs):
            raise SystemExit(f"fold {fold} {learner}: the query sets differ")
        # 3.0: a value the script leaves out (past a short query's last document) must
        # be 0 in ours, which is how the script's average counts it
        pairs = [(by_qid[q][m], theirs[q].get(m, 0.0)) for q in theirs for m in measures]
        q_diff = max(abs(a - b) for a, b in pairs)
        a_diff = max(abs(ours[m] - their_avg[m]) for m in measures if m in their_avg)
        rows.append((fold, learner, len(pairs), q_diff, a_diff,
                     ours["ndcg@10"], ours["map"]))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--script", required=True, help="path of Eval-Score-4.0.pl (or "
                    "Eval-Score-3.0.pl with --convention letor3)")
    ap.add_argument("--convention", choices=["letor4", "letor3"], default="letor4")
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
            for fold_, learner, n, qd, ad, nd, mp in check_fold(
                    args.script, args.data, fold, work, args.convention):
                worst = max(worst, qd, ad)
                print(f"| {fold_} | {learner} | {n} | {qd:.1e} | {ad:.1e} | {nd:.4f} "
                      f"| {mp:.4f} |")
    # 4.0 prints 4 decimals: agreement means within half a unit of the 4th; 3.0 prints
    # Perl's default 15 significant digits
    tol = 1e-9 if args.convention == "letor3" else 5e-5 + 1e-12
    print("agree" if worst <= tol else f"DISAGREE (max difference {worst:.2e})")
    return 0 if worst <= tol else 1


if __name__ == "__main__":
    sys.exit(main())
