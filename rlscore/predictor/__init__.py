"""Trained models: :class:`LinearPredictor` (primal) and :class:`KernelPredictor`
(dual); for pairs of objects, :class:`LinearPairwisePredictor` and
:class:`KernelPairwisePredictor`."""

from rlscore.predictor.predictor import PredictorInterface, LinearPredictor, KernelPredictor
from rlscore.predictor.pairwise_predictor import (PairwisePredictorInterface,
                                                  LinearPairwisePredictor,
                                                  KernelPairwisePredictor)

__all__ = ["PredictorInterface", "LinearPredictor", "KernelPredictor",
           "PairwisePredictorInterface", "LinearPairwisePredictor",
           "KernelPairwisePredictor"]
