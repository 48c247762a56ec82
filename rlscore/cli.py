"""The ``rlscore`` command.

``rlscore demo`` runs the library's main job on the Statlog heart sample shipped with
the package: it selects the regularization parameter of linear and Gaussian-kernel RLS
by exact leave-one-out and leave-pair-out cross-validation and prints what was learned.

``rlscore ranksvm TRAIN [--test TEST]`` trains a linear RankSVM
(:class:`rlscore.learner.LinearRankSVM`, hinge or squared hinge loss, bundle or Newton
solver) on an svmlight / LETOR file (``qid:`` gives the queries), prints the model's
objective and training statistics and, with ``--test``, the (query-averaged) c-index on
another file; ``--save-weights`` writes w, one value per line.
"""

import argparse
import sys
import time


def _demo(args):
    import numpy as np

    from rlscore.datasets import load_heart
    from rlscore.learner import LeaveOneOutRLS, LeavePairOutRLS
    from rlscore.measure import auc
    from rlscore.utilities.cross_validation import random_folds

    X, y = load_heart()
    m, d = X.shape
    print(f"Statlog heart sample: {m} patients, {d} features, "
          f"{int(np.sum(y > 0))} with heart disease (+1), {int(np.sum(y < 0))} without (-1)")
    grid = [2.0 ** k for k in range(-10, 11)]

    t0 = time.perf_counter()
    lin = LeaveOneOutRLS(X, y, regparams=grid)
    t_lin = time.perf_counter() - t0
    print(f"\nLinear RLS, regparam chosen by exact leave-one-out over {len(grid)} values "
          f"({t_lin * 1000:.0f} ms): regparam = {lin.regparam:g}, "
          f"LOO mean squared error = {lin.cv_performances.min():.4f}")
    loo = lin.cv_predictions[int(np.argmin(lin.cv_performances))]
    print(f"  AUC of the leave-one-out predictions: {auc(y, loo):.4f}")
    W = np.asarray(lin.predictor.W)
    order = np.argsort(-np.abs(W))[:5]
    print("  largest weights: " + ", ".join(f"feature {i + 1}: {W[i]:+.3f}" for i in order))

    gamma = 1.0 / d
    t0 = time.perf_counter()
    gau = LeavePairOutRLS(X, y, kernel="GaussianKernel", gamma=gamma, regparams=grid)
    t_gau = time.perf_counter() - t0
    n_pairs = int(np.sum(y > 0)) * int(np.sum(y < 0))
    print(f"\nGaussian-kernel RLS (gamma = 1/{d}), regparam chosen by exact leave-pair-out "
          f"AUC over all {n_pairs} positive-negative pairs and {len(grid)} values "
          f"({t_gau * 1000:.0f} ms):")
    print(f"  regparam = {gau.regparam:g}, leave-pair-out AUC = {gau.cv_performances.max():.4f}")

    folds = random_folds(m, 10, seed=args.seed)
    P = np.empty(m)
    for fold in folds:
        P[fold] = gau.learner.holdout(fold)
    print(f"  pooled 10-fold AUC at that regparam (exact hold-out shortcut): {auc(y, P):.4f}")
    print("\nEvery estimate above is exact: it equals retraining without the held-out "
          "examples, computed without retraining.")
    return 0


def _ranksvm(args):
    import numpy as np

    from rlscore.learner.ranksvm import LinearRankSVM
    from rlscore.measure import cindex, query_cindex
    from rlscore.utilities.reader import read_svmlight

    X, Y, qids = read_svmlight(args.train)
    t0 = time.perf_counter()
    model = LinearRankSVM(X, Y[:, 0], qids=qids, regparam=args.regparam, tol=args.tol,
                          normalize=args.normalize, loss=args.loss, solver=args.solver,
                          n_threads=args.threads)
    elapsed = time.perf_counter() - t0
    sol = model.solution
    nq = 1 if qids is None else len(set(qids))
    print(f"{X.shape[0]} examples, {X.shape[1]} features, {nq} "
          f"quer{'y' if nq == 1 else 'ies'}, {model.n_pairs} pairs")
    print(f"loss {model.loss}, solver {model.solver}, regparam {model.regparam:g}: "
          f"{sol.iterations} iterations in {elapsed:.3f} s, objective "
          f"{sol.objective:.10g}, converged {sol.converged}")
    if model.solver == "newton":
        print(f"  ||grad J(w)|| / ||grad J(0)|| = {sol.grad_norm / sol.grad_norm0:.3g}, "
              f"{sol.cg_iterations} CG iterations")
    else:
        print(f"  duality gap {sol.duality_gap:.3g}")
    if args.test:
        Xt, Yt, qt = read_svmlight(args.test, fdim=X.shape[1])
        P = model.predict(Xt)
        c = cindex(Yt[:, 0], P) if qt is None else query_cindex(Yt[:, 0], P, qt)
        print(f"test: {Xt.shape[0]} examples, c-index "
              f"{'(mean over queries) ' if qt is not None else ''}{c:.4f}")
    if args.save_weights:
        np.savetxt(args.save_weights, np.asarray(model.predictor.W).ravel())
        print(f"weights written to {args.save_weights}")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="rlscore",
        description="Regularized least-squares learners with exact fast cross-validation.",
        epilog="examples:\n  rlscore demo        train on the bundled heart sample and "
               "print cross-validated performance\n  rlscore ranksvm train.txt --loss "
               "squared_hinge --regparam 1e-3 --test test.txt",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser("demo", help="run the main job on the bundled heart sample")
    demo.add_argument("--seed", type=int, default=0, help="seed of the 10-fold split")
    demo.set_defaults(func=_demo)
    rsvm = sub.add_parser("ranksvm", help="train a linear RankSVM on an svmlight file")
    rsvm.add_argument("train", help="svmlight / LETOR training file (qid: optional)")
    rsvm.add_argument("--test", help="svmlight file to report the c-index on")
    rsvm.add_argument("--loss", choices=["hinge", "squared_hinge"], default="hinge")
    rsvm.add_argument("--solver", choices=["bundle", "newton"], default=None,
                      help="default: bundle for hinge, newton for squared_hinge")
    rsvm.add_argument("--regparam", type=float, default=1.0,
                      help="lambda of (lambda / 2) ||w||^2 + mean pair loss")
    rsvm.add_argument("--tol", type=float, default=1e-3)
    rsvm.add_argument("--normalize", choices=["pairs", "query", "none"],
                      default="pairs")
    rsvm.add_argument("--threads", type=int, default=1)
    rsvm.add_argument("--save-weights", metavar="PATH")
    rsvm.set_defaults(func=_ranksvm)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except (ValueError, OSError) as exc:
        print(f"rlscore: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
