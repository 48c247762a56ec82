"""Utilities: file readers and writers, cross-validation helpers, one-vs-all encoding
and array conversion.

Submodules: :mod:`~rlscore.utilities.reader`, :mod:`~rlscore.utilities.cross_validation`,
:mod:`~rlscore.utilities.multiclass`, :mod:`~rlscore.utilities.array_tools`.
"""

from rlscore.utilities import array_tools, cross_validation, multiclass, reader

__all__ = ["reader", "cross_validation", "multiclass", "array_tools"]
