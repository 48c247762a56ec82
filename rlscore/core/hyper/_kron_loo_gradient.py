"""The in-sample leave-one-pair-out squared error of complete-data KronRLS and its exact
gradient with respect to log regparam and the kernel parameters of *each* domain, through
the two eigendecompositions (never an (n1 n2) x (n1 n2) array).

Derivation
----------
Domains with n1 and n2 objects, kernels K1 = V1 diag(e1) V1' and K2 = V2 diag(e2) V2',
labels Y (n1 x n2), pairwise kernel K = K2 kron K1 (see :mod:`rlscore.core.kronecker`),
lambda > 0. With G = (K + lambda I)^-1 = (V2 kron V1) diag(vec F) (V2 kron V1)',
F_ab = 1 / (e1_a e2_b + lambda),

    A = G y  = V1 ((V1' Y V2) o F) V2'         (the dual coefficients, n1 x n2)
    D = diag G = (V1 o V1) F (V2 o V2)'         (n1 x n2)

and the in-sample leave-one-pair-out residual of pair (i, j) -- the model trained on all
other n1 n2 - 1 labels, as :meth:`KronRLSSolver.in_sample_loo` computes it, which is
(y - Hy) / (1 - diag H) with I - H = lambda G -- is R = A / D (elementwise). This is the
leave-one-out residual of dual RLS with the kernel K, so the adjoint of
:mod:`rlscore.core.rls` applies unchanged: with E = (1/N) sum R^2 (N = n1 n2), U = R / D,
W = R^2 / D and P = G vec(U) (the matrix Pm = V1 ((V1' U V2) o F) V2'),

    dE = <dK, M>,   M = (2/N) ( G diag(vec W) G - sym(P a') ).                (1)

For a parameter of domain 1, dK = K2 kron dK1, and dE = <dK1, S1> with the partial trace
S1_ik = sum_jl K2_jl M_(ij),(kl). The two terms of (1):

* rank-one term: sum_jl K2_jl Pm_ij A_kl = (Pm K2 A')_ik, so it contributes
  -(1/N) (Pm K2 A' + A K2 Pm'), O(n1 n2^2 + n1^2 n2);
* second term: in the eigenbasis sum_jl K2_jl V2_jb V2_ld = e2_b delta_bd, so

      S1'' = (2/N) V1 Q1 V1',  Q1_ac = sum_b e2_b F_ab F_cb sum_s V1_sa V1_sc Z_sb,
      Z = W (V2 o V2)   (n1 x n2, entries >= 0 since D > 0).                       (2)

  Q1 = sum_b B_b' diag(e2_b Z[:, b]) B_b with B_b = V1 diag(F[:, b]): a stack of n2
  n1 x n1 blocks, one symmetric rank-(n1 n2) product (syrk, n1^3 n2 flops; the columns
  with e2_b < 0 of an indefinite kernel are subtracted in a second one).

Domain 2 is the same with the roles (and Y') transposed: O(n2^3 n1). And
dE/dlog lambda = lambda trace(M) = (2 lambda / N) [ <W, (V1 o V1) F^2 (V2 o V2)'> -
<Pm, A> ].

One step therefore costs the two eigendecompositions O(n1^3 + n2^3), O(n1 n2 (n1 + n2))
for A, D, Pm, and O(n1^3 n2 + n1 n2^3) for (2) (syrk), never O(n1^2 n2^2 (n1 + n2)):
on Davis (68 drugs x 442 targets) ~6e9 flops. Then each family's contractions with S1
(n1 x n1) and S2 (n2 x n2), O(n^2) per parameter.
"""

import numpy as np
import scipy.linalg as la
from scipy.linalg import blas

from rlscore._blocks import batches, rows_per_block
from rlscore._validation import check_regparam
from rlscore.core.optim import symmetric_from_triangle

__all__ = ["kron_loo_error_gradient", "KronLOOGradient", "KronLOOObjective",
           "kron_evidence_gradient", "KronEvidenceObjective"]


class KronLOOGradient:
    """The criterion at one point: ``value`` (E), ``S1``, ``S2`` (dE = <dK1, S1> +
    <dK2, S2>), ``d_log_regparam``, ``residuals`` (R, n1 x n2), ``dual`` (A)."""

    __slots__ = ("value", "S1", "S2", "d_log_regparam", "residuals", "dual")

    def __init__(self, value, S1, S2, d_log_regparam, residuals, dual):
        self.value, self.S1, self.S2 = value, S1, S2
        self.d_log_regparam, self.residuals, self.dual = d_log_regparam, residuals, dual


def _eig(K, name):
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square kernel matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError(f"{name} has non-finite entries")
    e, V = la.eigh(0.5 * (K + K.T), driver="evd", check_finite=False)
    return e, np.ascontiguousarray(V)


def _second_term(V1, F, e2, Z):
    """Q1 of equation (2): sum_b e2_b (V1 diag F[:, b])' diag(Z[:, b]) (V1 diag F[:, b])
    as syrk over blocks of b (working-memory budget), O(n1^3 n2)."""
    n1, n2 = F.shape
    Q = np.zeros((n1, n1), order="F")
    step = rows_per_block(8 * n1 * n1, n2, what="the KronRLS kernel-learning gradient")
    for sign in (1.0, -1.0):
        cols = np.flatnonzero(sign * e2 > 0)
        for sl in batches(cols.size, step):
            b = cols[sl]
            # rows (b, s), columns a: V1_sa F_ab sqrt(|e2_b| Z_sb)
            s = np.sqrt(np.abs(e2[b])[:, None] * Z[:, b].T)          # (nb, n1)
            B = V1[None, :, :] * F[:, b].T[:, None, :] * s[:, :, None]
            B = np.asfortranarray(B.reshape(-1, n1))
            Q = blas.dsyrk(sign, B, beta=1.0, c=Q, trans=1, lower=1, overwrite_c=1)
    return symmetric_from_triangle(Q, lower=True)


def _decompose(K1, K2, Y):
    """The eigendecompositions of K1 and K2, with Y checked against them."""
    e1, V1 = _eig(K1, "K1")
    e2, V2 = _eig(K2, "K2")
    if Y.shape != (V1.shape[0], V2.shape[0]):
        raise ValueError(f"Y must have shape (n1, n2) = {(V1.shape[0], V2.shape[0])}, got "
                         f"{Y.shape}")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y has non-finite entries")
    return e1, V1, e2, V2


def kron_loo_error_gradient(K1, K2, Y, regparam, gradient=True):
    """Exact in-sample leave-one-pair-out squared error of complete-data KronRLS, and
    its adjoints for the two domain kernels.

    Parameters
    ----------
    K1 : ndarray (n1, n1), symmetric kernel of domain 1 (rows of Y)
    K2 : ndarray (n2, n2), symmetric kernel of domain 2 (columns of Y)
    Y : ndarray (n1, n2), the complete label matrix
    regparam : float > 0
    gradient : bool, default True
        Form S1, S2 (else only the value and residuals).

    Returns
    -------
    KronLOOGradient
        ``value`` = mean squared leave-one-pair-out residual; ``S1`` (n1 x n1), ``S2``
        (n2 x n2) with dE = <dK1, S1> + <dK2, S2> for symmetric dK1, dK2;
        ``d_log_regparam`` = dE/dlog regparam.

    Notes
    -----
    Two eigendecompositions O(n1^3 + n2^3); O(n1 n2 (n1 + n2)) for the value; the
    gradient adds O(n1^3 n2 + n1 n2^3) (two syrk, equation (2) of the module
    docstring). Memory: a few n1 x n2 and n x n arrays plus blocks within the
    working-memory budget.
    """
    regparam = check_regparam(regparam)
    if not regparam > 0:
        raise ValueError(f"regparam must be > 0 for the leave-one-pair-out criterion, "
                         f"got {regparam!r}")
    Y = np.asarray(Y, dtype=np.float64)
    e1, V1, e2, V2 = _decompose(K1, K2, Y)
    n1, n2 = Y.shape
    F = np.multiply.outer(e1, e2)
    F += regparam
    if np.any(F <= 0):
        raise ValueError(f"K2 kron K1 + regparam I is not positive definite at regparam="
                         f"{regparam!r}")
    F = 1.0 / F
    V1s, V2s = V1 * V1, V2 * V2
    A = V1 @ (((V1.T @ Y) @ V2) * F) @ V2.T
    D = V1s @ F @ V2s.T
    R = A / D
    N = n1 * n2
    value = float(np.sum(R * R)) / N
    if not gradient:
        return KronLOOGradient(value, None, None, None, R, A)
    U = R / D
    W = R * U                                   # R^2 / D >= 0
    Pm = V1 @ (((V1.T @ U) @ V2) * F) @ V2.T    # G vec(U) as a matrix
    K1s = (V1 * e1) @ V1.T
    K2s = (V2 * e2) @ V2.T
    C1 = (Pm @ K2s) @ A.T
    C2 = (Pm.T @ K1s) @ A
    Q1 = _second_term(V1, F, e2, W @ V2s)
    Q2 = _second_term(V2, F.T, e1, W.T @ V1s)
    S1 = (2.0 / N) * (V1 @ Q1 @ V1.T) - (C1 + C1.T) / N
    S2 = (2.0 / N) * (V2 @ Q2 @ V2.T) - (C2 + C2.T) / N
    trace = (2.0 / N) * (float(np.vdot(W, V1s @ (F * F) @ V2s.T)) - float(np.vdot(Pm, A)))
    return KronLOOGradient(value, S1, S2, regparam * trace, R, A)


class KronLOOObjective:
    """The KronRLS in-sample leave-one-pair-out criterion as a function of
    z = [log regparam, theta1, theta2] with its gradient, for
    :func:`rlscore.core.selection.minimize_criterion`.

    Parameters
    ----------
    family1, family2 : kernel families of :mod:`rlscore.kernel` over the objects of
        domain 1 (rows of Y) and domain 2 (``FixedFamily`` for a side whose kernel is
        kept, e.g. linear)
    Y : ndarray (n1, n2)

    Notes
    -----
    Per call: the two kernels, one :func:`kron_loo_error_gradient`
    (O(n1^3 n2 + n1 n2^3)) and the families' contractions (O(n^2) per parameter).
    """

    def _criterion(self, K1, K2, Y, regparam, gradient=True):
        return kron_loo_error_gradient(K1, K2, Y, regparam, gradient)

    def __init__(self, family1, family2, Y):
        self.family1, self.family2 = family1, family2
        self.Y = np.asarray(Y, dtype=np.float64)
        self.p1 = family1.n_params
        self.n_params = 1 + family1.n_params + family2.n_params
        self.names = (["log_regparam"] + [f"1.{n}" for n in family1.names]
                      + [f"2.{n}" for n in family2.names])

    def split(self, z):
        """(log regparam, theta1, theta2) of a point z."""
        z = np.asarray(z, dtype=np.float64)
        return z[0], z[1:1 + self.p1], z[1 + self.p1:]

    def __call__(self, z):
        lr, t1, t2 = self.split(z)
        K1, s1 = self.family1.evaluate(t1)
        K2, s2 = self.family2.evaluate(t2)
        res = self._criterion(K1, K2, self.Y, float(np.exp(lr)))
        grad = np.concatenate([[res.d_log_regparam],
                               self.family1.contract(t1, s1, res.S1),
                               self.family2.contract(t2, s2, res.S2)])
        return res.value, grad

    def value(self, z):
        """The criterion alone: the two eigendecompositions and O(n1 n2 (n1 + n2))."""
        lr, t1, t2 = self.split(z)
        return self._criterion(self.family1.evaluate(t1)[0],
                               self.family2.evaluate(t2)[0], self.Y,
                               float(np.exp(lr)), gradient=False).value


def kron_evidence_gradient(K1, K2, Y, regparam, gradient=True):
    """The Gaussian-process evidence of complete-data KronRLS (negative log marginal
    likelihood per pair, signal amplitude profiled out, as
    :mod:`rlscore.core.rls`'s ``criterion="evidence"``) and its adjoints.

    With C = K2 kron K1 + l I, a = C^-1 vec(Y) (A as an n1 x n2 matrix) and m = n1 n2,

        E = (1/2) (log(2 pi) + 1) + (1/2) log(<Y, A> / m) + (1/(2m)) log det C,

    log det C = sum log(e1_i e2_b + l). For symmetric dK1, d log det C =
    <dK1, V1 diag(s1) V1^T> with s1_i = sum_b e2_b / (e1_i e2_b + l), and
    d<Y, A> = -<dK1, A K2 A^T>; the same for domain 2 with the roles exchanged.

    Returns
    -------
    KronLOOGradient with ``value`` E, ``S1``, ``S2`` and ``d_log_regparam``
    (``residuals`` None, ``dual`` A).

    Notes
    -----
    Two eigendecompositions, O(n1^3 + n2^3), and O(n1 n2 (n1 + n2)).
    """
    Y = np.asarray(Y, dtype=np.float64)
    e1, V1, e2, V2 = _decompose(K1, K2, Y)
    m = Y.size
    C = np.multiply.outer(e1, e2) + regparam
    if np.any(C <= 0):
        raise ValueError(f"K2 kron K1 + regparam I is not positive definite at regparam="
                         f"{regparam!r}")
    F = 1.0 / C
    A = V1 @ (((V1.T @ Y) @ V2) * F) @ V2.T
    ya = float(np.vdot(Y, A))
    if ya <= 0:
        raise ValueError("the evidence is undefined for all-zero labels")
    value = 0.5 * (np.log(2 * np.pi) + 1) + 0.5 * np.log(ya / m) + \
        float(np.sum(np.log(C))) / (2 * m)
    if not gradient:
        return KronLOOGradient(value, None, None, None, None, A)
    K1s = (V1 * e1) @ V1.T
    K2s = (V2 * e2) @ V2.T
    S1 = (V1 * (F @ e2)) @ V1.T / (2 * m) - (A @ K2s @ A.T) / (2 * ya)
    S2 = (V2 * (F.T @ e1)) @ V2.T / (2 * m) - (A.T @ K1s @ A) / (2 * ya)
    d_lam = regparam * (float(np.sum(F)) / (2 * m) - float(np.vdot(A, A)) / (2 * ya))
    return KronLOOGradient(value, 0.5 * (S1 + S1.T), 0.5 * (S2 + S2.T), d_lam, None, A)


class KronEvidenceObjective(KronLOOObjective):
    """:class:`KronLOOObjective` with the evidence (:func:`kron_evidence_gradient`)
    as the criterion."""

    _criterion = staticmethod(kron_evidence_gradient)
