"""The algebra of rlscore, one subpackage per family of methods.

Families, bottom first; a family imports only families below it (``tests/test_layers.py``
holds this order):

0. :mod:`rlscore.core.structure` -- query groups, pair indices, the vec trick
1. :mod:`rlscore.core.optim` -- solver results, CG, MINRES, TRON, bundle method, dense algebra
2. :mod:`rlscore.core.selection` -- fold loops, grid search, hold-out selection
3. :mod:`rlscore.core.rls` -- RLS solvers and hold-out shortcuts, Nystrom, intervals
4. :mod:`rlscore.core.rankrls`, :mod:`rlscore.core.ranksvm`,
   :mod:`rlscore.core.kronecker` -- ranking and pairwise learners (never each other)

Modules inside a family are private; import the family: ``from rlscore.core.rls import
RLSModel``. This package imports no family itself.
"""
