"""Compiled kernels (Cython). Internal: call them through :mod:`rlscore.core` and
:mod:`rlscore.measure`, which validate the arguments first."""
