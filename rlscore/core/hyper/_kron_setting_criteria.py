"""The hold-out errors of complete-data KronRLS for new objects -- settings B (new
rows: drugs), C (new columns: targets) and D (both new) of Pahikkala et al. 2014 /
Stock et al. 2018 -- as functions of the two domain kernels and lambda, with their
exact gradients (adjoints), for :func:`rlscore.core.hyper.learn_kron_kernel`.

Notation as in :mod:`._kron_loo_gradient`: K1 = V1 diag(e1) V1', K2 = V2 diag(e2) V2',
F_ab = 1 / (e1_a e2_b + l), G = (K2 kron K1 + l I)^-1, N the number of scored pairs.

Leave-one-row-out (setting B), the shortcut
-------------------------------------------
Rotating the columns by V2 splits the model into n2 RLS problems over the rows,
(e2_b K1 + l I) a_b = z_b with Z = Y V2 and G_b = V1 diag(F[:, b]) V1'. Leaving row i
out of all of them is the leave-one-out of each: the residual of row i is
E~_ib = At_ib / D_ib with At = V1 ((V1' Z) o F) (= A V2) and D = (V1 o V1) F, and since
V2 is orthogonal the mean squared leave-row-out residual is E = ||E~||^2 / N,
N = n1 n2. O(n1 n2 (n1 + n2)).

Gradient. The hold-out of a set S of pairs has residual e_S = (G_SS)^-1 (G y)_S; with
u_S = (G_SS)^-1 e_S, g = G u and a = G y,

    dE = <dK, Mx>,  Mx = (2/N) ( G Bx G - sym(g a') ),  Bx = sum_S embed(u_S e_S')   (1)

(the leave-one-out of :mod:`._kron_loo_gradient` is the case of singleton sets). For
the row sets, G_SS = V2 diag(D[i]) V2' and, rotated by V2, u~_i = E~_i / D_i and the
block of row i is u~_i e~_i' -- not diagonal. The partial traces of (1):

* domain 1 (dK = K2 kron dK1): only the diagonal of each rotated block survives the
  trace with K2 = V2 diag(e2) V2', W = E~ o U~ = E~^2 / D, so the first term is
  (2/N) V1 Q1 V1' with Q1 of equation (2) of :mod:`._kron_loo_gradient` taken at Z = W
  (one syrk, O(n1^3 n2));
* domain 2 (dK = dK2 kron K1): in the eigenbasis of K2,
  S2~ = sum_i diag(U~_i) F' diag(V1_i^2 o e1) F diag(E~_i), the product L' R of two
  (n1 n1) x n2 matrices L_(i,a),b = V1_ia^2 e1_a U~_ib F_ab and R_(i,a),d = E~_id F_ad
  (one gemm, O(n1^2 n2^2));
* the rank-one term: -(1/N) (Gm K2 A' + A K2 Gm') and -(1/N) (Gm' K1 A + A' K1 Gm)
  with Gm = V1 ((V1' U~) o F) V2' (g as a matrix), O(n1 n2 (n1 + n2));
* dE/dlog l = (2 l / N) (<W, (V1 o V1) F^2> - <Gm V2, At>).

Columns (setting C) are the rows of the transposed problem.

Folds of objects (settings B, C and D), by the refit's adjoint
---------------------------------------------------------------
For a block that holds out rows R and columns C (either may be empty: setting B has
C empty) the model is trained on the complete sub-grid T1 x T2 of the other objects,
A = G_T(Y_T) with G_T the inverse of its system (eigendecompositions of K1[T1, T1] and
K2[T2, T2], one per fold of each domain), and predicts the block P = K1[R', T1] A
K2[T2, C'] (R' = R, or every row when R is empty; C' likewise). With the residual
Res = P - Y[R', C'], Bm = K1[R', T1]' Res K2[T2, C']' and Lm = G_T(Bm):

    <Res, dP> = <dK1[R', T1], Res K2[C', T2] A'> + <dK2[T2, C'], A' K1[T1, R'] Res>
                - <dK1[T1, T1], Lm K2[T2, T2] A'> - <dK2[T2, T2], A' K1[T1, T1] Lm>,

and d/dl = -<Lm, A>. O(n1 n2 (n1 + n2)) per block after the decompositions
(O(n1^3) per row fold, O(n2^3) per column fold): exact for any folds, and the
leave-one-out of setting D (one row and one column per block: n1 n2 blocks) on small
data.
"""

from dataclasses import dataclass

import numpy as np

from rlscore._blocks import batches, rows_per_block
from rlscore._validation import check_regparam
from rlscore.core.optim import SingularRegparamError
from rlscore.core.hyper._kron_loo_gradient import (KronLOOGradient, KronLOOObjective, _decompose,
                                                   _eig, _second_term)

__all__ = ["KRON_SETTING_CRITERIA", "KronHoldoutCriterion", "kron_setting_criterion",
           "kron_leave_row_out_gradient", "kron_fold_error_gradient",
           "KronSettingObjective"]

#: the faces' names of the settings -> the setting (B rows, C columns, D both)
KRON_SETTING_CRITERIA = {"rows": "B", "drugs": "B", "cols": "C", "columns": "C",
                         "targets": "C", "both": "D"}


@dataclass(frozen=True)
class KronHoldoutCriterion:
    """A new-object hold-out criterion of :func:`learn_kron_kernel`.

    Parameters
    ----------
    setting : {"rows", "drugs", "cols", "columns", "targets", "both"}
    n_folds : int >= 2 or None
        None: leave one object out (rows / columns: the O(n1 n2 (n1 + n2)) shortcut;
        both: one row and one column per block, n1 n2 refits' adjoints -- small data
        only). An int k: k seeded random folds of each held-out domain (both: every
        row fold with every column fold, k^2 blocks).
    seed : int, the folds' random permutation
    """
    setting: str
    n_folds: object = None
    seed: int = 0

    def __post_init__(self):
        if not isinstance(self.setting, str) or self.setting not in KRON_SETTING_CRITERIA:
            raise ValueError(f"setting must be one of {sorted(KRON_SETTING_CRITERIA)}, got "
                             f"{self.setting!r}")
        k = self.n_folds
        if k is not None and (isinstance(k, (bool, np.bool_)) or
                              not isinstance(k, (int, np.integer)) or k < 2):
            raise ValueError(f"n_folds must be None (leave one out) or an int >= 2, got "
                             f"{k!r}")

    @property
    def letter(self):
        return KRON_SETTING_CRITERIA[self.setting]

    def folds(self, n, held_out):
        """The folds of one domain of n objects (None when the domain is not held
        out)."""
        if not held_out:
            return None
        if self.n_folds is None:
            return [np.array([i]) for i in range(n)]
        if self.n_folds > n:
            raise ValueError(f"n_folds={self.n_folds} is more than the {n} objects of a "
                             f"held-out domain")
        perm = np.random.default_rng(self.seed).permutation(n)
        return [np.sort(perm[k::self.n_folds]) for k in range(self.n_folds)]


def kron_setting_criterion(criterion):
    """The :class:`KronHoldoutCriterion` of a ``criterion`` argument (a setting name
    or the object itself), or None for another criterion (``"loo"``, ``"evidence"``)."""
    if isinstance(criterion, KronHoldoutCriterion):
        return criterion
    if isinstance(criterion, str) and criterion in KRON_SETTING_CRITERIA:
        return KronHoldoutCriterion(criterion)
    return None


def _check(regparam):
    regparam = check_regparam(regparam)
    if not regparam > 0:
        raise SingularRegparamError(f"a hold-out criterion is undefined at regparam="
                                    f"{regparam!r} (objects the others determine exactly)")
    return regparam


def kron_leave_row_out_gradient(K1, K2, Y, regparam, gradient=True):
    """Exact leave-one-row-out squared error of complete-data KronRLS (setting B:
    each row predicted by the model trained without it) and its adjoints.

    Parameters
    ----------
    K1, K2 : (n1, n1), (n2, n2) symmetric kernels (rows, columns of Y)
    Y : (n1, n2) labels
    regparam : float > 0
    gradient : bool

    Returns
    -------
    KronLOOGradient
        ``value`` the mean squared residual over the n1 n2 pairs, ``S1``, ``S2``
        with dE = <dK1, S1> + <dK2, S2>, ``d_log_regparam``; ``residuals`` the
        n1 x n2 residual matrix Y - P.

    Notes
    -----
    Two eigendecompositions O(n1^3 + n2^3) and O(n1 n2 (n1 + n2)) for the value;
    the gradient adds O(n1^3 n2) (one syrk) and O(n1^2 n2^2) (one gemm over blocks
    within the working-memory budget). For setting C call it with (K2, K1, Y') and
    exchange S1 and S2.
    """
    regparam = _check(regparam)
    Y = np.asarray(Y, dtype=np.float64)
    e1, V1, e2, V2 = _decompose(K1, K2, Y)
    n1, n2 = Y.shape
    C = np.multiply.outer(e1, e2) + regparam
    if np.any(C <= 0):
        raise SingularRegparamError(f"K2 kron K1 + regparam I is not positive definite at "
                                    f"regparam={regparam!r}", "use a larger regparam")
    F = 1.0 / C
    V1s = V1 * V1
    Z = Y @ V2
    At = V1 @ ((V1.T @ Z) * F)                  # A V2: column b is G_b z_b
    D = V1s @ F
    Et = At / D                                  # rotated leave-row-out residuals
    N = n1 * n2
    value = float(np.sum(Et * Et)) / N
    R = Et @ V2.T
    if not gradient:
        return KronLOOGradient(value, None, None, None, R, At @ V2.T)
    Ut = Et / D
    W = Et * Ut
    A = At @ V2.T
    Gt = V1 @ ((V1.T @ Ut) * F)                 # G u, rotated by V2
    Gm = Gt @ V2.T
    K1s = (V1 * e1) @ V1.T
    K2s = (V2 * e2) @ V2.T
    C1 = (Gm @ K2s) @ A.T
    C2 = (Gm.T @ K1s) @ A
    Q1 = _second_term(V1, F, e2, W)
    S2t = np.zeros((n2, n2))
    s = V1s * e1                                 # (i, a): V1_ia^2 e1_a
    step = rows_per_block(24 * n1 * n2, n1, what="the leave-row-out gradient")
    for sl in batches(n1, step):
        L = (s[sl, :, None] * Ut[sl, None, :] * F[None, :, :]).reshape(-1, n2)
        Rm = (Et[sl, None, :] * F[None, :, :]).reshape(-1, n2)
        S2t += L.T @ Rm
    S2t = 0.5 * (S2t + S2t.T)
    S1 = (2.0 / N) * (V1 @ Q1 @ V1.T) - (C1 + C1.T) / N
    S2 = (2.0 / N) * (V2 @ S2t @ V2.T) - (C2 + C2.T) / N
    trace = (2.0 / N) * (float(np.vdot(W, V1s @ (F * F))) - float(np.vdot(Gt, At)))
    return KronLOOGradient(value, S1, S2, regparam * trace, R, A)


def _part(K, fold, cache, tag):
    """(training objects T, predicted objects P, eigendecomposition of K[T, T]) of one
    fold of a domain (None: nothing held out, every object predicted); the
    decomposition is kept in ``cache``."""
    every = np.arange(K.shape[0])
    T = every if fold is None else np.setdiff1d(every, fold)
    if T.size == 0:
        raise ValueError("a fold holds out every object of its domain")
    key = (tag, T.tobytes())
    if key not in cache:
        cache[key] = _eig(K[np.ix_(T, T)], "K")
    return T, (every if fold is None else fold), cache[key]


def kron_fold_error_gradient(K1, K2, Y, regparam, rowfolds=None, colfolds=None,
                             gradient=True):
    """Exact mean squared hold-out error of complete-data KronRLS over blocks of new
    objects, and its adjoints, by the refits of each block (no shortcut).

    Parameters
    ----------
    K1, K2, Y, regparam : as in :func:`kron_leave_row_out_gradient`
    rowfolds, colfolds : lists of index arrays, or None
        Setting B: ``rowfolds`` only (each fold's rows, all columns, predicted by the
        model trained without those rows); C: ``colfolds`` only; D: both (the block
        R x C predicted by the model trained without rows R and columns C, for every
        R and C).
    gradient : bool

    Returns
    -------
    KronLOOGradient
        ``value`` the mean squared residual over the scored pairs; ``residuals``
        the n1 x n2 matrix of Y - P (each pair scored once: the folds partition
        the rows / columns).

    Notes
    -----
    One eigendecomposition of K1[T1, T1] per row fold and of K2[T2, T2] per column
    fold, then O(n1 n2 (n1 + n2)) per block (value and gradient). The
    leave-one-out of setting D (one row and one column per block) costs n1 n2
    blocks: small data only.
    """
    from rlscore._validation import check_index_folds
    regparam = _check(regparam)
    Y = np.asarray(Y, dtype=np.float64)
    K1 = np.asarray(K1, dtype=np.float64)
    K2 = np.asarray(K2, dtype=np.float64)
    n1, n2 = Y.shape
    if K1.shape != (n1, n1) or K2.shape != (n2, n2):
        raise ValueError(f"K1 and K2 must be ({n1}, {n1}) and ({n2}, {n2}) for Y of shape "
                         f"{Y.shape}")
    if rowfolds is None and colfolds is None:
        raise ValueError("give rowfolds, colfolds or both")
    K1 = 0.5 * (K1 + K1.T)
    K2 = 0.5 * (K2 + K2.T)
    rf = [None] if rowfolds is None else check_index_folds(rowfolds, n1, "rowfolds")
    cf = [None] if colfolds is None else check_index_folds(colfolds, n2, "colfolds")
    cache = {}
    S1 = np.zeros((n1, n1)) if gradient else None
    S2 = np.zeros((n2, n2)) if gradient else None
    dlam = 0.0
    sq, N = 0.0, 0
    Resid = np.zeros((n1, n2))
    for R in rf:
        T1, P1, (e1, V1) = _part(K1, R, cache, 1)
        for Cf in cf:
            T2, P2, (e2, V2) = _part(K2, Cf, cache, 2)
            Fm = np.multiply.outer(e1, e2) + regparam
            if np.any(Fm <= 0):
                raise SingularRegparamError(f"K2 kron K1 + regparam I is not positive "
                                            f"definite at regparam={regparam!r}",
                                            "use a larger regparam")
            Fm = 1.0 / Fm
            A = V1 @ ((V1.T @ Y[np.ix_(T1, T2)] @ V2) * Fm) @ V2.T
            K1p, K2p = K1[np.ix_(P1, T1)], K2[np.ix_(T2, P2)]
            Res = K1p @ A @ K2p - Y[np.ix_(P1, P2)]
            Resid[np.ix_(P1, P2)] = -Res
            sq += float(np.sum(Res * Res))
            N += Res.size
            if not gradient:
                continue
            Bm = K1p.T @ Res @ K2p.T
            Lm = V1 @ ((V1.T @ Bm @ V2) * Fm) @ V2.T
            K1t, K2t = K1[np.ix_(T1, T1)], K2[np.ix_(T2, T2)]
            S1[np.ix_(P1, T1)] += Res @ K2p.T @ A.T
            S1[np.ix_(T1, T1)] -= Lm @ K2t @ A.T
            S2[np.ix_(T2, P2)] += A.T @ K1p.T @ Res
            S2[np.ix_(T2, T2)] -= A.T @ K1t @ Lm
            dlam -= float(np.vdot(Lm, A))
    value = sq / N
    if not gradient:
        return KronLOOGradient(value, None, None, None, Resid, None)
    S1 = (S1 + S1.T) / N                        # 2/N, symmetrized
    S2 = (S2 + S2.T) / N
    return KronLOOGradient(value, S1, S2, regparam * 2.0 * dlam / N, Resid, None)


def _transposed(res):
    return KronLOOGradient(res.value, res.S2, res.S1, res.d_log_regparam,
                           None if res.residuals is None else res.residuals.T,
                           None if res.dual is None else res.dual.T)


class KronSettingObjective(KronLOOObjective):
    """:class:`KronLOOObjective` with a new-object hold-out criterion
    (:class:`KronHoldoutCriterion`): leave-one-row-out / leave-one-column-out by the
    shortcut, folds and setting D by the refits' adjoints
    (:func:`kron_fold_error_gradient`)."""

    def __init__(self, family1, family2, Y, criterion):
        super().__init__(family1, family2, Y)
        self.setting = criterion
        n1, n2 = self.Y.shape
        s = criterion.letter
        self.rowfolds = criterion.folds(n1, s in "BD")
        self.colfolds = criterion.folds(n2, s in "CD")

    def _criterion(self, K1, K2, Y, regparam, gradient=True):
        s = self.setting.letter
        if self.setting.n_folds is None and s == "B":
            return kron_leave_row_out_gradient(K1, K2, Y, regparam, gradient)
        if self.setting.n_folds is None and s == "C":
            return _transposed(kron_leave_row_out_gradient(K2, K1, Y.T, regparam,
                                                           gradient))
        return kron_fold_error_gradient(K1, K2, Y, regparam, self.rowfolds, self.colfolds,
                                        gradient)
