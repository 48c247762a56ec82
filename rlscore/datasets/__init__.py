"""Small data sets for examples and tests, and generators for the papers' synthetic
settings.

Loaders
-------
load_heart
    Statlog (Heart), 270×13, ±1 labels; shipped inside the package.
load_letor
    A LETOR svmlight fold file from a path you provide (nothing is downloaded).

Generators
----------
make_regression, make_classification, make_ranking_queries,
make_irrelevant_pairs_example, make_relation_extraction
"""

from rlscore.datasets.loaders import load_heart, load_letor
from rlscore.datasets.synthetic import (
    make_classification,
    make_irrelevant_pairs_example,
    make_ranking_queries,
    make_regression,
)
from rlscore.datasets.relation_extraction import make_relation_extraction

__all__ = [
    "load_heart", "load_letor", "make_regression", "make_classification",
    "make_ranking_queries", "make_irrelevant_pairs_example", "make_relation_extraction",
]
