"""The face-equivalence matrix (issue 42): every learner family x every CV kind it
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
* kernel learning (gamma="learn"): RLS and query RankRLS -- L, E, C; Kronecker -- L, E.
"""

