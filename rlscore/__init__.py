"""rlscore: regularized least-squares kernel learners for regression, ranking and
pairwise data, with exact fast cross-validation.

Importing the package is cheap and does not need scikit-learn. The public modules are
:mod:`rlscore.learner` (RLScore-compatible learners), :mod:`rlscore.estimators`
(scikit-learn estimators), :mod:`rlscore.kernel`, :mod:`rlscore.measure`,
:mod:`rlscore.predictor`, :mod:`rlscore.utilities` and :mod:`rlscore.datasets`.
"""

__version__ = "0.9.0.dev0"
