"""Loaders for the data shipped with the package and for user-provided files: LETOR
folds, the Davis and Metz drug–target affinity matrices, the Yamanishi interaction sets."""

from importlib import resources

import numpy as np

from rlscore.utilities.reader import read_svmlight

__all__ = ["load_heart", "load_gbsg2", "load_letor", "load_davis", "load_metz", "load_yamanishi",
           "data_file"]


def data_file(name):
    """Return a :class:`importlib.resources.abc.Traversable` for a shipped data file.

    Works from the source tree, an editable install and an installed wheel.

    Parameters
    ----------
    name : str
        File name inside ``rlscore/datasets/data`` (e.g. ``"heart_scale.txt"``).

    Returns
    -------
    importlib.resources.abc.Traversable
        Open it with ``.open("r", encoding="utf-8")`` or read it with ``.read_text()``.
    """
    return resources.files("rlscore.datasets").joinpath("data", name)


def load_heart():
    """Load the Statlog (Heart) data set, LIBSVM-scaled (shipped with the package).

    270 patients, 13 features linearly scaled to [−1, 1], label +1 (heart disease
    present, 120 examples) or −1 (150 examples). Small enough for exhaustive
    leave-pair-out cross-validation (120·150 = 18 000 positive–negative pairs).

    Source: the ``heart_scale`` file of LIBSVM/LIBLINEAR (C.-C. Chang and C.-J. Lin),
    from the UCI Machine Learning Repository's Statlog (Heart) data; redistributed under
    the LIBLINEAR BSD-style notice, see ``rlscore/datasets/data/README.md``.

    Returns
    -------
    X : numpy.ndarray, float64, shape (270, 13)
    y : numpy.ndarray, float64, shape (270,)
        +1 or −1.

    Notes
    -----
    Complexity: parses a 27 kB file, O(270·13).
    """
    with data_file("heart_scale.txt").open("r", encoding="utf-8") as fh:
        X, Y, _ = read_svmlight(fh, fdim=13)
    return X.toarray(), Y[:, 0].copy()


#: The columns of the GBSG2 file besides the outcome, in file order.
GBSG2_COLUMNS = ("horTh", "age", "menostat", "tsize", "tgrade", "pnodes", "progrec",
                 "estrec")
_GBSG2_CATEGORICAL = ("horTh", "menostat", "tgrade")


def load_gbsg2():
    """Load the German Breast Cancer Study Group 2 data (right-censored survival;
    shipped with the package).

    686 node-positive breast cancer patients, 8 covariates and the recurrence-free
    survival time (days, 8 to 2659) with its event indicator (299 recurrences or
    deaths observed, 387 censored). Ties in time occur (a few).

    Source: ``gbsg2.csv`` of lifelines (MIT licence, notice in
    ``rlscore/datasets/data/README.md``); original data M. Schumacher et al., J. Clin.
    Oncol. 12:2086-2093 (1994) -- cite it when you use the data.

    Returns
    -------
    columns : dict of str -> numpy.ndarray (686,)
        The raw covariates, in file order (:data:`GBSG2_COLUMNS`): ``horTh`` hormonal
        therapy ("no"/"yes"), ``age`` (years), ``menostat`` menopausal status
        ("Pre"/"Post"), ``tsize`` tumour size (mm), ``tgrade`` tumour grade
        ("I"/"II"/"III"), ``pnodes`` positive nodes, ``progrec`` / ``estrec``
        progesterone / estrogen receptor (fmol). Categorical columns are str arrays,
        the others float64; encoding them is left to you (see
        :doc:`/tutorials/survival`).
    time : numpy.ndarray, float64 (686,)
        Recurrence-free survival or censoring time, days.
    event : numpy.ndarray, bool (686,)
        True when the recurrence (or death) was observed, False when censored.

    Notes
    -----
    Complexity: parses a 22 kB file, O(686 x 10).
    """
    import csv
    with data_file("gbsg2.csv").open("r", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    cols = {name: [r[k] for r in body] for k, name in enumerate(header)}
    columns = {name: (np.array(cols[name], dtype=str) if name in _GBSG2_CATEGORICAL
                      else np.array(cols[name], dtype=np.float64))
               for name in GBSG2_COLUMNS}
    time = np.array(cols["time"], dtype=np.float64)
    event = np.array(cols["cens"], dtype=np.int64) == 1
    return columns, time, event


def load_letor(path, fdim=None, dense=True):
    """Load one LETOR fold file (svmlight format with ``qid:``) from a local path.

    Nothing is downloaded: obtain the LETOR files yourself (their licence requires
    accepting Microsoft's agreement) and pass the path of e.g. ``Fold1/train.txt`` or
    ``S1.txt``. Comments after ``#`` (docid, inc, prob) are ignored.

    Parameters
    ----------
    path : str, path-like or file object
        The fold file (``.gz``/``.bz2``/``.xz`` names are decompressed).
    fdim : int, optional
        Number of features (46 for LETOR 4.0 MQ2007/MQ2008). Pass it so that files in
        which the last feature is always zero still get every column, and so that
        train and test matrices align.
    dense : bool, default True
        Return ``X`` as a dense ndarray (LETOR features are dense); else a CSR matrix.

    Returns
    -------
    X : numpy.ndarray or scipy.sparse.csr_matrix, float64, shape (n, d)
    y : numpy.ndarray, float64, shape (n,)
        Graded relevance labels.
    qids : numpy.ndarray of str, shape (n,)
        The query id of each row, as in the file.

    Raises
    ------
    ValueError
        If the file has no ``qid:`` fields, more than one label per line, or is
        malformed (see :func:`rlscore.utilities.reader.read_svmlight`).

    Notes
    -----
    Complexity: O(file size); a 2 MB MQ2008 fold parses in a fraction of a second.
    """
    X, Y, qids = read_svmlight(path, fdim=fdim)
    if qids is None:
        raise ValueError(f"{path}: not a LETOR file (the examples have no qid: field)")
    if Y.shape[1] != 1:
        raise ValueError(f"{path}: expected one relevance label per line, got "
                         f"{Y.shape[1]}")
    if dense:
        X = X.toarray()
    return X, Y[:, 0].copy(), np.asarray(qids, dtype=str)


# ---------------------------------------------------------------- drug-target data

_DAVIS_Y = "drug-target_interaction_affinities_Kd__Davis_et_al.2011v1.txt"
_DAVIS_XD = "drug-drug_similarities_2D.txt"
_DAVIS_XT = {"raw": "target-target_similarities_WS.txt",
             "normalized": "target-target_similarities_WS_normalized.reconstructed.txt"}
_METZ_Y = "known_drug-target_interaction_affinities_pKi__Metz_et_al.2011.txt"
_METZ_XD = ("drug-drug_similarities_2D__Metz_et_al.2011.txt",
            "drug-drug_similarities_2D__Metz_et_al.2011.reconstructed.txt.xz",
            "drug-drug_similarities_2D__Metz_et_al.2011.txt.xz")
_METZ_XT = "target-target_similarities_WS_normalized__Metz_et_al.2011.txt"
YAMANISHI_SETS = ("nr", "gpcr", "ic", "e")


def _in_dir(path, names, what):
    import os
    if isinstance(names, str):
        names = (names,)
    folder = os.fspath(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{folder}: not a directory (pass the folder that holds "
                                f"the {what} files)")
    for name in names:
        full = os.path.join(folder, name)
        if os.path.exists(full):
            return full
    raise FileNotFoundError(f"{folder}: no {names[0]} ({what})")


def _matrix(fname, shape=None, square=False):
    try:
        M = np.loadtxt(fname, dtype=np.float64, ndmin=2)
    except ValueError as exc:
        raise ValueError(f"{fname}: not a whitespace-separated numeric matrix ({exc})") \
            from None
    if square and M.shape[0] != M.shape[1]:
        raise ValueError(f"{fname}: expected a square matrix, got {M.shape}")
    if shape is not None and M.shape != shape:
        raise ValueError(f"{fname}: shape {M.shape}, expected {shape}")
    return M


def load_davis(path, affinity="pKd", target_kernel="raw"):
    """Load the Davis et al. (2011) kinase inhibitor data from a local folder.

    68 drugs × 442 kinases, every pair measured (Kd in nM). Not shipped with the
    package: get the files of Pahikkala et al. (2015) (also redistributed with DeepDTA,
    folder ``data/davis``) and pass their folder. Terms: no licence is stated; cite
    M. I. Davis et al., Nat. Biotechnol. 29:1046 (2011) and T. Pahikkala et al.,
    Brief. Bioinform. 16(2):325 (2015).

    Parameters
    ----------
    path : str or path-like
        Folder with ``drug-target_interaction_affinities_Kd__Davis_et_al.2011v1.txt``,
        ``drug-drug_similarities_2D.txt`` and the target kernel file.
    affinity : {"pKd", "Kd"}, default "pKd"
        ``pKd = -log10(Kd / 1e9)`` (5.0 = no binding detected, up to 10.8) or raw Kd.
    target_kernel : {"raw", "normalized"}, default "raw"
        ``"raw"``: Smith–Waterman scores (``target-target_similarities_WS.txt``,
        symmetric PSD, used by RLScore's tutorials); ``"normalized"``: the 0–100
        normalized scores (``..._WS_normalized.reconstructed.txt``; not PSD).

    Returns
    -------
    XD : numpy.ndarray, shape (n_drugs, n_drugs)
        Drug–drug 2D structure similarity.
    XT : numpy.ndarray, shape (n_targets, n_targets)
        Target–target sequence similarity.
    Y : numpy.ndarray, shape (n_drugs, n_targets)
        Affinities; rows are drugs. ``Y.ravel(order="F")`` is the vec_F label vector
        of :class:`~rlscore.learner.KronRLS` with ``K1 = XD``, ``K2 = XT``.

    Raises
    ------
    FileNotFoundError, ValueError
        Missing files; non-numeric content or shapes that do not agree.

    Notes
    -----
    Complexity: parses about 1.2 MB of text, O(n_drugs·n_targets + n_targets²).
    """
    if affinity not in ("pKd", "Kd"):
        raise ValueError(f"affinity must be 'pKd' or 'Kd', got {affinity!r}")
    if target_kernel not in _DAVIS_XT:
        raise ValueError(f"target_kernel must be 'raw' or 'normalized', got "
                         f"{target_kernel!r}")
    Y = _matrix(_in_dir(path, _DAVIS_Y, "Davis"))
    n_d, n_t = Y.shape
    XD = _matrix(_in_dir(path, _DAVIS_XD, "Davis"), shape=(n_d, n_d))
    XT = _matrix(_in_dir(path, _DAVIS_XT[target_kernel], "Davis"), shape=(n_t, n_t))
    if affinity == "pKd":
        if np.any(Y <= 0):
            raise ValueError("Davis Kd values must be positive to take pKd")
        Y = -np.log10(Y / 1e9)
    return XD, XT, Y


def load_metz(path, scale=True):
    """Load the Metz et al. (2011) kinase inhibitor pKi data from a local folder.

    1421 drugs × 156 kinases, 93 356 measured pairs (42 %); unmeasured pairs are NaN.
    Not shipped: get the files of Pahikkala et al. (2015) and pass their folder (the
    drug kernel may be the original ``.txt`` or an ``.xz``-compressed copy). No
    licence is stated; cite J. T. Metz et al., Nat. Chem. Biol. 7:200 (2011) and
    Pahikkala et al. (2015).

    Parameters
    ----------
    path : str or path-like
        Folder with ``known_drug-target_interaction_affinities_pKi__Metz_et_al.2011.txt``,
        ``drug-drug_similarities_2D__Metz_et_al.2011.txt[.xz]`` and
        ``target-target_similarities_WS_normalized__Metz_et_al.2011.txt``.
    scale : bool, default True
        Divide both similarity matrices by 100 (the files are on a 0–100 scale). Neither
        is PSD; add a ridge or clip eigenvalues if a method needs it.

    Returns
    -------
    XD : numpy.ndarray (n_drugs, n_drugs)
    XT : numpy.ndarray (n_targets, n_targets)
    Y : numpy.ndarray (n_drugs, n_targets)
        pKi with NaN for unmeasured pairs. The data are incomplete, so the learner is
        :class:`~rlscore.learner.CGKronRLS` (or :class:`~rlscore.estimators.PairwiseRLS`
        on the labelled pairs), not the complete-data
        :class:`~rlscore.learner.KronRLS`: with ``rows, cols = np.where(~np.isnan(Y))``,
        ``CGKronRLS(K1=XD, K2=XT, Y=Y[rows, cols], label_row_inds=rows,
        label_col_inds=cols, ...)``.

    Notes
    -----
    Complexity: dominated by parsing the 1421 × 1421 drug matrix, O(n_drugs²).
    """
    Y = _matrix(_in_dir(path, _METZ_Y, "Metz"))
    n_d, n_t = Y.shape
    XD = _matrix(_in_dir(path, _METZ_XD, "Metz"), shape=(n_d, n_d))
    XT = _matrix(_in_dir(path, _METZ_XT, "Metz"), shape=(n_t, n_t))
    if scale:
        XD /= 100.0
        XT /= 100.0
    return XD, XT, Y


def _labelled_table(fname):
    """A tab-separated matrix with a header line of column ids and a row id per line."""
    with open(fname, encoding="utf-8") as fh:
        lines = [ln.rstrip("\r\n") for ln in fh if ln.strip()]
    if len(lines) < 2:
        raise ValueError(f"{fname}: expected a header line and at least one row")
    cols = lines[0].split("\t")[1:]
    rows, values = [], []
    for lineno, line in enumerate(lines[1:], 2):
        cells = line.split("\t")
        if len(cells) != len(cols) + 1:
            raise ValueError(f"{fname}, line {lineno}: {len(cells) - 1} values, the header "
                             f"has {len(cols)} column ids")
        rows.append(cells[0])
        try:
            values.append([float(v) for v in cells[1:]])
        except ValueError:
            raise ValueError(f"{fname}, line {lineno}: non-numeric value") from None
    return np.array(values, dtype=np.float64), rows, cols


def load_yamanishi(path, subset="nr", return_ids=False):
    """Load a Yamanishi et al. (2008) drug–target interaction set from a local folder.

    Binary interactions with a drug kernel (SIMCOMP chemical similarity) and a target
    kernel (normalized Smith–Waterman). Not shipped: get the files (``nr``, ``gpcr``,
    ``ic``, ``e``) of Yamanishi et al., Bioinformatics 24(13):i232 (2008), also
    redistributed by PyDTI (``datasets/``), and pass their folder. No licence is stated
    for the data; cite Yamanishi et al. 2008.

    Parameters
    ----------
    path : str or path-like
        Folder with ``{subset}_admat_dgc.txt``, ``{subset}_simmat_dc.txt`` and
        ``{subset}_simmat_dg.txt`` (tab-separated, header line of ids, one row id per
        line; the admat has targets as rows and drugs as columns).
    subset : {"nr", "gpcr", "ic", "e"}, default "nr"
    return_ids : bool, default False
        Also return the drug (KEGG DRUG) and target (KEGG GENES) ids.

    Returns
    -------
    KD : numpy.ndarray (n_drugs, n_drugs)
        Drug similarity as in the file; it is not exactly symmetric (use
        ``(KD + KD.T) / 2``).
    KT : numpy.ndarray (n_targets, n_targets)
    Y : numpy.ndarray (n_drugs, n_targets)
        1 for a known interaction, else 0: the admat **transposed**, so that rows are
        drugs as in :func:`load_davis`.
    drug_ids, target_ids : list of str
        Only with ``return_ids=True``.

    Raises
    ------
    ValueError
        Unknown subset, malformed tables, or ids that disagree between the three files.

    Notes
    -----
    Complexity: O(n_drugs² + n_targets² + n_drugs·n_targets).
    """
    if subset not in YAMANISHI_SETS:
        raise ValueError(f"subset must be one of {YAMANISHI_SETS}, got {subset!r}")
    A, t_rows, d_cols = _labelled_table(_in_dir(path, f"{subset}_admat_dgc.txt", "Yamanishi"))
    KD, d_rows, d_cols2 = _labelled_table(_in_dir(path, f"{subset}_simmat_dc.txt",
                                                  "Yamanishi"))
    KT, t_rows2, t_cols2 = _labelled_table(_in_dir(path, f"{subset}_simmat_dg.txt",
                                                   "Yamanishi"))
    if d_rows != d_cols or d_cols2 != d_cols:
        raise ValueError(f"{subset}: the drug ids of the admat and the drug kernel differ")
    if t_rows2 != t_rows or t_cols2 != t_rows:
        raise ValueError(f"{subset}: the target ids of the admat and the target kernel "
                         f"differ")
    if not np.all((A == 0) | (A == 1)):
        raise ValueError(f"{subset}: the interaction matrix must hold 0/1 values")
    Y = np.ascontiguousarray(A.T)
    return (KD, KT, Y, d_cols, t_rows) if return_ids else (KD, KT, Y)


_BEIJING_FEATURES = ("PM10", "SO2", "NO2", "CO", "O3", "TEMP", "PRES", "DEWP", "RAIN",
                     "WSPM", "hour", "month")


def load_beijing_air_quality(path, station="Aotizhongxin", n=None, random_state=0,
                             log_target=True):
    """Hourly PM2.5 of one station of the Beijing Multi-Site Air-Quality data (UCI 501,
    S. Chen; CC BY 4.0) from a local folder, as a numeric regression set.

    Not shipped with the package: pass the folder holding
    ``PRSA_Data_<station>_20130301-20170228.csv[.xz]``. Rows with a missing value are
    dropped. Needs pandas (the extra ``pip install "rlscore[datasets]"``); without it
    an ImportError says so.

    Parameters
    ----------
    path : str or path-like
    station : str, default "Aotizhongxin"
    n : int or None
        Keep n rows drawn uniformly without replacement (seeded by ``random_state``).
    random_state : int, default 0
    log_target : bool, default True
        y = log(1 + PM2.5) (the raw values are heavily skewed).

    Returns
    -------
    X : numpy.ndarray, shape (n, 12)
        PM10, SO2, NO2, CO, O3, TEMP, PRES, DEWP, RAIN, WSPM, hour, month.
    y : numpy.ndarray, shape (n,)

    Notes
    -----
    Complexity: parses one station file (35,064 rows), O(rows).
    """
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError('load_beijing_air_quality needs pandas: pip install '
                          '"rlscore[datasets]" (or pip install pandas)') from exc
    base = f"PRSA_Data_{station}_20130301-20170228.csv"
    fname = _in_dir(path, [base, base + ".xz"], "Beijing air quality")
    df = pd.read_csv(fname)
    cols = list(_BEIJING_FEATURES) + ["PM2.5"]
    df = df[cols].dropna()
    if n is not None:
        n = min(int(n), len(df))
        idx = np.sort(np.random.default_rng(random_state).choice(len(df), n, replace=False))
        df = df.iloc[idx]
    X = df[list(_BEIJING_FEATURES)].to_numpy(dtype=np.float64)
    y = df["PM2.5"].to_numpy(dtype=np.float64)
    return X, (np.log1p(y) if log_target else y)
