"""Pair index orders for pairwise (drug-target, user-item) label matrices.

rlscore's Kronecker learners index the pairs of an n1 x n2 label matrix Y in
column-major order, ``order="F"`` (RLScore's vec_F: pair (i, j) at ``i + j * n1``);
most published splits and NumPy use row-major order, ``order="C"`` (pair (i, j) at
``i * n2 + j``), e.g. DeepDTA's fold files for the Davis and KIBA data. The functions
here convert between the two flat orders, (row, col) pairs and matrices, and
:func:`pair_table` indexes a long table of (drug_id, target_id, value) rows (the
format of DeepPurpose and TDC) into the index pairs and object lists; every
learner argument that takes flat pair indices (the fold lists of
``in_sample_kfoldcv``) also accepts ``order="C"``.

Examples
--------
>>> import numpy as np
>>> from rlscore.utilities.pairs import pairs_to_flat, flat_to_pairs, convert_flat
>>> pairs_to_flat([1, 2], [0, 3], shape=(3, 4), order="F")
array([ 1, 11])
>>> pairs_to_flat([1, 2], [0, 3], shape=(3, 4), order="C")
array([ 4, 11])
>>> [a.tolist() for a in flat_to_pairs([4, 11], shape=(3, 4), order="C")]
[[1, 2], [0, 3]]
>>> convert_flat([4, 11], (3, 4), from_order="C", to_order="F")
array([ 1, 11])
"""

from rlscore.core.structure import (ORDERS, as_pairs, check_order, convert_flat,
                                    flat_to_pairs, pairs_to_flat, unvec, vec)
from rlscore.utilities._pair_tables import PairTable, pair_table

__all__ = ["ORDERS", "as_pairs", "check_order", "convert_flat", "flat_to_pairs",
           "pairs_to_flat", "unvec", "vec", "PairTable", "pair_table"]
