"""Trained models: :class:`LinearPredictor` (primal) and :class:`KernelPredictor`
(dual)."""

from rlscore.predictor.predictor import PredictorInterface, LinearPredictor, KernelPredictor

__all__ = ["PredictorInterface", "LinearPredictor", "KernelPredictor"]
