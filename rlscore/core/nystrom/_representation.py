"""From (X, kernel, basis vectors) to the algebraic problem a solver works on, and from
the solver's coefficients back to a predictor.

Every kernel learner in rlscore trains in one of two forms:

* primal: a feature matrix Phi (m, d) -- the linear kernel (X with a sqrt(bias) column
  appended) or a reduced-set model, whose Nystrom features are Phi = K_r E diag(nu^-1/2)
  for K_rr = E diag(nu) E^T (Airola et al. 2011, decomposed Nystrom map), so that
  A_B = E diag(nu^-1/2) W solves (K_r^T K_r + lambda K_rr) A_B = K_r^T Y;
* dual: a kernel matrix K (m, m).

:func:`build_representation` decides the form and :meth:`Representation.predictor`
maps the solver's coefficients to a :class:`~rlscore.predictor.LinearPredictor` or
:class:`~rlscore.predictor.KernelPredictor` with RLScore's conventions.
"""

import numpy as np
import scipy.sparse as sp

from rlscore._progress import stage
from rlscore._validation import as_data_matrix, check_bias, check_peak_memory
from rlscore.kernel import (KERNELS, canonical_kernel_name, kernel_block,
                            kernel_parameter_names)
from rlscore.predictor import KernelPredictor, LinearPredictor

__all__ = ["Representation", "build_representation", "kernel_param_names",
           "basis_kernel", "NystromFeatureMap", "nystrom_features"]

_EPS = np.finfo(np.float64).eps


def kernel_param_names(kernel):
    """Keyword names a learner forwards to the kernel ``kernel``."""
    kernel = canonical_kernel_name(kernel)
    if kernel == "PrecomputedKernel":
        return []
    return kernel_parameter_names(kernel)


def _append_bias(X, bias):
    """X with the constant column sqrt(bias) appended (bias != 0)."""
    m = X.shape[0]
    col = np.full((m, 1), np.sqrt(bias))
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(col)], format="csr")
    return np.hstack([X, col])


def _dense_product(A, B):
    out = A @ B.T
    return np.ascontiguousarray(out.toarray() if sp.issparse(out) else out, dtype=np.float64)


def _check_kernel_matrix(K, name, square=True):
    K = as_data_matrix(K, name=name)
    if sp.issparse(K):
        K = K.toarray()
    K = np.ascontiguousarray(K, dtype=np.float64)
    if square:
        if K.shape[0] != K.shape[1]:
            raise ValueError(f"{name} must be a square kernel matrix, got shape {K.shape}")
        scale = max(np.abs(K).max(), 1e-300)
        if np.abs(K - K.T).max() > 1e-8 * scale:
            raise ValueError(f"{name} must be a symmetric kernel matrix")
        K = 0.5 * (K + K.T)
    return K


def nystrom_features(K_r, K_rr):
    """Decomposed Nystrom map Phi = K_r C^{-T} (C C^T = K_rr) and the back map
    T = C^{-T} (A_B = T W), through :class:`rlscore.core.nystrom.NystromMap`.

    A K_rr that is not positive definite is factored by pivoted Cholesky, with a
    warning stating the effective rank. O(b^3/3 + m b^2).
    """
    from rlscore.core.nystrom._nystrom import NystromMap
    nmap = NystromMap(K_r, K_rr)
    return nmap.Phi, nmap.back_matrix(), nmap


def basis_kernel(kernel, B, kernel_params):
    """(kernel object on the basis B, the predictor's kernel object or None for the
    linear kernel, bias or None, B with the sqrt(bias) column or None) of a
    reduced-set map (:class:`NystromFeatureMap`,
    :class:`rlscore.core.nystrom.NystromFactors`)."""
    kernel = canonical_kernel_name(kernel)
    if kernel not in KERNELS or kernel == "RsetKernel":
        raise ValueError(f"a reduced-set map needs one of "
                         f"{sorted(set(KERNELS) - {'RsetKernel'})}, got kernel={kernel!r}")
    if kernel == "LinearKernel":
        bias = check_bias(kernel_params.get("bias", 1.0))
        Ba = _append_bias(B, bias) if bias != 0 else B
        # k(x, b) = <x, b> + bias, evaluated by the blocked kernel products
        return KERNELS[kernel](X=B, bias=bias), None, bias, Ba
    kobj = KERNELS[kernel](X=B, **kernel_params)
    return kobj, kobj, None, None


class NystromFeatureMap:
    """The feature map of a reduced-set (Nystrom) model, usable on any block of rows:
    ``features(X)`` gives the rows of Phi for the rows of X, ``predictor(W)`` the
    predictor of the weights W. Built once from the basis vectors, then applied
    block by block (e.g. per partition of a distributed data set, see
    :mod:`rlscore.distributed`); picklable.

    Parameters
    ----------
    kernel : "LinearKernel", "GaussianKernel", "PolynomialKernel" (not precomputed)
    basis_vectors : (b, d) basis rows
    kernel_params : the kernel's parameters (``bias`` for the linear kernel, default 1)

    Attributes
    ----------
    T : ndarray (b, r), the back map C^{-T} of :class:`rlscore.core.nystrom.NystromMap`
        (zero rows for dependent basis vectors); r = b unless K_rr is singular
    n_features : r
    predictor_map : callable W -> predictor

    Notes
    -----
    Construction O(b^2 d + b^3); ``features`` O(m b d + m b r) for m rows.
    """

    def __init__(self, kernel, basis_vectors, **kernel_params):
        B = as_data_matrix(basis_vectors, name="basis_vectors")
        self.n_basis, self.dim = B.shape
        self.kernel, self._kobj, self.bias, self._Ba = basis_kernel(kernel, B,
                                                                    kernel_params)
        K_rr = kernel_block(self.kernel, self.kernel.train_X)
        from rlscore.core.nystrom._nystrom import NystromMap
        self.nmap = NystromMap(K_rr, K_rr)
        self.T = self.nmap.back_matrix()
        self.n_features = self.T.shape[1]
        if self._kobj is None:
            self.predictor_map = _PredictorMap(transform=np.asarray(self._Ba.T @ self.T),
                                               bias=self.bias)
        else:
            self.predictor_map = _PredictorMap(transform=self.T, kernel=self._kobj)

    def kernel_rows(self, X, out=None):
        """K(X, basis) (m, b) (:func:`rlscore.kernel.kernel_block`; ``out`` a reused
        (m, b) buffer)."""
        return kernel_block(self.kernel, X, out=out)

    def features(self, X):
        """The Nystrom features Phi (m, r) = K(X, basis) T of the rows of X.
        O(m b (d + r)), memory O(m (b + r)): call it on blocks of rows."""
        if X.shape[1] != self.dim:
            raise ValueError(f"basis_vectors has {self.dim} features but X has "
                             f"{X.shape[1]}")
        return np.ascontiguousarray(self.kernel_rows(X) @ self.T)

    def predictor(self, W):
        """Predictor of the weights W (r,) or (r, p) of the features."""
        return self.predictor_map(W)


class Representation:
    """The problem a learner hands to a solver, and the way back to a predictor.

    Attributes
    ----------
    kind : "primal" or "dual"
    matrix : Phi (m, d) for primal, K (m, m) for dual
    """

    def __init__(self, kind, matrix, make_predictor, describe, nystrom=None,
                 basis_indices=None):
        self.kind = kind
        self.matrix = matrix
        self._make_predictor = make_predictor
        self.describe = describe
        # reduced-set models: the NystromMap, and the basis indices into X when known
        self.nystrom = nystrom
        self.basis_indices = basis_indices

    @property
    def m(self):
        return self.matrix.shape[0]

    def predictor(self, coef):
        """Predictor for the solver's coefficients (W for primal, A for dual)."""
        return self._make_predictor(coef)


def _linear_predictor_from_aug(W_aug, bias):
    if bias != 0:
        return LinearPredictor(W_aug[:-1], np.sqrt(bias) * W_aug[-1])
    return LinearPredictor(W_aug, 0.0)


class _PredictorMap:
    """coef -> predictor: optionally map the coefficients by ``transform`` (the Nystrom
    back map, or X_aug^T for a linear dual), then build a KernelPredictor on ``kernel``,
    a LinearPredictor splitting off the sqrt(bias) weight, or a plain LinearPredictor.
    A class rather than a closure so that trained models pickle."""

    def __init__(self, transform=None, bias=None, kernel=None):
        self.transform = transform
        self.bias = bias
        self.kernel = kernel

    def __call__(self, coef):
        if self.transform is not None:
            coef = np.asarray(self.transform @ coef)
        if self.kernel is not None:
            return KernelPredictor(coef, self.kernel)
        if self.bias is not None:
            return _linear_predictor_from_aug(coef, self.bias)
        return LinearPredictor(coef, 0.0)


def build_representation(X, kernel="LinearKernel", basis_vectors=None, m=None,
                         prefer="auto", basis_indices=None, n_basis=None,
                         random_state=None, **kernel_params):
    """Decide the primal or dual form of a kernel learner's problem.

    Parameters
    ----------
    X : data (m, d), or the kernel matrix when ``kernel="PrecomputedKernel"`` (m x m, or
        m x b training-versus-basis with ``basis_vectors`` = the b x b basis kernel).
    kernel : "LinearKernel", "GaussianKernel", "PolynomialKernel", "RsetKernel",
        "PrecomputedKernel" (alias "precomputed"), or a structured-input kernel ("AllPathsGraphKernel",
        "ContextWeightedBowKernel"; X is then a list of graphs or documents).
    basis_vectors : basis rows (reduced-set model), or the basis kernel matrix; for a
        structured-input kernel a list of basis graphs or documents.
    basis_indices : indices of the basis vectors among the rows of X (with a
        precomputed kernel, X is then the m x m kernel and the predictor takes the
        test-versus-training kernel); or
    n_basis, random_state : that many basis indices drawn uniformly without
        replacement. Either makes the basis known to cross-validation (basis removal).
    prefer : "auto" (primal for the linear kernel when d + 1 <= m), "primal" or "dual".
    kernel_params : the kernel's parameters (bias, gamma, coef0, degree, ...).

    Returns
    -------
    Representation

    Notes
    -----
    Reported as the stage "kernel matrix" (:mod:`rlscore._progress`).
    """
    kernel = canonical_kernel_name(kernel)
    with stage("kernel matrix") as report:
        rep = _build(X, kernel, basis_vectors, prefer, basis_indices, n_basis,
                     random_state, kernel_params)
        shape = getattr(rep.matrix, "shape", ())
        report.close(f"{rep.kind} form ({rep.describe}"
                     + (f", {shape[0]} x {shape[1]}" if len(shape) == 2 else "") + ")")
    return rep


def _build(X, kernel, basis_vectors, prefer, basis_indices, n_basis, random_state,
           kernel_params):
    if kernel != "PrecomputedKernel" and kernel not in KERNELS:
        raise ValueError(
            f"unknown kernel {kernel!r}; choose one of "
            f"{sorted(KERNELS) + ['PrecomputedKernel']}")

    if basis_indices is not None or n_basis is not None:
        if basis_vectors is not None:
            raise ValueError("give basis_vectors or basis_indices/n_basis, not both")
        return _indexed_basis(X, kernel, basis_indices, n_basis, random_state,
                              kernel_params)

    if kernel == "PrecomputedKernel":
        if basis_vectors is None:
            K = _check_kernel_matrix(X, "X (precomputed kernel)")
            return Representation("dual", K, _PredictorMap(), "precomputed kernel")
        K_r = _check_kernel_matrix(X, "X (precomputed kernel, rows x basis)", square=False)
        K_rr = _check_kernel_matrix(basis_vectors, "basis_vectors (basis kernel)")
        if K_r.shape[1] != K_rr.shape[0]:
            raise ValueError(
                f"X has {K_r.shape[1]} columns but basis_vectors is {K_rr.shape[0]} x "
                f"{K_rr.shape[1]}: they must match")
        Phi, T, nmap = nystrom_features(K_r, K_rr)
        return Representation("primal", Phi, _PredictorMap(transform=T),
                              "precomputed reduced-set kernel", nystrom=nmap)

    if kernel == "RsetKernel":
        kobj = KERNELS[kernel](X=X, **kernel_params)
        n = kobj.train_X.shape[0]
        check_peak_memory("one_lambda", n, what=f"the {n} x {n} kernel matrix")
        K = kobj.getKM(kobj.train_X)
        return Representation("dual", 0.5 * (K + K.T), _PredictorMap(kernel=kobj),
                              "reduced-set kernel")

    if getattr(KERNELS[kernel], "structured_input", False):
        return _structured_representation(X, kernel, basis_vectors, kernel_params)

    X = as_data_matrix(X, name="X")
    if basis_vectors is not None:
        B = as_data_matrix(basis_vectors, name="basis_vectors")
        if B.shape[1] != X.shape[1]:
            raise ValueError(
                f"basis_vectors has {B.shape[1]} features but X has {X.shape[1]}")
        return _basis_rows_representation(X, B, kernel, kernel_params)

    m_rows = X.shape[0]
    if kernel == "LinearKernel":
        bias = check_bias(kernel_params.get("bias", 1.0))
        Xa = _append_bias(X, bias) if bias != 0 else X
        d = Xa.shape[1]
        if prefer == "primal" or (prefer == "auto" and d <= m_rows):
            return Representation("primal", Xa, _PredictorMap(bias=bias), "linear primal")
        check_peak_memory("one_lambda", m_rows, what=f"the {m_rows} x {m_rows} kernel matrix")
        K = _dense_product(Xa, Xa)
        return Representation("dual", K, _PredictorMap(transform=Xa.T, bias=bias),
                              "linear dual")

    kobj = KERNELS[kernel](X=X, **kernel_params)
    check_peak_memory("one_lambda", m_rows, what=f"the {m_rows} x {m_rows} kernel matrix")
    # K(X, X) from a kernel object is symmetric to rounding; the factorizations read
    # one triangle, so no symmetrizing pass over the m x m matrix is needed
    K = kobj.getKM(X)
    return Representation("dual", K, _PredictorMap(kernel=kobj), kernel)


def _structured_representation(X, kernel, basis_vectors, kernel_params,
                               basis_indices=None):
    """Dual (or, with basis objects, reduced-set primal) form for a kernel whose inputs
    are not vectors: the kernel object receives X and the basis as given."""
    if basis_vectors is not None:
        kobj = KERNELS[kernel](X=basis_vectors, **kernel_params)
        Phi, T, nmap = nystrom_features(kobj.getKM(X), kobj.getKM(basis_vectors))
        return Representation("primal", Phi, _PredictorMap(transform=T, kernel=kobj),
                              f"{kernel} reduced-set", nystrom=nmap,
                              basis_indices=basis_indices)
    kobj = KERNELS[kernel](X=X, **kernel_params)
    m_rows = kobj.train_X.shape[0]
    check_peak_memory("one_lambda", m_rows, what=f"the {m_rows} x {m_rows} kernel matrix")
    K = kobj.getKM(X)
    return Representation("dual", 0.5 * (K + K.T), _PredictorMap(kernel=kobj), kernel)


def _basis_rows_representation(X, B, kernel, kernel_params, basis_indices=None):
    """Reduced-set representation for the basis rows B of a kernel object's data."""
    if kernel == "LinearKernel":
        bias = check_bias(kernel_params.get("bias", 1.0))
        Xa = _append_bias(X, bias) if bias != 0 else X
        Ba = _append_bias(B, bias) if bias != 0 else B
        K_r, K_rr = _dense_product(Xa, Ba), _dense_product(Ba, Ba)
        Phi, T, nmap = nystrom_features(K_r, K_rr)
        return Representation("primal", Phi,
                              _PredictorMap(transform=np.asarray(Ba.T @ T), bias=bias),
                              "linear reduced-set", nystrom=nmap,
                              basis_indices=basis_indices)
    kobj = KERNELS[kernel](X=B, **kernel_params)
    Phi, T, nmap = nystrom_features(kobj.getKM(X), kobj.getKM(B))
    return Representation("primal", Phi, _PredictorMap(transform=T, kernel=kobj),
                          f"{kernel} reduced-set", nystrom=nmap,
                          basis_indices=basis_indices)


def _indexed_basis(X, kernel, basis_indices, n_basis, random_state, kernel_params):
    """Reduced-set representation with the basis given as indices into X (or drawn)."""
    from rlscore.core.nystrom._nystrom import select_basis
    if kernel == "PrecomputedKernel":
        K = _check_kernel_matrix(X, "X (precomputed kernel)")
        idx = select_basis(K.shape[0], basis_indices, n_basis, random_state)
        Phi, T, nmap = nystrom_features(K[:, idx], K[np.ix_(idx, idx)])
        T_full = np.zeros((K.shape[0], T.shape[1]))
        T_full[idx] = T
        return Representation("primal", Phi, _PredictorMap(transform=T_full),
                              "precomputed reduced-set kernel (indexed basis)",
                              nystrom=nmap, basis_indices=idx)
    if kernel == "RsetKernel":
        raise ValueError("basis_indices/n_basis cannot be combined with RsetKernel")
    if getattr(KERNELS[kernel], "structured_input", False):
        idx = select_basis(len(X), basis_indices, n_basis, random_state)
        return _structured_representation(X, kernel, [X[i] for i in idx], kernel_params,
                                          basis_indices=idx)
    X = as_data_matrix(X, name="X")
    idx = select_basis(X.shape[0], basis_indices, n_basis, random_state)
    return _basis_rows_representation(X, X[idx], kernel, kernel_params, basis_indices=idx)
