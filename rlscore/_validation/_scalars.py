"""Scalar arguments: regparam and its grids, kernel hyper-parameters, tolerances,
counts and dtypes."""

import math
import numbers
import warnings

import numpy as np

from rlscore._validation._arrays import MAX_ABS_VALUE, _is_numeric_dtype
from rlscore._validation._resources import user_stacklevel

#: Largest polynomial degree accepted. A degree-d kernel spans the ratio (b_max/b_min)^d
#: between its entries for bases b = gamma <x, z> + coef0; float64 carries 53 bits of
#: relative precision and an exponent up to 2^1023, so beyond d = 64 a base ratio of 2
#: already spans more than 2^64 (every entry but the largest is lost in any sum with
#: it) and a base of 2^16 overflows. Scale the data or use the Gaussian kernel instead.
MAX_DEGREE = 64


def _real(value, name):
    """float(value) for a real scalar (Python or NumPy number, 0-d array); TypeError for
    bools, strings, None, complex and containers."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    try:
        return float(value)
    except OverflowError:   # a Python int beyond the float64 range
        raise ValueError(f"{name} must be finite, got an integer of "
                         f"{int(value).bit_length()} bits") from None


def check_real(value, name, *, minimum=None, open_minimum=False, maximum=None,
               why=""):
    """A finite real number as a float, optionally ``>= minimum`` (``> minimum`` with
    ``open_minimum``) and ``<= maximum`` (``why`` explains the maximum). TypeError for
    non-numbers (bools included), ValueError for NaN, infinity or a value out of
    range."""
    v = _real(value, name)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if minimum is not None and (v < minimum or (open_minimum and v == minimum)):
        op = ">" if open_minimum else ">="
        raise ValueError(f"{name} must be a finite number {op} {minimum:g}, got {value!r}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be at most {maximum:g}{why}, got {value!r}")
    return v


#: Largest regparam: the solvers square it (lambda^2 in CG residuals and eigenvalue
#: shifts), and a model regularized beyond it is zero to float64 precision.
MAX_REGPARAM = 1e150


class Regparam(float):
    """A regularization parameter that has passed :func:`check_regparam`: a float that
    carries its validation with it, so a face checks each value once at its boundary
    and the models below it (``solve``, ``grid_search``) take it as it is."""

    __slots__ = ()


def check_regparam(regparam, name="regparam"):
    """Return regparam as a :class:`Regparam` (a float); TypeError unless a real
    number, ValueError if it is negative, NaN, infinite or above :data:`MAX_REGPARAM`.
    A value that is already a :class:`Regparam` is returned as it is (checked once,
    at the boundary that made it). O(1)."""
    if type(regparam) is Regparam:
        return regparam
    return Regparam(check_real(regparam, name, minimum=0, maximum=MAX_REGPARAM,
                               why=" (its square must stay within float64)"))


class RegparamGrid(list):
    """A grid of regparams that has passed :func:`check_regparam_grid`: the values as
    given (an int stays an int: the face reports the chosen element itself, as RLScore
    does) and, in ``checked``, the same values as :class:`Regparam`, which
    :func:`rlscore.core.selection.grid_search` hands to the model's ``solve``."""

    def __init__(self, values, checked):
        super().__init__(values)
        self.checked = checked


def check_regparam_grid(values, name="regparams"):
    """A grid of regularization parameters as a :class:`RegparamGrid` (the values as
    given): non-empty, each value through :func:`check_regparam` (once: a
    :class:`RegparamGrid` is returned as it is, and the models take its ``checked``
    values without checking again), no value given twice (a repeated value would be
    scored twice and tie with itself as the best). ValueError naming ``name`` and the
    repeated value. O(n)."""
    if isinstance(values, RegparamGrid):
        return values
    values = list(values)
    if not values:
        raise ValueError(f"{name} is empty")
    checked = [check_regparam(v, name) for v in values]
    seen = {}
    for i, v in enumerate(checked):
        if v in seen:
            raise ValueError(f"{name} gives the value {v:g} twice (positions "
                             f"{seen[v] + 1} and {i + 1}): give each value once")
        seen[v] = i
    return RegparamGrid(values, checked)


def check_bias(bias, name="bias"):
    """The linear kernel's bias, the squared value of a constant feature: finite, >= 0
    and at most ``MAX_ABS_VALUE ** 2`` (the constant feature obeys the bound of every
    data value)."""
    return check_real(bias, name, minimum=0, maximum=MAX_ABS_VALUE ** 2,
                      why=" (sqrt(bias) is a feature value: scale the data instead)")


def check_gamma(gamma, name="gamma"):
    """The Gaussian/polynomial kernel's gamma: finite > 0."""
    return check_real(gamma, name, minimum=0, open_minimum=True)


def check_gaussian_gamma(gamma, name="gamma"):
    """The Gaussian kernel's gamma: one finite value > 0, or (automatic relevance
    determination) a 1-D sequence of them, one per feature, returned as a float64
    ndarray. A string (``"learn"``) is a TypeError here: the learners resolve it before
    a kernel is built."""
    if isinstance(gamma, (list, tuple)) or (isinstance(gamma, np.ndarray)
                                             and gamma.ndim > 0):
        g = np.asarray(gamma)
        if g.ndim != 1 or g.size == 0:
            raise ValueError(f"{name} must be a number or a non-empty 1-D sequence (one "
                             f"value per feature), got shape {g.shape}")
        if not _is_numeric_dtype(g.dtype) or g.dtype == bool:
            raise TypeError(f"{name} must hold real numbers, got dtype {g.dtype}")
        g = g.astype(np.float64)
        if not (np.all(np.isfinite(g)) and np.all(g > 0)):
            raise ValueError(f"every {name} must be a finite number > 0, got {gamma!r}")
        return g
    return check_gamma(gamma, name)


def check_coef0(coef0, name="coef0"):
    """The polynomial kernel's coef0: finite."""
    return check_real(coef0, name)


def check_degree(degree, name="degree"):
    """The polynomial degree: an integer in 1 .. :data:`MAX_DEGREE` (integral floats
    accepted)."""
    if isinstance(degree, np.ndarray) and degree.ndim == 0:
        degree = degree[()]
    if isinstance(degree, (bool, np.bool_)) or not isinstance(degree, numbers.Real):
        raise TypeError(f"{name} must be a positive integer, got {degree!r}")
    if not math.isfinite(_real(degree, name)) or int(degree) != degree:
        raise ValueError(f"{name} must be a positive integer, got {degree!r}")
    d = int(degree)
    if not 1 <= d <= MAX_DEGREE:
        raise ValueError(f"{name} must be an integer in 1..{MAX_DEGREE} (higher degrees "
                         f"exceed what float64 carries), got {degree!r}")
    return d


_KERNEL_CHECKERS = {
    "LinearKernel": {"bias": check_bias},
    "GaussianKernel": {"gamma": check_gaussian_gamma},
    "PolynomialKernel": {"degree": check_degree, "gamma": check_gamma,
                         "coef0": check_coef0},
}


def check_kernel_params(kernel, params):
    """The parameters of the kernel named ``kernel`` ("LinearKernel", "GaussianKernel",
    "PolynomialKernel") checked with the checkers above; returns a new dict. Unknown
    parameter names are a ValueError; kernels without numeric parameters pass through.
    The kernel classes and the model-file reader both call it."""
    if not isinstance(params, dict):
        raise TypeError(f"kernel parameters must be a dict, got {type(params).__name__}")
    checkers = _KERNEL_CHECKERS.get(kernel)
    if checkers is None:
        return dict(params)
    out = {}
    for key, value in params.items():
        if key not in checkers:
            raise ValueError(f"{kernel} has no parameter {key!r} (it has "
                             f"{', '.join(sorted(checkers))})")
        out[key] = checkers[key](value)
    return out


def check_tol(tol, name="tol"):
    """A relative tolerance: a finite real number in (0, 1)."""
    v = _real(tol, name)
    if not (math.isfinite(v) and 0 < v < 1):
        raise ValueError(f"{name} must be in (0, 1), got {tol!r}")
    return v


def check_float_dtype(dtype, name="dtype"):
    """np.dtype float64 or float32 (the precisions of the kernel blocks), given as a
    dtype, a type or its name; anything else is a ValueError naming ``name``. O(1)."""
    try:
        dt = None if dtype is None else np.dtype(dtype)
    except TypeError:
        dt = None
    if dt not in (np.float64, np.float32):
        raise ValueError(f"{name} must be float64 or float32, got {dtype!r}")
    return dt


def check_positive_int(value, name, minimum=1, allow_none=False):
    """An integer count ``>= minimum`` (Python or NumPy integer; bools, floats and
    strings are a TypeError), or None when ``allow_none``."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        extra = " or None" if allow_none else ""
        raise TypeError(f"{name} must be an integer{extra}, got {value!r}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return v


def check_miscoverage(alpha, name="alpha"):
    """``alpha`` as a float in (0, 1); TypeError unless a real number, ValueError
    otherwise."""
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"{name} must be a real number in (0, 1), got {alpha!r}")
    alpha = float(alpha)
    if not (0.0 < alpha < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1 (the miscoverage "
                         f"rate; 0.1 gives 90% intervals), got {alpha!r}")
    return alpha


INDEFINITE = ("raise", "clip", "shift")


def check_indefinite(value):
    """``indefinite`` as one of "raise", "clip", "shift" (ValueError otherwise)."""
    if not isinstance(value, str) or value not in INDEFINITE:
        raise ValueError(f"indefinite must be one of {INDEFINITE}, got {value!r}")
    return value


class _NotGiven:
    """The default of a deprecated keyword alias: tells "not given" apart from every
    value a caller may pass (None included, which is refused like any bad value)."""

    def __repr__(self):
        return "<deprecated>"


#: default of a deprecated keyword alias (``alpha=`` of the interval methods)
NOT_GIVEN = _NotGiven()


def miscoverage_argument(miscoverage, alpha=NOT_GIVEN, default=0.1,
                         owner="predict_interval"):
    """The miscoverage rate of an interval method, checked with
    :func:`check_miscoverage`: ``miscoverage``, or ``alpha``, its deprecated alias
    (a FutureWarning; the errors then name ``alpha``). Both (``miscoverage`` other
    than its ``default``) is a TypeError. O(1).
    """
    if alpha is NOT_GIVEN:
        return check_miscoverage(miscoverage, "miscoverage")
    if not (isinstance(miscoverage, float) and miscoverage == default):
        raise TypeError(f"{owner} got the miscoverage rate twice: give miscoverage= "
                        f"only (alpha= is its deprecated alias)")
    warnings.warn(f"{owner}(alpha=...) is deprecated and will be removed in the next "
                  f"release; use miscoverage=... (alpha means the regularization in the "
                  f"estimators' constructors)", FutureWarning, stacklevel=user_stacklevel())
    return check_miscoverage(alpha, "alpha")
