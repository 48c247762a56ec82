"""The NDCG@10 that LightGBM and XGBoost print beside rlscore's conventions, on the
same predictions (fold 1 of LETOR 4.0 MQ2008 or, with ``--dataset ohsumed``, LETOR 3.0
OHSUMED: training S1-S3, validation S4).

    RLSCORE_DATA=/path/to/data python docs/tutorials/letor_gbdt_ndcg.py [--dataset D]

Needs ``pip install lightgbm xgboost``; about a minute on one core. The numbers are in
docs/tutorials/letor_mq2008.rst ("The gradient-boosting rankers' NDCG") and
letor_ohsumed.rst.
"""

import os
import pathlib
import warnings

import numpy as np

from rlscore.measure import ShortQueryWarning, ndcg
from rlscore.utilities.reader import read_svmlight


def load(folder, parts):
    Xs, ys, qs = [], [], []
    for p in parts:
        X, Y, q = read_svmlight(folder / f"S{p}.txt", fdim=46)   # the larger of the two
        Xs.append(X.toarray())
        ys.append(Y[:, 0])
        qs += [f"{p}-{x}" for x in q]
    return np.vstack(Xs), np.concatenate(ys), np.array(qs)


def sizes(q):
    """Query sizes in order of first appearance (the files keep queries together)."""
    _, first, counts = np.unique(q, return_index=True, return_counts=True)
    return counts[np.argsort(first)]


def rlscore_row(y, p, q, *conventions):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ShortQueryWarning)
        return "  ".join(f"ndcg@10{'' if c == 'letor' else ':' + c} "
                         f"{float(ndcg(y, p, q, 10, c))!r}" for c in conventions)


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", choices=["mq2008", "ohsumed"], default="mq2008")
    dataset = ap.parse_args().dataset
    import lightgbm as lgb
    import xgboost as xgb
    root = pathlib.Path(__file__).resolve().parents[3]
    base = pathlib.Path(os.environ.get("RLSCORE_DATA", root / "shared" / "data"))
    folder = base / {"mq2008": "letor4_mq2008", "ohsumed": "letor3_ohsumed"}[dataset]
    Xtr, ytr, qtr = load(folder, [1, 2, 3])
    Xva, yva, qva = load(folder, [4])

    train = lgb.Dataset(Xtr, ytr, group=sizes(qtr))
    valid = lgb.Dataset(Xva, yva, group=sizes(qva), reference=train)
    record = {}
    booster = lgb.train({"objective": "lambdarank", "metric": "ndcg", "eval_at": [10],
                         "learning_rate": 0.05, "num_leaves": 7, "verbose": -1,
                         "num_threads": 1, "seed": 0}, train, 100, valid_sets=[valid],
                        valid_names=["vali"], callbacks=[lgb.record_evaluation(record)])
    p = booster.predict(Xva, num_threads=1)
    print(f"LightGBM prints   ndcg@10 {float(record['vali']['ndcg@10'][-1])!r}")
    print("rlscore           " + rlscore_row(yva, p, qva, "letor", "standard", "lightgbm"))

    dtr = xgb.DMatrix(Xtr, label=ytr)
    dtr.set_group(sizes(qtr))
    dva = xgb.DMatrix(Xva, label=yva)
    dva.set_group(sizes(qva))
    evals = {}
    bx = xgb.train({"objective": "rank:ndcg", "eval_metric": ["ndcg@10", "ndcg@10-"],
                    "eta": 0.05, "max_depth": 3, "nthread": 1, "seed": 0}, dtr, 100,
                   evals=[(dva, "vali")], evals_result=evals, verbose_eval=False)
    px = bx.predict(dva)
    print(f"XGBoost prints    ndcg@10 {evals['vali']['ndcg@10'][-1]!r}  "
          f"ndcg@10- {evals['vali']['ndcg@10-'][-1]!r}")
    print("rlscore           " + rlscore_row(yva, px, qva, "letor", "standard", "xgboost",
                                             "xgboost-"))


if __name__ == "__main__":
    main()
