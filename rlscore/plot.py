"""Figures of model selection: the cross-validated measure against the regularization
parameter (matplotlib, an optional dependency: ``pip install rlscore[plot]``)."""

import textwrap
import warnings

import numpy as np

__all__ = ["cv_curve", "grid_edge", "savefig_by_suffix", "figure_format"]


def figure_format(path):
    """The matplotlib format named by the suffix of ``path`` (``"png"``, ``"pdf"``,
    ``"svg"``, ...); ValueError naming the formats matplotlib can write when the suffix
    is missing or unknown (a figure is never written in a format its name does not
    say)."""
    import pathlib

    from matplotlib.figure import Figure
    supported = Figure().canvas.get_supported_filetypes()
    fmt = pathlib.PurePath(str(path)).suffix.lower().lstrip(".")
    if fmt not in supported:
        raise ValueError(f"cannot tell the figure format of {str(path)!r}: end the name "
                         f"with one of {', '.join('.' + f for f in sorted(supported))}")
    return fmt


def savefig_by_suffix(fig, path, dpi=100):
    """Write ``fig`` to ``path`` atomically (:func:`rlscore._io.atomic_write`) in the
    format its suffix names (:func:`figure_format`). O(size of the figure)."""
    from rlscore._io import atomic_write
    fmt = figure_format(path)
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format=fmt, dpi=dpi)


def grid_edge(regparams, chosen):
    """"lower" or "upper" when ``chosen`` is the smallest or largest of at least two
    grid values (the optimum may lie beyond the grid), else None."""
    grid = np.asarray(regparams, dtype=np.float64)
    if grid.size < 2:
        return None
    if chosen == grid.min():
        return "lower"
    if chosen == grid.max():
        return "upper"
    return None


def cv_curve(regparams, performances, chosen=None, measure="CV measure", labels=None,
             path=None, ax=None, warn=True):
    """Plot the cross-validated measure against the regularization parameter.

    Parameters
    ----------
    regparams : sequence of float, length g
        The grid (log scale on the x axis).
    performances : array-like, shape (g,) or (c, g)
        One curve, or one per value of a second searched parameter (e.g. the Gaussian
        kernel's gamma), whose names are ``labels``.
    chosen : (regparam, performance) or float or None
        The selected point, marked; a float is looked up on the (first) curve. A
        choice on an edge of the grid adds a note in the figure and, with ``warn``, a
        UserWarning.
    measure : str
        Name of the y axis.
    labels : sequence of str, optional
        Legend entries of the curves.
    path : str or path-like, optional
        Save the figure there, in the format its suffix names (``.png``, ``.pdf``,
        ``.svg``, ...; ValueError for a suffix matplotlib cannot write).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    O(c g) drawing; the data plotted are the arguments, unchanged.
    """
    try:
        import matplotlib
        if path is not None and ax is None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError('plots need matplotlib: pip install "rlscore[plot]"') from exc
    grid = np.asarray(regparams, dtype=np.float64).ravel()
    perf = np.atleast_2d(np.asarray(performances, dtype=np.float64))
    if perf.shape[1] != grid.size:
        raise ValueError(f"performances has {perf.shape[1]} values per curve but the grid "
                         f"has {grid.size}")
    if np.any(grid <= 0):
        raise ValueError("regparams must be positive for a log axis (drop 0 from the "
                         "grid to plot it)")
    if labels is not None and len(labels) != perf.shape[0]:
        raise ValueError(f"{len(labels)} labels for {perf.shape[0]} curves")
    if ax is None:
        fig, ax = plt.subplots(figsize=(6, 4))
    else:
        fig = ax.figure
    order = np.argsort(grid)
    for c in range(perf.shape[0]):
        ax.plot(grid[order], perf[c, order], marker="o", ms=3,
                label=None if labels is None else labels[c])
    ax.set_xscale("log")
    ax.set_xlabel("regparam (lambda)")
    ax.set_ylabel(measure)
    if chosen is not None:
        lam, value = (chosen if isinstance(chosen, tuple)
                      else (float(chosen), float(perf[0, np.argmin(np.abs(grid - chosen))])))
        ax.plot([lam], [value], marker="*", ms=14, color="crimson", zorder=5,
                label=f"chosen {lam:.3g}")
        edge = grid_edge(grid, lam)
        if edge is not None:
            note = (f"chosen value on the {edge} edge of the grid: the optimum may lie "
                    f"beyond it; extend the grid")
            # above the axes, wrapped to their width: never over the curves or the
            # legend, and inside the figure (tight_layout makes room for a title)
            ax.set_title(textwrap.fill(note, 60), fontsize=8, color="crimson")
            if warn:
                warnings.warn(note, UserWarning, stacklevel=2)
    if labels is not None or chosen is not None:
        ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    if path is not None:
        savefig_by_suffix(fig, path)
    return fig
