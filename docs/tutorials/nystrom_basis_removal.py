"""Cross-validation of a reduced-set (Nystrom) model must remove the held-out basis
vectors (Airola et al. 2011, Paper III of the thesis, Fig. 1 in miniature).

Group-structured data (the examples of a group are dependent, as the parses of one
sentence), two basis vectors drawn from every group, group-level 10-fold CV of
reduced-set Gaussian RLS over a lambda grid. Keeping the held-out basis vectors in
the model makes each fold's model use test examples as basis vectors: at small lambda
it fits through them and the CV error is far too pessimistic. Removing them (Theorem 1,
rlscore's default, ``keep_basis_in_cv=False``) gives the error of the model one would
deploy, which an independent test set confirms.
"""

import numpy as np

from rlscore.core.nystrom import RLSModel
from rlscore.datasets import make_grouped_regression


def run(n_groups=120, per_group=20, basis_per_group=2, n_folds=10, lambdas=None,
        gamma=0.2, seed=0):
    """MSE over lambda of group-level K-fold CV keeping / removing the held-out basis
    vectors, and of the model on an independent test set from the same groups' law."""
    if lambdas is None:
        lambdas = np.logspace(-9, 9, 19)
    X, y, g = make_grouped_regression(n_groups, per_group, random_state=seed)
    Xt, yt, _ = make_grouped_regression(n_groups, per_group, random_state=seed + 100)
    rng = np.random.default_rng(seed)
    basis = np.sort(np.concatenate([
        rng.choice(np.flatnonzero(g == k), basis_per_group, replace=False)
        for k in range(n_groups)]))
    fold_of_group = rng.permutation(n_groups) % n_folds
    folds = [np.flatnonzero(fold_of_group[g] == k) for k in range(n_folds)]
    models = {keep: RLSModel(X, y, lambdas[0], "GaussianKernel", basis_indices=basis,
                             keep_basis_in_cv=keep, path=True, gamma=gamma)
              for keep in (True, False)}
    res = {"lambda": np.asarray(lambdas), "keep": [], "remove": [], "test": []}
    for lam in lambdas:
        for keep, model in models.items():
            model.solve(lam)
            err = np.concatenate([model.holdout(f)[:, 0] - y[f] for f in folds])
            res["keep" if keep else "remove"].append(float(np.mean(err ** 2)))
        pt = np.ravel(models[False].predictor.predict(Xt))
        res["test"].append(float(np.mean((pt - yt) ** 2)))
    for k in ("keep", "remove", "test"):
        res[k] = np.array(res[k])
    return res


def table(res):
    lines = ["| lambda | CV keeping basis | CV removing basis | test set |",
             "|---|---|---|---|"]
    for lam, a, b, c in zip(res["lambda"], res["keep"], res["remove"], res["test"]):
        lines.append(f"| {lam:.0e} | {a:.3f} | {b:.3f} | {c:.3f} |")
    return "\n".join(lines)


def plot():
    import matplotlib.pyplot as plt
    res = run()
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(res["lambda"], res["keep"], "o-", label="CV keeping held-out basis vectors")
    ax.loglog(res["lambda"], res["remove"], "s-", label="CV removing them (Theorem 1)")
    ax.loglog(res["lambda"], res["test"], "k--", label="independent test set")
    ax.set_xlabel("regularization parameter lambda")
    ax.set_ylabel("mean squared error")
    ax.set_title("Group-level 10-fold CV, 2 basis vectors per group")
    ax.legend()
    fig.tight_layout()


if __name__ == "__main__":
    print(table(run()))
