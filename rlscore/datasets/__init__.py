"""Small data sets for examples and tests, and generators for the papers' synthetic
settings.

Loaders
-------
load_heart
    Statlog (Heart), 270×13, ±1 labels; shipped inside the package.
load_gbsg2
    GBSG2 breast cancer survival, 686 patients, 8 raw covariates, right-censored
    (time, event); shipped inside the package.
load_letor
    A LETOR svmlight fold file from a path you provide (nothing is downloaded).
load_davis, load_metz
    Drug–target affinity matrices and kernels (Davis: complete 68×442 Kd; Metz:
    1421×156 pKi with missing values) from a folder you provide.
load_beijing_air_quality
    Hourly PM2.5 of one Beijing station (UCI 501) from a folder you provide.
load_yamanishi
    The Yamanishi et al. (2008) binary interaction sets (nr, gpcr, ic, e) from a folder
    you provide.

Of these, only the heart and GBSG2 samples are shipped; see each loader for the data's terms.

Generators
----------
make_regression, make_classification, make_ranking_queries,
make_irrelevant_pairs_example, make_relation_extraction, make_drug_target,
make_grouped_regression, make_relevance_regression
"""

from rlscore.datasets.loaders import (load_beijing_air_quality, load_davis, load_gbsg2,
                                      load_heart, load_letor, load_metz, load_yamanishi)
from rlscore.datasets.synthetic import (
    make_classification,
    make_drug_target,
    make_grouped_regression,
    make_irrelevant_pairs_example,
    make_ranking_queries,
    make_regression,
    make_relevance_regression,
)
from rlscore.datasets.relation_extraction import make_relation_extraction

__all__ = [
    "load_heart", "load_gbsg2", "load_letor", "load_davis", "load_metz", "load_yamanishi",
    "make_regression", "make_drug_target", "make_classification",
    "make_ranking_queries", "make_irrelevant_pairs_example", "make_relation_extraction",
    "make_grouped_regression", "make_relevance_regression", "load_beijing_air_quality",
]
