"""Pairwise (Kronecker) RLS as a scikit-learn regressor.

Input format
------------
The objects of the two domains are given once, at construction: ``X1`` (n1 objects,
e.g. drugs) and ``X2`` (n2 objects, e.g. targets), as feature matrices or, with
``kernel="precomputed"``, as the n1 x n1 and n2 x n2 kernel matrices over *all*
objects (training and test). The samples of ``fit``, ``predict`` and ``score`` are
pairs: ``X`` is an integer array of shape (n_pairs, 2) whose row ``(i, j)`` is the pair
(object ``X1[i]``, object ``X2[j]``), and ``y`` holds one label per pair.

Because a sample is just two indices, every scikit-learn tool that splits samples
works: ``cross_val_score`` / ``KFold`` gives setting A (new pairs of known objects),
``GroupKFold(groups=X[:, 0])`` setting B (new domain-1 objects), ``groups=X[:, 1]``
setting C, and ``GridSearchCV`` tunes ``alpha``. Training uses only the objects that
occur in the training pairs; prediction computes kernels between the test objects and
those.
"""


import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from rlscore._validation import NOT_GIVEN, check_square_kernel, miscoverage_argument
from rlscore.core.kronecker import INTERVAL_SETTINGS, KronRLSModel
from rlscore.core.kronecker import SampledKronRLSModel, SampledKronRLSOptions
from rlscore.core.hyper import (LearnableKernel, kron_setting_criterion, learn_kron_kernel,
                                similarity_features)
from rlscore.estimators._base import (DEGREE_DOC, check_alpha,
                                      check_iteration_params, clear_fitted, kernel_params,
                                      learning_degree, reports_progress, resolve_kernel,
                                      store_params, verbose_doc)
from rlscore.estimators._pairs import PairsRegressorMixin
from rlscore.kernel import KERNELS

__all__ = ["PairwiseRLS", "PairDomainsMixin"]


def _positions(objects, trained):
    """For each object index in ``objects``: its position in ``trained`` (sorted
    unique indices), or -1. O((u + n) log n)."""
    pos = np.searchsorted(trained, objects)
    pos = np.minimum(pos, trained.size - 1)
    return np.where(trained[pos] == objects, pos, -1)


def _symmetric(K, name):
    """A precomputed kernel matrix of all objects, checked symmetric and made exactly
    so. O(n^2)."""
    K = check_square_kernel(K, name)
    return K if np.array_equal(K, K.T) else 0.5 * (K + K.T)


class PairDomainsMixin:
    """The two domains of the pair estimators (:class:`PairwiseRLS`,
    :class:`PairwiseRLSCV`, :class:`PairwiseSVM`): the objects ``X1`` / ``X2`` given
    at construction, the kernel blocks between objects named by index, and the
    predictions of the core model for index pairs (``_linear``: the model holds a
    primal d1 x d2 weight matrix)."""

    # -- parameters ---------------------------------------------------------------------
    def _objects(self):
        from rlscore._validation import as_data_matrix
        if self.X1 is None:
            raise ValueError(f"{type(self).__name__} needs the objects X1 (and X2) at "
                             f"construction")
        X1 = as_data_matrix(self.X1, name="X1")
        X2 = X1 if self.X2 is None else as_data_matrix(self.X2, name="X2")
        name = resolve_kernel(self.kernel)
        if name == "PrecomputedKernel":
            for X, nm in ((X1, "X1"), (X2, "X2")):
                if X.shape[0] != X.shape[1]:
                    raise ValueError(f"with kernel='precomputed', {nm} must be the square "
                                     f"kernel matrix of all objects, got {X.shape}")
            # the learners' rule for a kernel matrix (symmetric within 1e-8 relative,
            # else a ValueError); the rounding-level asymmetry left is averaged out of
            # the whole matrix, so training and test kernels come from one matrix
            X1 = _symmetric(X1, "X1")
            X2 = X1 if self.X2 is None else _symmetric(X2, "X2")
        return name, X1, X2

    def _learns(self):
        return isinstance(self.gamma, str) and self.gamma == "learn"

    def _kernel_params(self, name, d, side=0):
        if name == "LinearKernel":
            return {"bias": 0.0}
        learned = getattr(self, "_learned_params", None)
        if self._learns() and learned is not None:
            return {k: v for k, v in learned[side].items()}
        if isinstance(self.gamma, str):
            raise ValueError(f"gamma must be a number > 0, None or 'learn', got "
                             f"{self.gamma!r}")
        return kernel_params(name, d, self.gamma, self.degree, self.coef0)

    def _domain_data(self, name, X, rows, cols=None, side=0):
        """Kernel rows x cols (objects given by index), or the features of ``rows``
        (``side``: the domain, for learned parameters)."""
        Xr = X[rows]
        if name == "PrecomputedKernel":
            return np.asarray(X[np.ix_(rows, cols)] if not hasattr(X, "tocsr")
                              else X.tocsr()[rows][:, cols].toarray())
        if name == "LinearKernel":
            return Xr
        kern = KERNELS[name](X=X[cols], **self._kernel_params(name, X.shape[1], side))
        return kern.getKM(Xr)

    def _kernel_blocks(self, name, X1, X2, t1, t2, o1=None, o2=None):
        """Dense kernels between the objects t1 (t2) and the training objects o1 (o2;
        default ``objects1_`` / ``objects2_``), the linear kernel as feature products.
        O(u n d)."""
        o1 = self.objects1_ if o1 is None else o1
        o2 = self.objects2_ if o2 is None else o2

        def block(X, t, o, side):
            D = self._domain_data(name, X, t, o, side=side) if name != "LinearKernel" \
                else X[t] @ X[o].T
            return np.asarray(D.toarray() if hasattr(D, "toarray") else D)
        D1 = block(X1, t1, o1, 0)
        return D1, (D1 if self.X2 is None else block(X2, t2, o2, 1))

    def _predict_pairs(self, X):
        name, X1, X2 = self._objects()
        t1, t2, i, j = self._test_pairs(X, X1.shape[0], X2.shape[0])
        if self._linear:
            D1, D2 = X1[t1], X2[t2]
            if hasattr(D1, "toarray"):
                D1, D2 = D1.toarray(), D2.toarray()
        else:
            D1, D2 = self._kernel_blocks(name, X1, X2, t1, t2)
            if getattr(self.model_, "repairs", None) is not None:
                # the repaired kernel's rule needs each test object's identity: its
                # position among the training objects, -1 for a new one
                own = (_positions(t1, self.objects1_), _positions(t2, self.objects2_))
                return np.asarray(self.model_.predict(D1, D2, i, j, objects=own),
                                  dtype=np.float64)
        return np.asarray(self.model_.predict(D1, D2, i, j), dtype=np.float64)

    def predict_matrix(self, objects1=None, objects2=None):
        """Predictions for every pair of the given objects as a matrix.

        Parameters
        ----------
        objects1, objects2 : index arrays into X1 and X2 (default: every object)

        Returns
        -------
        ndarray of shape (len(objects1), len(objects2)); entry (a, b) is the
        prediction for the pair (objects1[a], objects2[b]). O(n1 n2 (n1 + n2)) plus
        the test kernels.
        """
        check_is_fitted(self, "model_")
        _, X1, X2 = self._objects()
        o1 = np.arange(X1.shape[0]) if objects1 is None else np.asarray(objects1)
        o2 = np.arange(X2.shape[0]) if objects2 is None else np.asarray(objects2)
        if o1.ndim != 1 or o2.ndim != 1 or o1.size == 0 or o2.size == 0:
            raise ValueError("objects1 and objects2 must be non-empty 1-D index arrays")
        pairs = np.column_stack([np.repeat(o1, o2.size), np.tile(o2, o1.size)])
        return self.predict(pairs).reshape((o1.size, o2.size))


class PairwiseRLS(PairDomainsMixin, PairsRegressorMixin, RegressorMixin, BaseEstimator):
    __doc__ = f"""Kronecker-kernel regularized least squares on pairs of objects (dyadic data:
    drug-target affinities, interactions, user-item ratings, game outcomes).

    The pairwise kernel of the pairs (a, b) and (c, d) is k1(a, c) * k2(b, d). When
    the training pairs form a complete grid of their objects the model is trained in
    closed form (:class:`rlscore.core.kronecker.KronRLSModel`, the model behind
    :class:`rlscore.learner.KronRLS`); otherwise, or with repeated pairs, by MINRES with
    the generalized vec trick (:class:`rlscore.core.kronecker.SampledKronRLSModel`,
    behind :class:`rlscore.learner.CGKronRLS`).

    Parameters
    ----------
    X1 : array-like of shape (n1, d1), or (n1, n1) with ``kernel="precomputed"``
        All objects of domain 1 (training and test); pairs refer to them by row.
    X2 : array-like of shape (n2, d2) or (n2, n2), default=None
        All objects of domain 2. None means one domain: both elements of a pair index
        ``X1`` (required for the symmetric and reciprocal pairwise kernels).
    alpha : float >= 0, default=1.0
        Regularization parameter (RLScore's ``regparam``). 0 is allowed with the
        iterative solver and ``max_iter`` (early stopping regularizes).
    kernel : {{"linear", "rbf", "poly", "precomputed"}}, default="linear"
        Kernel of both domains: linear <x, z> (the primal d1 x d2 weight matrix is
        learned), rbf exp(-gamma ||x - z||^2), poly (gamma <x, z> + coef0)^degree, or
        precomputed kernel matrices in ``X1`` / ``X2``.
    gamma : float > 0, None or "learn", default=None
        rbf / poly parameter; None means 1 / n_features of each domain. ``"learn"``
        learns one gamma per domain (poly: and each domain's coef0 > 0) together with
        alpha by minimizing the exact in-sample leave-one-pair-out squared error with
        its gradient (:func:`rlscore.core.hyper.learn_kron_kernel`): the training
        pairs must form a complete grid (the closed-form solver), with two domains,
        the Kronecker pairwise kernel and the squared loss; ``alpha`` is then only
        ignored (the learned one is ``alpha_``). With ``kernel="precomputed"``
        ``X1`` / ``X2`` are similarity matrices S and each domain's learned kernel is
        the Gaussian of the similarity-induced distance,
        exp(-gamma (S_ii + S_jj - 2 S_ij)), one gamma per domain
        (:func:`rlscore.core.hyper.similarity_features`: features phi with
        phi phi^T = S, negative eigenvalues clipped; one O(n^3) eigendecomposition
        of each matrix of all objects). The criterion scores new pairs of
        known objects (setting A); for new drugs or targets it is optimistic.
    ard : bool, default=False
        With ``gamma="learn"`` and the rbf kernel: one gamma per feature of each
        domain.
    criterion : {"loo", "evidence", "drugs", "targets", "both"}, default="loo"
        With ``gamma="learn"``: the criterion minimized, the in-sample
        leave-one-pair-out squared error (new pairs of known objects), the
        Gaussian-process evidence (negative
        log marginal likelihood per pair with the covariance K2 kron K1, amplitude
        profiled out; :func:`rlscore.core.hyper.kron_evidence_gradient`), or the
        exact hold-out error for new objects with its gradient: leave-one-drug-out
        (``"drugs"`` / ``"rows"``), leave-one-target-out (``"targets"`` /
        ``"columns"``), or both new (``"both"``: one drug and one target per block,
        small data only; ``rlscore.core.hyper.KronHoldoutCriterion("both",
        n_folds=k)`` for k folds of each domain). See
        :func:`rlscore.core.hyper.learn_kron_kernel`.
{DEGREE_DOC}    coef0 : float, default=1
    pairwise_kernel : {{"kronecker", "symmetric", "reciprocal"}}, default="kronecker"
        For one domain (``X2=None``): the symmetric kernel
        1/2 [k(a,c) k(b,d) + k(a,d) k(b,c)] for symmetric relations, or the
        reciprocal one (minus sign) for antisymmetric ones (y(a, b) = -y(b, a)).
    loss : {{"squared", "conditional_ranking"}}, default="squared"
        "conditional_ranking" treats the pairs that share their first object as a
        query and fits the per-query centred squared loss (rank the second objects
        for each first object); predictions are then meaningful up to a per-query
        constant.
    solver : {{"auto", "closed_form", "iterative"}}, default="auto"
        "closed_form" needs a complete grid of training pairs (each pair once).
    max_iter : int or None, default=None
        Iteration limit of the iterative solver.
    tol : float, default=1e-10
        Relative residual at which the iterative solver stops (a
        ``ConvergenceWarning`` when ``max_iter`` stops it first, unless alpha=0).
    indefinite : {{"raise", "clip", "shift"}}, default="raise"
        Precomputed similarity matrices with negative eigenvalues: refuse an alpha
        that leaves the pairwise system indefinite (the message gives the smallest
        eigenvalue and the smallest alpha that works), or repair each domain's kernel
        with a warning ("clip": negative eigenvalues set to 0; "shift":
        abs(smallest eigenvalue) I added). The model keeps the repair and applies it
        to the test kernels ("shift": a training object's similarity with itself;
        "clip": each test row projected as the training kernel was), so predictions
        for training pairs are the model's fitted values. See
        :mod:`rlscore.core.kronecker`. A precomputed ``X1`` / ``X2`` must be
        symmetric (ValueError otherwise, as in the learners).
{verbose_doc("eigendecompositions or MINRES iterations")}

    Attributes
    ----------
    model_ : KronRLSModel or SampledKronRLSModel (rlscore.core)
        The trained core Kronecker model (on the training objects, re-indexed).
    objects1_, objects2_ : ndarray of int
        Indices (into X1 and X2) of the objects seen in training, in the order the
        model uses them.
    solver_ : "closed_form" or "iterative", the solver used
    n_iter_ : int or None, iterations of the iterative solver
    coef_ : ndarray of shape (d1, d2), linear kernel: the prediction of a pair is
        ``X1[i] @ coef_ @ X2[j]``
    dual_coef_ : ndarray, other kernels: coefficients of the training pairs
        (n1_train x n2_train for the closed form, one per training pair otherwise)
    n_features_in_ : 2
    alpha_ : float
        With ``gamma="learn"``: the learned alpha.
    gamma1_, gamma2_ : float or ndarray
        With ``gamma="learn"``: the learned gamma of each domain (per feature with
        ``ard=True``).
    coef0_1_, coef0_2_ : float
        With ``gamma="learn"`` and the poly kernel: the learned coef0 of each domain.
    learning_history_ : list of dict
        With ``gamma="learn"``: per optimizer step its ``criterion`` (the
        leave-one-pair-out mean squared error, or the evidence per pair),
        ``grad_norm``, ``regparam`` and
        ``kernel_params1`` / ``kernel_params2``.

    Notes
    -----
    Closed form: O(n1^3 + n2^3 + n1 n2 (n1 + n2)) with n1, n2 training objects.
    Iterative: O(q (n1 + n2)) per iteration for q training pairs (kernels), or
    O(q (d1 + d2) + n d1 d2) (linear). Kernel matrices between training objects cost
    O(n^2 d). ``predict`` for u pairs: O(u (n1 + n2)) plus the test kernels. With
    ``gamma="learn"``: per optimizer step the two kernels, their eigendecompositions
    and O(n1^3 n2 + n1 n2^3) for the gradient.

    Examples
    --------
    >>> import numpy as np
    >>> from rlscore.estimators import PairwiseRLS
    >>> rng = np.random.default_rng(0)
    >>> drugs, targets = rng.normal(size=(8, 3)), rng.normal(size=(6, 4))
    >>> pairs = np.array([(i, j) for j in range(6) for i in range(8)])
    >>> y = np.sin(drugs[pairs[:, 0], 0]) * targets[pairs[:, 1], 1]
    >>> model = PairwiseRLS(drugs, targets, alpha=0.1, kernel="rbf").fit(pairs, y)
    >>> model.predict(pairs[:3]).shape
    (3,)
    """

    def __init__(self, X1=None, X2=None, *, alpha=1.0, kernel="linear", gamma=None,
                 degree=None, coef0=1, pairwise_kernel="kronecker", loss="squared",
                 solver="auto", max_iter=None, tol=1e-10, indefinite="raise",
                 ard=False, criterion="loo", verbose=False):
        store_params(self, locals())

    def _objects(self):
        name, X1, X2 = super()._objects()
        if name != "PrecomputedKernel" or not self._learns():
            return name, X1, X2
        # gamma='learn' on similarity matrices: the Gaussian of the similarity-induced
        # distance, through features phi phi^T = S of all objects (one eigh per matrix,
        # kept while the matrices given are the same objects)
        key = (id(self.X1), id(self.X2))
        cached = getattr(self, "_similarity_features", None)
        if cached is None or cached[0] != key:
            F1 = similarity_features(np.asarray(X1.toarray() if hasattr(X1, "toarray")
                                                else X1), "X1")
            F2 = F1 if self.X2 is None else similarity_features(
                np.asarray(X2.toarray() if hasattr(X2, "toarray") else X2), "X2")
            cached = self._similarity_features = (key, F1, F2)
        return "GaussianKernel", cached[1], cached[2]

    def _check_learning(self, name, complete):
        if not isinstance(self.ard, (bool, np.bool_)):
            raise TypeError(f"ard must be True or False, got {self.ard!r}")
        if kron_setting_criterion(self.criterion) is None and \
                self.criterion not in ("loo", "evidence"):
            raise ValueError(f"criterion must be 'loo', 'evidence', 'drugs', 'targets' "
                             f"or 'both' (or a KronHoldoutCriterion), got "
                             f"{self.criterion!r}")
        if not self._learns():
            if self.ard:
                raise ValueError("ard=True needs gamma='learn'")
            if self.criterion != "loo":
                raise ValueError("criterion applies to gamma='learn'")
            return
        if name not in ("GaussianKernel", "PolynomialKernel"):
            raise ValueError(f"gamma='learn' needs kernel='rbf', 'poly' or "
                             f"'precomputed' (similarity matrices), got "
                             f"kernel={self.kernel!r}")
        if self.ard and resolve_kernel(self.kernel) == "PrecomputedKernel":
            raise ValueError("ard=True needs features (kernel='rbf'), not similarity "
                             "matrices")
        if self.ard and name != "GaussianKernel":
            raise ValueError("ard=True needs kernel='rbf'")
        if self.X2 is None or self.pairwise_kernel != "kronecker" or \
                self.loss != "squared" or self.solver == "iterative":
            raise ValueError("gamma='learn' needs two domains (X2), "
                             "pairwise_kernel='kronecker', loss='squared' and the "
                             "closed-form solver")
        if not complete:
            raise ValueError("gamma='learn' minimizes the in-sample leave-one-pair-out "
                             "error of the closed form: every pair of the training "
                             "objects must be labelled exactly once")

    def _learn(self, name, X1, X2, o1, o2, Y):
        """gamma='learn': the core's gradient search over both domains' parameters and
        alpha; returns the learned alpha."""
        A1, A2 = X1[o1], X2[o2]
        side = LearnableKernel(name, ard=bool(self.ard), **learning_degree(self.degree))
        res = learn_kron_kernel(A1, A2, Y.reshape((o1.size, o2.size), order="F"),
                                side, side, criterion=self.criterion)
        p1, p2 = ({k: v for k, v in p.items()} for p in (res.kernel_params1,
                                                           res.kernel_params2))
        self._learned_params = (p1, p2)
        self.gamma1_, self.gamma2_ = p1["gamma"], p2["gamma"]
        if name == "PolynomialKernel":
            self.coef0_1_, self.coef0_2_ = p1["coef0"], p2["coef0"]
        self.alpha_ = res.regparam
        self.learning_history_ = res.history
        return res.regparam

    def _check_params(self):
        alpha = check_alpha(self.alpha)
        return alpha, self._check_options()

    def _check_options(self):
        """The options other than alpha; returns the solver's tol."""
        if self.pairwise_kernel not in ("kronecker", "symmetric", "reciprocal"):
            raise ValueError(f"pairwise_kernel must be 'kronecker', 'symmetric' or "
                             f"'reciprocal', got {self.pairwise_kernel!r}")
        if self.pairwise_kernel != "kronecker" and self.X2 is not None:
            raise ValueError("the symmetric and reciprocal pairwise kernels need one "
                             "domain: leave X2=None")
        if self.loss not in ("squared", "conditional_ranking"):
            raise ValueError(f"loss must be 'squared' or 'conditional_ranking', got "
                             f"{self.loss!r}")
        if self.solver not in ("auto", "closed_form", "iterative"):
            raise ValueError(f"solver must be 'auto', 'closed_form' or 'iterative', got "
                             f"{self.solver!r}")
        _, tol = check_iteration_params(self)
        return tol

    # -- fit / predict ----------------------------------------------------------------
    @reports_progress
    def fit(self, X, y):
        """Fit on the labelled pairs ``X`` (n_pairs, 2) with labels ``y`` (n_pairs,).

        Returns
        -------
        self
        """
        alpha, tol = self._check_params()
        return self._fit(X, y, alpha, tol)

    def _fit(self, X, y, alpha, tol, closed_form=False):
        """Fit at ``alpha``; ``closed_form``: refuse data that is not a complete grid
        (the CV estimator's hold-outs need the closed form)."""
        self._learned_params = None
        clear_fitted(self, "alpha_", "gamma1_", "gamma2_", "coef0_1_", "coef0_2_",
                     "learning_history_")
        name, X1, X2 = self._objects()
        one = self._one_domain = self.X2 is None
        y, o1, o2, r, c = self._training_pairs(X, y, X1.shape[0], X2.shape[0])
        n1, n2 = o1.size, o2.size
        lin = r.astype(np.int64) + n1 * c.astype(np.int64)
        complete = lin.size == n1 * n2 and np.unique(lin).size == lin.size
        use_closed = self.solver == "closed_form" or (self.solver == "auto" and complete
                                                      and (self.loss == "squared" or
                                                           self.pairwise_kernel == "kronecker"))
        if closed_form and not complete:
            raise ValueError(f"{type(self).__name__} needs every pair of the training "
                             f"objects labelled exactly once (complete data: the exact "
                             f"hold-outs of the closed form); for sampled pairs use "
                             f"GridSearchCV(PairwiseRLS(...))")
        if use_closed and not complete:
            raise ValueError("solver='closed_form' needs every pair of the training objects "
                             "labelled exactly once; use solver='iterative'")
        if use_closed and self.loss == "conditional_ranking" and \
                self.pairwise_kernel != "kronecker":
            raise ValueError("conditional ranking with a symmetric / reciprocal kernel has "
                             "no closed form; use solver='iterative'")
        self._check_learning(name, complete)
        if self._learns():
            Yc = np.empty(n1 * n2)
            Yc[lin] = y
            alpha = self._learn(name, X1, X2, o1, o2, Yc)
        linear = name == "LinearKernel"
        D1 = self._domain_data(name, X1, o1, o1)
        D2 = D1 if one else self._domain_data(name, X2, o2, o2, side=1)
        if not linear:
            D1 = 0.5 * (D1 + D1.T)
            D2 = D1 if one else 0.5 * (D2 + D2.T)
        data = ({"X1": D1, "X2": D2} if linear else {"K1": D1, "K2": D2})
        if use_closed:
            Y = np.empty(n1 * n2)
            Y[lin] = y
            model = KronRLSModel(Y=Y, regparam=alpha, pairwise_kernel=self.pairwise_kernel,
                            indefinite=self.indefinite, **data)
            if self.loss == "conditional_ranking":
                model.solve_conditional_ranking(alpha)
            self.solver_ = "closed_form"
            self.n_iter_ = None
        else:
            if linear and self.pairwise_kernel != "kronecker":
                G = D1 @ D1.T if not hasattr(D1, "toarray") else (D1 @ D1.T).toarray()
                data = {"K1": np.asarray(G), "K2": np.asarray(G)}
            if alpha == 0 and self.max_iter is None:
                raise ValueError("alpha=0 with the iterative solver needs max_iter (early "
                                 "stopping); the unregularized system may be singular")
            model = SampledKronRLSModel(
                Y=y, label_row_inds=r, label_col_inds=c,
                **({"features": (data["X1"], data["X2"])} if "X1" in data
                   else {"kernels": (data["K1"], data["K2"])}), regparam=alpha,
                options=SampledKronRLSOptions(
                    self.max_iter, tol,
                    conditional_ranking=self.loss == "conditional_ranking",
                    pairwise_kernel=self.pairwise_kernel, indefinite=self.indefinite))
            self.solver_ = "iterative"
            self.n_iter_ = model.iterations
        self._fitted_objects(model, o1, o2)
        self._pair_index = lin
        self._linear = linear and not (self.solver_ == "iterative"
                                       and self.pairwise_kernel != "kronecker")
        self._coef_shape = (D1.shape[1], D2.shape[1])
        self._set_fitted_attributes()
        return self

    _INTERVAL_BY = INTERVAL_SETTINGS

    def _interval_by(self, by):
        return "pairs" if by is None else by

    def predict_interval(self, X, miscoverage=0.1, method="jackknife+", *, by=None,
                         n_folds=None, alpha=NOT_GIVEN):
        """Distribution-free prediction intervals for pairs (jackknife+, CV+ and
        variants of Barber et al., Ann. Statist. 2021) from the exact hold-out models
        of the closed form: no refitting.

        Parameters
        ----------
        X : array of int, shape (n_pairs, 2)
            Test pairs, as for ``predict``.
        miscoverage : float in (0, 1), default=0.1
            Miscoverage rate: 0.1 gives 90% intervals.
        method : {"jackknife+", "jackknife", "jackknife-minmax", "cv+", "cv", \
"cv-minmax"}, default="jackknife+"
        by : {"pairs", "drugs", "rows", "targets", "columns", "both"} or None
            What the hold-out models leave out, i.e. what the test pairs are new in.
            ``"pairs"`` (setting A): the leave-one-pair-out models (the jackknife
            methods), or with ``n_folds`` the models without each of ``KFold(n_folds)``'s
            folds of the training pairs (CV+); the interval for a new pair of known
            objects. ``"drugs"`` /
            ``"rows"`` (B): the models trained without whole domain-1 objects --
            one per object (a jackknife method name), or ``n_folds`` folds of
            objects (``GroupKFold``, the cv methods); the interval a chemist wants
            for a new compound. ``"targets"`` / ``"columns"`` (C) likewise.
            ``"both"`` (D): a new drug with a new target, one model per block of a
            drug fold and a target fold trained without both (``n_folds`` folds of
            each domain; None: one drug and one target per block, n1 n2 models --
            small data only). None: ``"pairs"`` (:class:`PairwiseRLSCV`: its ``cv``
            setting).
        n_folds : int >= 2 or None
            Folds of pairs, of objects for ``by="drugs"`` / ``"targets"``, or of
            each domain for ``by="both"`` (None: one per pair / object).
        alpha : float in (0, 1)
            Deprecated alias of ``miscoverage`` (a FutureWarning; removed in the next
            release): ``alpha`` is the regularization in the constructor.

        Returns
        -------
        y_pred, lower, upper : ndarrays of shape (n_pairs,)
            The model's predictions and the interval bounds (infinite when
            miscoverage < 1 / (n_train_pairs + 1)).

        Notes
        -----
        Needs the closed form (complete training grid), the Kronecker pairwise
        kernel and the squared loss. With ``n_folds`` for pairs or ``by="both"`` the
        method is the cv counterpart of the name given (one model per fold or block;
        ``rlscore.core.kronecker.kron_both_fold_models``: one decomposition per
        fold of each domain and O(n1 n2 (n1 + n2)) per block). Two
        eigendecompositions, O(n1^3 + n2^3), then:
        by pairs O(n1 n2 (n1 + n2)) per test pair (the m leave-one-out models at
        the pair); by drugs, per fold of r drugs O(n2 n1^2 r + n2 r^3) and
        O(u1 n1 n2) for u1 test drugs (targets: the transposed costs); O(u m) for
        the order statistics of u test pairs and m training pairs.
        """
        from rlscore.core.kronecker import IntervalScheme, kron_interval_model
        check_is_fitted(self, "model_")
        alpha = miscoverage_argument(miscoverage, alpha)
        by = self._interval_by(by)
        if not isinstance(by, str) or by not in self._INTERVAL_BY:
            raise ValueError(f"by must be one of {sorted(self._INTERVAL_BY)}, got {by!r}")
        if self.solver_ != "closed_form" or self.pairwise_kernel != "kronecker" or \
                self.loss != "squared" or getattr(self.model_, "repairs", None) is not None:
            raise ValueError("predict_interval needs the closed form (a complete grid of "
                             "training pairs), the Kronecker pairwise kernel, the squared "
                             "loss and a positive semidefinite kernel (no repair)")
        setting = self._INTERVAL_BY[by]
        folds = None
        name, X1, X2 = self._objects()
        o1, o2 = self.objects1_, self.objects2_
        if n_folds is not None:
            from sklearn.model_selection import GroupKFold, KFold
            sizes = {"pairs": self._pair_index.size, "rows": o1.size, "cols": o2.size,
                     "both": min(o1.size, o2.size)}
            n = sizes[setting]
            if isinstance(n_folds, (bool, np.bool_)) or not isinstance(
                    n_folds, (int, np.integer)) or not 2 <= n_folds <= n:
                raise ValueError(f"n_folds must be an int in [2, {n}], got {n_folds!r}")

            def object_folds(n):
                ids = np.arange(n)
                return [t for _, t in GroupKFold(int(n_folds)).split(ids, groups=ids)]
            if setting == "pairs":         # vec_F positions of KFold's folds of samples
                folds = [self._pair_index[t] for _, t in
                         KFold(int(n_folds)).split(self._pair_index)]
            elif setting == "both":
                folds = (object_folds(o1.size), object_folds(o2.size))
            else:
                folds = object_folds(n)
        t1, t2, i, j = self._test_pairs(X, X1.shape[0], X2.shape[0])
        K1, K2 = self._kernel_blocks(name, X1, X2, o1, o2)
        D1, D2 = self._kernel_blocks(name, X1, X2, t1, t2)
        im, method = kron_interval_model(0.5 * (K1 + K1.T), 0.5 * (K2 + K2.T),
                                         self.model_.Y, self.model_.regparam, D1, D2,
                                         IntervalScheme(setting, folds, method))
        return tuple(np.ascontiguousarray(r[:, 0]) for r in
                     im.predict_interval(np.column_stack([i, j]), alpha, method))

    def _set_fitted_attributes(self):
        """``coef_`` or ``dual_coef_`` of the core model at its current regparam."""
        clear_fitted(self, "coef_", "dual_coef_")
        if self._linear:
            W = self.model_.W
            self.coef_ = W if W.ndim == 2 else W.reshape(self._coef_shape, order="F")
        else:
            self.dual_coef_ = self.model_.A

