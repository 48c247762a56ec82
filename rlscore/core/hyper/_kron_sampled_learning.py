"""Kernel widths of both domains and regparam of Kronecker RLS on a sample of labelled
pairs (incomplete data, e.g. Metz), learned through the iterative solver
(:class:`rlscore.core.kronecker.SampledKronRLSModel`).

Why derivative-free
-------------------
On sampled pairs there is no eigendecomposition of the pairwise system: every model
is a MINRES solve through the generalized vec trick, O(t q (n1 + n2)) for t
iterations over q labelled pairs. An exact gradient of a held-out error would need
one adjoint MINRES solve per fold and evaluation and is accurate only to the solver's
tolerance; the criterion here -- the mean squared error of K folds of the labelled
pairs (new pairs, setting A) or of folds of rows / columns (new drugs / targets,
settings B / C), each predicted by the model trained on the other labelled pairs --
is a function of three numbers (log lambda, log gamma1, log gamma2), which
Nelder-Mead (:func:`scipy.optimize.minimize`, bounded) searches with a few dozen
evaluations. Each evaluation costs the two kernel matrices, O(n1^2 d1 + n2^2 d2), and
K MINRES solves; nothing of size q^2 is formed.
"""

from dataclasses import dataclass

import numpy as np

from rlscore._validation import check_positive_int, check_real
from rlscore.kernel import GaussianFamily, as_kernel_input

__all__ = ["SampledKernelSearch", "learn_sampled_kron_kernel", "sampled_holdout_error"]

_REGPARAM_RANGE = (1e-6, 1e3)
_WIDTH_RANGE = (1e-3, 1e3)      # gamma / gamma_start
_SETTINGS = {"pairs": 0, "drugs": 1, "rows": 1, "targets": 2, "columns": 2, "cols": 2}


@dataclass(frozen=True)
class SampledKernelSearch:
    """Options of :func:`learn_sampled_kron_kernel`.

    Attributes
    ----------
    max_evaluations : int, the criterion evaluations Nelder-Mead may spend
    maxiter : int or None, MINRES iterations per model (None: the solver's default)
    rtol : float, MINRES relative residual (SciPy's spelling, as
        :class:`rlscore.core.kronecker.SampledKronRLSOptions`)
    seed : int, the folds' random permutation
    regparam0 : float, the starting regparam (the widths start at the median
        heuristic)
    """
    max_evaluations: int = 60
    maxiter: object = None
    rtol: float = 1e-8
    seed: int = 0
    regparam0: float = 1.0


def _folds(setting, rows, cols, n_folds, seed):
    """Held-out sample indices of each fold."""
    rng = np.random.default_rng(seed)
    kind = _SETTINGS[setting]
    if kind == 0:
        perm = rng.permutation(rows.size)
        return [np.sort(perm[k::n_folds]) for k in range(n_folds)]
    groups = rows if kind == 1 else cols
    objs = np.unique(groups)
    if n_folds > objs.size:
        raise ValueError(f"n_folds={n_folds} is more than the {objs.size} objects held out")
    perm = rng.permutation(objs)
    return [np.flatnonzero(np.isin(groups, perm[k::n_folds])) for k in range(n_folds)]


def sampled_holdout_error(K1, K2, Y, pairs, folds, regparam, search=None):
    """Mean squared error of the held-out labelled pairs of each fold, predicted by
    the :class:`~rlscore.core.kronecker.SampledKronRLSModel` trained on the other
    labelled pairs (labels centred by the training mean of each fold).

    Parameters
    ----------
    K1, K2 : (n1, n1), (n2, n2) kernels over all objects
    Y : (q,) labels; pairs : (rows, cols), each (q,)
    folds : list of arrays of sample indices
    regparam : float > 0
    search : SampledKernelSearch or None (MINRES options)

    Returns
    -------
    float. K MINRES solves, O(t q (n1 + n2)) each.
    """
    import warnings
    from rlscore.core.kronecker import SampledKronRLSModel, SampledKronRLSOptions
    from rlscore.core.optim import ConvergenceWarning
    search = SampledKernelSearch() if search is None else search
    options = SampledKronRLSOptions(maxiter=search.maxiter, rtol=search.rtol)
    rows, cols = pairs
    sq, n = 0.0, 0
    for te in folds:
        tr = np.setdiff1d(np.arange(Y.size), te)
        mu = Y[tr].mean()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = SampledKronRLSModel(Y[tr] - mu, rows[tr], cols[tr], kernels=(K1, K2),
                                    regparam=regparam, options=options)
        p = m.predict(K1, K2, rows[te], cols[te]) + mu
        sq += float(np.sum((p - Y[te]) ** 2))
        n += te.size
    return sq / n


def learn_sampled_kron_kernel(X1, X2, Y, label_row_inds, label_col_inds, *,
                              setting="pairs", n_folds=3, search=None):
    """One Gaussian gamma per domain and regparam of Kronecker RLS on sampled pairs,
    minimizing the K-fold hold-out error of the setting by Nelder-Mead.

    Parameters
    ----------
    X1 : (n1, d1) features of the domain-1 objects (for similarity matrices, the
        features of :func:`rlscore.core.hyper.similarity_features`)
    X2 : (n2, d2) features of the domain-2 objects
    Y : (q,) labels of the labelled pairs
    label_row_inds, label_col_inds : (q,) the pairs (indices into X1, X2)
    setting : {"pairs", "drugs", "rows", "targets", "columns", "cols"}
        What the folds hold out: labelled pairs (A), all pairs of some rows (B), of
        some columns (C).
    n_folds : int >= 2, default 3
    search : SampledKernelSearch or None

    Returns
    -------
    KronKernelLearningResult
        ``criterion`` the K-fold mean squared error at the learned point,
        ``history`` one entry per evaluation, ``search`` scipy's OptimizeResult.

    Notes
    -----
    Per evaluation: the two Gaussian kernels, O(n1^2 d1 + n2^2 d2), and ``n_folds``
    MINRES solves, O(t q (n1 + n2)) each; at most ``search.max_evaluations``
    evaluations (derivative-free: see the module docstring).
    """
    from scipy.optimize import minimize
    from rlscore.core.hyper._kron_kernel_learning import KronKernelLearningResult
    from rlscore.core.structure import as_index_vector
    search = SampledKernelSearch() if search is None else search
    if not isinstance(search, SampledKernelSearch):
        raise TypeError(f"search must be a SampledKernelSearch, got {search!r}")
    if not isinstance(setting, str) or setting not in _SETTINGS:
        raise ValueError(f"setting must be one of {sorted(_SETTINGS)}, got {setting!r}")
    n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
    max_eval = check_positive_int(search.max_evaluations, "search.max_evaluations")
    lam0 = check_real(search.regparam0, "search.regparam0", minimum=0, open_minimum=True)
    X1 = as_kernel_input(X1, "X1")
    X2 = as_kernel_input(X2, "X2")
    Y = np.asarray(Y, dtype=np.float64).ravel()
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y has non-finite entries")
    rows = as_index_vector(label_row_inds, X1.shape[0], "label_row_inds")
    cols = as_index_vector(label_col_inds, X2.shape[0], "label_col_inds")
    if rows.size != Y.size or cols.size != Y.size:
        raise ValueError(f"label_row_inds ({rows.size}), label_col_inds ({cols.size}) and "
                         f"Y ({Y.size}) must have the same length")
    folds = _folds(setting, rows, cols, n_folds, search.seed)
    f1, f2 = GaussianFamily(X1), GaussianFamily(X2)
    t1, t2 = f1.start(), f2.start()
    z0 = np.concatenate([[np.log(lam0)], t1, t2])
    lo = np.array([np.log(lam0 * _REGPARAM_RANGE[0]), t1[0] + np.log(_WIDTH_RANGE[0]),
                   t2[0] + np.log(_WIDTH_RANGE[0])])
    hi = np.array([np.log(lam0 * _REGPARAM_RANGE[1]), t1[0] + np.log(_WIDTH_RANGE[1]),
                   t2[0] + np.log(_WIDTH_RANGE[1])])
    history = []

    def criterion(z):
        z = np.clip(z, lo, hi)
        K1, K2 = f1.evaluate(z[1:2])[0], f2.evaluate(z[2:3])[0]
        v = sampled_holdout_error(K1, K2, Y, (rows, cols), folds, float(np.exp(z[0])),
                                  search)
        history.append(dict(restart=0, step=len(history), criterion=v, grad_norm=np.nan,
                            regparam=float(np.exp(z[0])),
                            kernel_params1=f1.params(z[1:2]),
                            kernel_params2=f2.params(z[2:3]), best=False, x=z.copy()))
        return v

    # simplex edges: a factor of 10 in regparam, 3 in each gamma
    simplex = np.vstack([z0, z0 + [np.log(10.0), 0, 0], z0 + [0, np.log(3.0), 0],
                         z0 + [0, 0, np.log(3.0)]])
    res = minimize(criterion, z0, method="Nelder-Mead", bounds=list(zip(lo, hi)),
                   options=dict(maxfev=max_eval, initial_simplex=simplex, xatol=1e-2,
                                fatol=1e-8))
    best = int(np.argmin([h["criterion"] for h in history]))
    history[best]["best"] = True
    z = history[best].pop("x")
    for h in history:
        h.pop("x", None)
    return KronKernelLearningResult(
        regparam=float(np.exp(z[0])), kernel_params1=f1.params(z[1:2]),
        kernel_params2=f2.params(z[2:3]), criterion=history[best]["criterion"],
        history=history, search=res, family1=f1, family2=f2, theta1=z[1:2].copy(),
        theta2=z[2:3].copy())
