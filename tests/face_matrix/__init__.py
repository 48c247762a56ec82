"""The face-equivalence matrix (issue 42; tests/test_face_matrix.py until it was split
into this package: ``_common`` holds the data, the brute force and the row check, one
module per family holds its rows): every learner family x every CV kind it
supports x every face that offers it, on the same small data, against brute-force refits
computed here from scratch with numpy.

One row is (family, cv kind, face). Each face's runner returns what the face chose and
estimated: ``(chosen regparam, estimate per grid point, predictions on a held-out test
set)``. The reference of a (family, cv kind) refits on the training rows of every split
by solving the closed form directly (RLS: (K + lam I)^-1 y; RankRLS: (L K + lam I)^-1 L y
with the global Laplacian or the query-centring L; Nystrom: the reduced-set normal equations with
the held-out basis vectors removed, or kept where the face's rule keeps them), scores
the split with the measure written out here, and refits on all rows at the chosen value
for the test predictions. The measure is passed explicitly in every face (their defaults
differ). Closed-form rows are held to rtol 1e-8; RankSVM (no closed form) to the
solvers' tolerance, stated at the row; learned kernel parameters to the gradient
search's tolerance (LEARN_RTOL).

The rows (faces: L learner, E estimator, C command line, G GridSearchCV, D Dask):

* RLS, linear and Gaussian: LOO, K-fold, LPO -- L, E, C; Nystrom with the held-out basis
  rows removed (LOO, K-fold, LPO: L, E; the basis drawn by the face from n_basis: L,
  E, C; drawn by D in K-fold over partitions) or kept (K-fold: L, E, C, D);
* global RankRLS: K-fold, LPO -- L, E, C; Nystrom K-fold kept (L, E, C, D) / removed
  (L, E, C); query RankRLS: LQO, K-fold by query -- L, E, C, G; Nystrom K-fold by query
  kept (L, E, C, D) / removed (L, E, C);
* per query on data with query ids: RLS LOO and LPO (C, E), global RankRLS LPO
  (C), query RankRLS LPO (E);
* linear RankSVM K-fold, by query and without query ids -- L, C, G;
* Kronecker RLS settings A-D -- KronRLS's shortcuts and G over PairwiseRLS; A-C --
  PairwiseRLSCV (E);
* kernel learning (gamma="learn"): RLS and query RankRLS -- L, E, C; Kronecker -- L, E;
* Kronecker SVM (squared hinge, sampled pairs; linear and Gaussian): one lambda -- L
  (``rlscore.learner.KronSVM``) and E (``PairwiseSVM``); K-fold over pairs by AUC -- L,
  G; against the minimizer in the explicit np.kron feature space (test_kronsvm);
* survival (test_survival): ``SurvivalRankRLS`` linear and Gaussian, K-fold and LOO by
  its exact hold-outs -- L, E (``SurvivalRankRLSCV``), C (``survival-rankrls`` on a
  CSV file), G (K-fold); ``SurvivalRankSVM`` (squared hinge) K-fold -- L, G; against
  RankRLS on the explicit comparable-pair list in an explicit feature space / the
  squared hinge over the explicit pair differences, Harrell's C by an O(m^2) loop and
  ``concordance_index_censored``; the E, G and C rows skip, naming issue 43, while
  those faces are not in the tree;
* survival RankRLS on Nystrom basis vectors (test_survival_nystrom): one lambda by the
  direct solver and by preconditioned CG (``solver="pcg"``, ``--solver pcg``) -- L, E,
  C, and L, E on CSR input; K-fold with the basis kept -- C; against the comparable-pair closed form in the
  explicit Nystrom feature space, and each face's refusals of what PCG cannot do;
* per-query normalization (test_query_norm): query RankRLS LQO after ``QueryNormalizer``
  in a Pipeline (E) and ``--query-norm`` (C), linear / zscore / sum, against
  normalization by hand;
* CSV input (test_csv): the CLI on ``--input-format csv`` equal to svmlight (estimates,
  choice, model arrays, predictions bit for bit) for RLS K-fold, global RankRLS K-fold
  and query RankRLS LQO.

The sparse column: every row of a face that takes scipy.sparse input (L, E, G; not C,
which always reads sparse files, nor D) again with CSR training and test input
(``test_*_csr``), equal to the same face on dense input (SPARSE_RTOL 1e-10; RankSVM to
its solver's bound) and to the brute force; and rows that train dense and predict CSC,
COO, np.matrix or a sparse array (``test_*_predict_formats``). Rows marked slow (run
with ``-m slow``) have a twin of the same face and CV kind in the default run.

Outside findings, one row each (issue 44 = round three; issue 35 an earlier round): all-tied
queries under GridSearchCV + QuerySplitter (44.1, ``test_rankrls_lqo_all_tied_queries``);
K-fold RankSVM estimate independent of the grid (44.2,
``test_linear_ranksvm_kfold_estimate_independent_of_grid``); one squared-hinge model in
every face and input format (44.3, ``test_squared_hinge_one_model``); repaired
indefinite Kronecker kernels applied at prediction (44.4,
``test_kronecker_repaired_kernel_predicts_with_it``); COO and every sparse format at
prediction (44.5, the sparse column); one K-fold-by-query estimate and fold rule (44.8,
``test_rankrls[query-*-kfold-*]``); one basis rule (44.16/17, the Nystrom rows);
per-query LOO/LPO on qid files (35.1, ``test_per_query_loo_lpo``).
"""

