"""Prediction-interval arrays stored beside a linear or kernel model: their checks
against the predictor, shared by writing and reading."""

import numpy as np

from rlscore._validation import as_index_array
from rlscore.model_io._format import _IV_ARRAYS, ModelFileError


def _check_intervals(info, arrays, predictor, src):
    """The prediction-interval arrays against the predictor: shapes, finite values,
    indices in range. Raises ModelFileError naming ``src``."""
    def bad(msg):
        raise ModelFileError(f"{src}: invalid prediction-interval data ({msg})")

    if not isinstance(info, dict) or info.get("kind") not in ("loo", "folds"):
        bad("unknown kind")
    if set(arrays) - _IV_ARRAYS:
        bad(f"unexpected arrays {sorted(set(arrays) - _IV_ARRAYS)}")
    for name in ("coef", "residuals"):
        if name not in arrays:
            bad(f"no {name!r} array")
    for name, v in arrays.items():
        want = np.int64 if name in ("fold_of", "corr_rows") else np.float64
        if v.dtype != want:
            bad(f"{name!r} has dtype {v.dtype}, expected {np.dtype(want)}")
        if want == np.float64 and not np.all(np.isfinite(v)):
            bad(f"{name!r} contains NaN or infinity")
    coef, res = arrays["coef"], arrays["residuals"]
    linear = hasattr(predictor, "W")
    own = np.asarray(predictor.W if linear else predictor.A)
    rows = own.shape[0]
    p = 1 if own.ndim == 1 else own.shape[1]
    m = info.get("n_train")
    if not isinstance(m, int) or isinstance(m, bool) or m < 2:
        bad(f"n_train must be an integer >= 2, got {m!r}")
    if coef.ndim != 2 or coef.shape[0] != rows:
        bad(f"'coef' has shape {coef.shape}, the model has {rows} coefficient rows")
    if res.shape != (m, p):
        bad(f"'residuals' has shape {res.shape}, expected ({m}, {p})")
    if linear != ("intercept" in arrays):
        bad("'intercept' goes with linear models only, and they need it")
    if linear and arrays["intercept"].shape != (coef.shape[1],):
        bad(f"'intercept' has shape {arrays['intercept'].shape}, expected "
            f"({coef.shape[1]},)")
    if info["kind"] == "loo":
        if "fold_of" in arrays:
            bad("'fold_of' belongs to fold models")
        rows_c = arrays.get("corr_rows", np.zeros(0, dtype=np.int64))
        try:
            as_index_array(rows_c, m, "'corr_rows' (distinct training rows)",
                           allow_empty=True)
        except ValueError as exc:
            bad(str(exc))
        if coef.shape[1] != m + rows_c.size * p:
            bad(f"'coef' has {coef.shape[1]} columns, expected {m + rows_c.size * p}")
    else:
        K = info.get("n_folds")
        f = arrays.get("fold_of")
        if not isinstance(K, int) or isinstance(K, bool) or K < 2 or f is None:
            bad("fold models need n_folds >= 2 and 'fold_of'")
        if "corr_rows" in arrays:
            bad("'corr_rows' belongs to leave-one-out models")
        if f.shape != (m,) or f.min() < 0 or f.max() >= K or \
                np.unique(f).size != K:
            bad(f"'fold_of' must give each of the {m} rows a fold 0..{K - 1}, every "
                f"fold non-empty")
        if coef.shape[1] != K * p:
            bad(f"'coef' has {coef.shape[1]} columns, expected {K * p}")
