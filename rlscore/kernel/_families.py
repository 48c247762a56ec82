"""Kernels as differentiable functions of their parameters, for learning the parameters
by gradients of a cross-validation criterion (:mod:`rlscore.core.rls`'s
``learn_kernel``).

A *family* holds the training data X (m rows) and maps a vector theta of parameters in
log space to the training kernel matrix K(theta) (m x m). What the criterion needs of
the derivatives is never dK/dtheta_j itself but the contractions

    c_j = <dK/dtheta_j, M> = sum_{a,b} (dK/dtheta_j)_{ab} M_{ab}

with one symmetric m x m matrix M per step (the adjoint of the criterion, see
:func:`rlscore.core.hyper.loo_error_gradient`). ``contract`` returns all of them at once,
usually without forming any dK/dtheta_j: for per-feature Gaussian widths the d
contractions are one O(m^2 d) matrix product. ``derivatives`` forms the matrices
explicitly (O(p m^2) memory), for tests.

Families and their parameters (all in log space, so the optimizer works unconstrained
in scale and the parameters stay positive):

* :class:`GaussianFamily`: k(x, z) = exp(-sum_k gamma_k (x_k - z_k)^2) with one gamma
  (isotropic, theta = [log gamma]) or one per feature (ARD, theta = [log gamma_1, ...,
  log gamma_d]; length-scale l_k = 1 / sqrt(2 gamma_k)).
* :class:`PolynomialFamily`: k(x, z) = (gamma <x, z> + coef0)^degree, degree fixed,
  theta = [log gamma, log coef0].
* :class:`FixedFamily`: a kernel without free parameters (e.g. a LinearKernel), only
  useful as a term of a sum.
* :class:`SumFamily`: K = sum_j beta_j K_j(theta_j), theta = [log beta_1, ...,
  log beta_J, theta_1, ..., theta_J].
"""

import numpy as np
import scipy.sparse as sp

from rlscore._validation import check_degree
from rlscore.kernel._base import as_kernel_input, dot_dense, sq_distances, sq_norms
from rlscore.kernel.gaussian_kernel import GaussianKernel
from rlscore.kernel.polynomial_kernel import PolynomialKernel

__all__ = ["GaussianFamily", "PolynomialFamily", "FixedFamily", "SumFamily",
           "median_heuristic_gamma"]


def _pair_sample(m, rng, n_max=2000):
    """Row indices of at most n_max rows (all when m <= n_max)."""
    return np.arange(m) if m <= n_max else np.sort(rng.choice(m, n_max, replace=False))


def median_heuristic_gamma(X, ard=False, seed=0):
    """Data-driven starting width of the Gaussian kernel.

    Isotropic: gamma = 1 / median of the squared distances between distinct rows (the
    mean when the median is 0, e.g. many duplicate rows). ARD: gamma_k = 1 / (d s_k)
    with s_k the mean squared difference of feature k over pairs of rows (= 2 var_k),
    so that sum_k gamma_k (x_k - z_k)^2 is 1 on average, each feature contributing
    equally.

    O(n^2 d) with n = min(m, 2000) rows sampled. A constant feature with ``ard=True``
    (s_k = 0) is a ValueError: its width is undefined and does not matter.
    """
    X = as_kernel_input(X)
    rng = np.random.default_rng(seed)
    S = X[_pair_sample(X.shape[0], rng)]
    if ard:
        A = S.toarray() if sp.issparse(S) else np.asarray(S)
        s = 2.0 * A.var(axis=0)
        const = np.flatnonzero(s <= 1e-300)
        if const.size:
            raise ValueError(f"X has constant features (columns {const[:10].tolist()}"
                             f"{' ...' if const.size > 10 else ''}): a per-feature width "
                             f"(ard=True) is undefined for them; drop them first")
        return 1.0 / (A.shape[1] * s)
    D = sq_distances(S, S)
    off = D[np.triu_indices(D.shape[0], 1)]
    if off.size == 0 or not np.any(off > 0):
        raise ValueError("X has fewer than two distinct rows: no width can be learned")
    med = np.median(off)
    return 1.0 / (med if med > 0 else off.mean())


class GaussianFamily:
    """The Gaussian kernel on fixed training rows as a function of theta = log gamma.

    Parameters
    ----------
    X : array-like or sparse (m, d)
    ard : bool, default False
        One gamma per feature (d parameters) instead of one.

    Notes
    -----
    Isotropic: the squared distances D are formed once (O(m^2 d)); then K = exp(-gamma
    D) costs O(m^2) and the contraction <dK/dlog gamma, M> = -gamma <D o K, M> O(m^2).

    ARD: dK/dlog gamma_k = -gamma_k K o D_k with D_k = (x_k 1' - 1 x_k')^2. For a
    symmetric P = K o M,

        <D_k, P> = 2 sum_a x_ak^2 (P 1)_a - 2 x_k' P x_k,

    so all d contractions are -2 gamma o (X^2' P 1 - colsum(X o P X)): one O(m^2 d)
    product, no m x m matrix per feature. The columns of X are centred first (distances
    do not change) to keep the difference of the two terms accurate. K itself costs
    O(m^2 d) per step.
    """

    def __init__(self, X, ard=False):
        X = as_kernel_input(X)
        self.ard = bool(ard)
        self.X = X
        if self.ard:
            A = X.toarray() if sp.issparse(X) else np.array(X, dtype=np.float64)
            A -= A.mean(axis=0)
            self._A = A
            self._A2 = A * A
            self.n_params = A.shape[1]
        else:
            self._D = None          # formed on the first square evaluation
            self.n_params = 1
        self.names = ([f"log_gamma[{k}]" for k in range(self.n_params)] if self.ard
                      else ["log_gamma"])

    def _distances(self):
        if self._D is None:
            self._D = sq_distances(self.X, self.X)
            np.fill_diagonal(self._D, 0.0)
        return self._D

    def start(self):
        """Median-heuristic theta (:func:`median_heuristic_gamma`)."""
        return np.log(np.atleast_1d(median_heuristic_gamma(self.X, self.ard)))

    def evaluate(self, theta):
        """(K, state): the m x m kernel at theta and what ``contract`` reuses."""
        g = np.exp(theta)
        if self.ard:
            Z = self._A * np.sqrt(g)
            K = sq_distances(Z, Z)
            np.fill_diagonal(K, 0.0)
        else:
            K = self._distances() * g[0]
        np.negative(K, out=K)
        np.exp(K, out=K)
        return K, K

    def contract(self, theta, state, M):
        """[<dK/dtheta_j, M>]_j for symmetric M (see the class notes)."""
        g = np.exp(theta)
        P = state * M
        if not self.ard:
            return np.array([-g[0] * np.vdot(self._distances(), P)])
        p1 = P.sum(axis=1)
        quad = np.einsum("ak,ak->k", self._A, P @ self._A)
        return -2.0 * g * (self._A2.T @ p1 - quad)

    def derivatives(self, theta):
        """The matrices dK/dtheta_j, explicitly (O(p m^2) memory; for tests)."""
        g = np.exp(theta)
        K, _ = self.evaluate(theta)
        if not self.ard:
            return [-g[0] * self._distances() * K]
        return [-g[k] * (self._A[:, k, None] - self._A[None, :, k]) ** 2 * K
                for k in range(self.n_params)]

    # -- rectangular blocks K(X, Z) against a fixed basis Z (reduced-set models) --------

    def _centred(self):
        if not hasattr(self, "_A"):
            A = self.X.toarray() if sp.issparse(self.X) else np.array(self.X, dtype=np.float64)
            self._mean = A.mean(axis=0)
            self._A = A - self._mean
            self._A2 = self._A * self._A
        elif not hasattr(self, "_mean"):
            A = self.X.toarray() if sp.issparse(self.X) else np.asarray(self.X)
            self._mean = A.mean(axis=0)
        return self._A

    def block(self, theta, Z):
        """(K(X, Z), state) for fixed rows Z (r, d), e.g. the basis of a reduced-set
        model. O(m r d)."""
        A = self._centred()
        Zc = (Z.toarray() if sp.issparse(Z) else np.array(Z, dtype=np.float64)) - self._mean
        s = np.sqrt(np.exp(theta))
        if not self.ard:
            s = np.full(A.shape[1], s[0])
        K = sq_distances(A * s, Zc * s)
        np.negative(K, out=K)
        np.exp(K, out=K)
        return K, (K, Zc)

    def contract_block(self, theta, state, M):
        """[<dK(X, Z)/dtheta_j, M>]_j for any M (m, r): with P = K o M,
        sum_ab P_ab (x_ak - z_bk)^2 = x_k^2' P 1 + z_k^2' P' 1 - 2 x_k' P z_k for all k
        in one O(m r d) pass."""
        K, Zc = state
        A = self._A
        P = K * M
        per_feature = (self._A2.T @ P.sum(axis=1) + (Zc * Zc).T @ P.sum(axis=0)
                       - 2.0 * np.einsum("ak,ak->k", A, P @ Zc))
        g = np.exp(theta)
        if self.ard:
            return -g * per_feature
        return np.array([-g[0] * per_feature.sum()])

    def params(self, theta):
        """The GaussianKernel parameters at theta."""
        g = np.exp(theta)
        return {"gamma": g.copy() if self.ard else float(g[0])}

    def kernel(self, theta, basis=None):
        """A :class:`GaussianKernel` on ``basis`` (default the training rows)."""
        return GaussianKernel(self.X if basis is None else basis, **self.params(theta))

    def cross(self, theta, X):
        """K(X, training rows) at theta."""
        return self.kernel(theta).getKM(X)


class PolynomialFamily:
    """k(x, z) = (gamma <x, z> + coef0)^degree as a function of theta = [log gamma,
    log coef0] (coef0 > 0); the degree is fixed.

    Notes
    -----
    The Gram matrix S = X X' is formed once (O(m^2 d)); with B = gamma S + coef0,
    dK/dlog gamma = degree B^(degree-1) o gamma S and dK/dlog coef0 = degree
    B^(degree-1) coef0, so a step costs O(m^2).
    """

    def __init__(self, X, degree=2):
        self.X = as_kernel_input(X)
        self.degree = check_degree(degree)
        self._S = dot_dense(self.X, self.X)
        self.n_params = 2
        self.names = ["log_gamma", "log_coef0"]

    def start(self):
        """gamma = 1 / mean ||x||^2 (so gamma <x, x> is 1 on average), coef0 = 1."""
        n = sq_norms(self.X).mean()
        if not n > 0:
            raise ValueError("X is all zeros: the polynomial kernel has nothing to scale")
        return np.array([-np.log(n), 0.0])

    def evaluate(self, theta):
        g, c = np.exp(theta)
        B = g * self._S + c
        with np.errstate(over="ignore"):
            K = B ** self.degree
        return K, B

    def contract(self, theta, state, M):
        g, c = np.exp(theta)
        p = self.degree
        with np.errstate(over="ignore"):
            W = p * state ** (p - 1) * M
        return np.array([g * np.vdot(self._S, W), c * W.sum()])

    def derivatives(self, theta):
        g, c = np.exp(theta)
        _, B = self.evaluate(theta)
        p = self.degree
        W = p * B ** (p - 1)
        return [W * g * self._S, W * c]

    def params(self, theta):
        g, c = np.exp(theta)
        return {"degree": self.degree, "gamma": float(g), "coef0": float(c)}

    def kernel(self, theta, basis=None):
        return PolynomialKernel(self.X if basis is None else basis, **self.params(theta))

    def cross(self, theta, X):
        return self.kernel(theta).getKM(X)


class FixedFamily:
    """A kernel object without free parameters (e.g. ``LinearKernel(X)``), evaluated
    once (O(m^2 d)); a term of a :class:`SumFamily` whose weight is learned."""

    def __init__(self, kernel, X):
        self._kernel = kernel
        self.X = as_kernel_input(X)
        self._K = np.asarray(kernel.getKM(self.X), dtype=np.float64)
        self.n_params = 0
        self.names = []

    def start(self):
        return np.zeros(0)

    def evaluate(self, theta):
        return self._K.copy(), None

    def contract(self, theta, state, M):
        return np.zeros(0)

    def derivatives(self, theta):
        return []

    def params(self, theta):
        return dict(self._kernel.get_params())

    def kernel(self, theta, basis=None):
        return self._kernel

    def cross(self, theta, X):
        return self._kernel.getKM(X)


class SumFamily:
    """K = sum_j beta_j K_j(theta_j): theta = [log beta_1..J, theta_1, ..., theta_J].

    Notes
    -----
    dK/dlog beta_j = beta_j K_j and dK/dtheta_j = beta_j dK_j/dtheta_j, so the
    contractions are beta_j <K_j, M> and beta_j times term j's own: O(m^2) per weight
    plus each term's cost.
    """

    def __init__(self, families):
        self.families = list(families)
        if not self.families:
            raise ValueError("a sum of kernels needs at least one term")
        J = len(self.families)
        self.n_params = J + sum(f.n_params for f in self.families)
        self.names = [f"log_weight[{j}]" for j in range(J)] + [
            f"{j}.{n}" for j, f in enumerate(self.families) for n in f.names]
        self.X = self.families[0].X

    def _split(self, theta):
        J = len(self.families)
        out, i = [], J
        for f in self.families:
            out.append(theta[i:i + f.n_params])
            i += f.n_params
        return np.exp(theta[:J]), out

    def start(self):
        """Equal weights 1/J, each term at its own start."""
        J = len(self.families)
        return np.concatenate([np.full(J, -np.log(J))] + [f.start() for f in self.families])

    def evaluate(self, theta):
        beta, parts = self._split(theta)
        K, states = None, []
        for b, f, t in zip(beta, self.families, parts):
            Kj, sj = f.evaluate(t)
            states.append((Kj, sj))
            K = b * Kj if K is None else K + b * Kj
        return K, states

    def contract(self, theta, state, M):
        beta, parts = self._split(theta)
        head = [b * np.vdot(Kj, M) for b, (Kj, _) in zip(beta, state)]
        tail = [b * f.contract(t, sj, M)
                for b, f, t, (_, sj) in zip(beta, self.families, parts, state)]
        return np.concatenate([np.array(head)] + tail)

    def derivatives(self, theta):
        beta, parts = self._split(theta)
        head = [b * f.evaluate(t)[0] for b, f, t in zip(beta, self.families, parts)]
        tail = [b * D for b, f, t in zip(beta, self.families, parts)
                for D in f.derivatives(t)]
        return head + tail

    def params(self, theta):
        beta, parts = self._split(theta)
        return {"weights": beta.tolist(),
                "terms": [f.params(t) for f, t in zip(self.families, parts)]}

    def cross(self, theta, X):
        beta, parts = self._split(theta)
        return sum(b * f.cross(t, X) for b, f, t in zip(beta, self.families, parts))
