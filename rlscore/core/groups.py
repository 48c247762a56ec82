"""Query structure (public name): see :mod:`rlscore._groups`, where the one
implementation lives so that the measures below :mod:`rlscore.core` can use it too."""

from rlscore._groups import QueryGroups, as_query_groups

__all__ = ["QueryGroups", "as_query_groups"]
