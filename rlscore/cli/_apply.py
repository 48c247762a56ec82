"""``rlscore predict`` and ``rlscore evaluate``: a model file applied to a data file
read the way the model was trained (its features, its zero base, its CSV columns, its
query normalization), chunk by chunk where the output allows it."""

import json
import sys

import numpy as np

from rlscore.cli._base import DataError, UsageError, _fmt, _json_value
from rlscore.cli._data import (ModelRows, input_table, iter_file, predict_projected,
                               project_features, read_file, read_for_model, unseen_factor)
from rlscore.cli._options import _usage, parse_measures
from rlscore.cli._select import note


def _interval_lines(args, pred, meta, chunks):
    """Text blocks of lines 'prediction lower upper' (per output) from the stored
    hold-out models, for the (projected rows, unseen) ``chunks`` of the data file
    (:func:`_projected_chunks`); the file and the model's metadata are checked before
    the first block. Peak memory O(chunk x models), whatever the file's length."""
    from fractions import Fraction

    from rlscore.core.rls import METHODS, IntervalModel
    if "interval_arrays" not in meta:
        raise DataError(f"{args.model}: this model file holds no prediction-interval data; "
                        f"train it with 'rlscore fit --learner rls --intervals jackknife' "
                        f"(or 'cv')")
    level = args.interval
    if not 0.0 < level < 1.0:
        raise UsageError(f"--interval {level}: the coverage level must lie strictly "
                         f"between 0 and 1, e.g. 0.9")
    im = IntervalModel.from_arrays(pred, meta["intervals"], meta["interval_arrays"])
    method = args.interval_method or ("jackknife+" if im.kind == "loo" else "cv+")
    if METHODS[method] != im.kind:
        raise UsageError(f"--interval-method {method} needs "
                         f"{'leave-one-out' if METHODS[method] == 'loo' else 'fold'} "
                         f"models; this model file stores the other kind (fit with "
                         f"--intervals {'jackknife' if METHODS[method] == 'loo' else 'cv'})")
    kernel = meta.get("kernel") or {}
    gamma = (kernel.get("params") or {}).get("gamma")
    # alpha = 1 - LEVEL in decimal (1 - 0.9 is 0.09999999999999998 in floating point)
    alpha = float(1 - Fraction(repr(level)))
    step = im.chunk_rows()

    def blocks():
        for Xc, unseen, ids in chunks:
            factor = unseen_factor(unseen, kernel.get("name"), gamma)
            for s in range(0, Xc.shape[0], step):
                P = im.outputs(Xc[s:s + step])
                if factor is not None:
                    P *= factor[s:s + step, None]
                res = im.intervals_from_outputs(P, alpha, method)
                yield "".join(_id_prefix(ids, s + t)
                              + "\t".join(_fmt(a[t, j]) for j in range(im.n_outputs)
                                          for a in res) + "\n"
                              for t in range(P.shape[0]))
    return blocks()


def _id_prefix(ids, i):
    """'ID<TAB>' of row i of a chunk read with ``--id-column``, else ''."""
    return "" if ids is None else ids[i] + "\t"


def _model_and_rows(args):
    """The model's predictions for the data file read the way the model was trained,
    and the rows."""
    pred, meta, rows = _load_for_data(args)
    kernel = meta.get("kernel") or {}
    P = predict_projected(pred, rows.X, rows.unseen, kernel.get("name"),
                          (kernel.get("params") or {}).get("gamma"),
                          meta.get("n_outputs", 1))
    return P, rows


def _prediction_file_and_rows(args):
    """``evaluate DATA_FILE --predictions FILE``: the scores of another program (one
    number per line, or one row of numbers per line for several label columns) and the
    labelled rows of the data file, in the same order."""
    if args.data is not None:
        raise UsageError("evaluate takes MODEL_FILE DATA_FILE or DATA_FILE --predictions "
                         "FILE, not both a model and --predictions")
    args.data = args.model
    _, y, qids, _ = read_file(args.data, table=input_table(args, args.data))
    n_cols = 1 if y.ndim == 1 else y.shape[1]
    try:
        with open(args.predictions) as fh:
            P = np.loadtxt(fh, dtype=np.float64, ndmin=2)
    except ValueError as exc:
        raise DataError(f"{args.predictions}: not a file of numbers ({exc})") from None
    if P.shape != (y.shape[0], n_cols):
        raise DataError(f"{args.predictions}: {P.shape[0]} rows of {P.shape[1]} numbers "
                        f"for the {y.shape[0]} rows and {n_cols} label column(s) of "
                        f"{args.data}")
    if not np.all(np.isfinite(P)):
        raise DataError(f"{args.predictions}: NaN or infinite predictions")
    from rlscore._groups import QueryGroups
    groups = None if qids is None else QueryGroups.from_qids(qids, name="qid")
    return (P[:, 0] if n_cols == 1 else P), ModelRows(None, None, y, qids, groups)


def _load_model(args):
    """(predictor, metadata, (feature_indices, n_model_features, zero_based))."""
    from rlscore.model_io import load_model
    pred, meta = load_model(args.model, return_metadata=True)
    if meta["predictor"] not in ("LinearPredictor", "KernelPredictor"):
        raise DataError(f"{args.model}: a {meta['predictor']} predicts for pairs of "
                        f"objects; use the Python API (rlscore.model_io.load_model)")
    fi = meta.get("feature_indices")
    if fi is None:
        fi = np.arange(meta["n_features"])
    n_model = int(meta.get("n_file_features") or meta["n_features"])
    # models written before the zero_based key read 1-based files only
    zero_based = bool((meta.get("info") or {}).get("zero_based", False))
    # a CSV/TSV model reads its data files' columns by name (False: an svmlight model)
    model_input = (meta.get("info") or {}).get("input", False)
    query_norm = _query_norm(args, meta)
    table = input_table(args, args.data, model_input,
                        labelled=args.command != "predict",
                        need_qids=query_norm is not None)
    if table is not None:
        table.feature_names = list(model_input["feature_names"])
    return pred, meta, (fi, n_model, zero_based, query_norm, table)


def _query_norm(args, meta):
    """The model's ``fit --query-norm`` (None when it has none); DataError for a value
    the command does not know."""
    from rlscore._groups import QueryGroups
    method = (meta.get("info") or {}).get("query_norm")
    if method is not None and method not in QueryGroups.NORMALIZATIONS:
        raise DataError(f"{args.model}: unknown query normalization {method!r} in the "
                        f"model file (expected one of "
                        f"{', '.join(QueryGroups.NORMALIZATIONS)})")
    return method


def _read_model_rows(args, model_columns):
    """The data file read the way the model was trained (:func:`read_for_model`)."""
    fi, n_model, zero_based, query_norm, table = model_columns
    return read_for_model(args.data, fi, n_model, zero_based, args.ignore_extra_features,
                          query_norm, table)


def _load_for_data(args):
    """(predictor, metadata, rows of the data file projected onto the model)."""
    pred, meta, model_columns = _load_model(args)
    return pred, meta, _read_model_rows(args, model_columns)


def _projected_chunks(args, model_columns):
    """(rows projected onto the model's features, unseen) for each chunk of the data
    file (:func:`iter_file`): peak memory independent of the file's length, the same
    rows as reading the whole file. A model trained with ``--query-norm`` needs every
    row of a query together: one chunk, the whole file."""
    fi, n_model, zero_based, query_norm, table = model_columns
    if query_norm is not None:
        if table is not None and table.layout.id_column is not None:
            raise UsageError("--id-column with a --query-norm model is not supported "
                             "yet (the file is read whole, without its ids)")
        rows = _read_model_rows(args, model_columns)
        yield rows.X, rows.unseen, None
        return
    for X, _, ids in iter_file(args.data, zero_based, table):
        yield project_features(X, fi, n_model, args.data, args.ignore_extra_features,
                               zero_based) + (ids,)


def _cmd_predict(args):
    pred, meta, model_columns = _load_model(args)
    if getattr(args, "format", "scores") == "trec":
        return _emit(args, _trec_lines(args, pred, meta, model_columns))
    if getattr(args, "interval", None) is not None:
        return _emit(args, _interval_lines(args, pred, meta,
                                           _projected_chunks(args, model_columns)))
    kernel = meta.get("kernel") or {}
    gamma = (kernel.get("params") or {}).get("gamma")

    def lines():
        # streamed: one chunk of the file at a time (peak memory independent of its
        # length); the same predictions as reading the whole file
        for Xc, unseen, ids in _projected_chunks(args, model_columns):
            P = predict_projected(pred, Xc, unseen, kernel.get("name"), gamma,
                                  meta.get("n_outputs", 1))
            if P.ndim == 1:
                yield "".join(_id_prefix(ids, i) + _fmt(v) + "\n"
                              for i, v in enumerate(P))
            else:
                yield "".join(_id_prefix(ids, i) + "\t".join(_fmt(v) for v in row)
                              + "\n" for i, row in enumerate(P))
    return _emit(args, lines())


def _trec_lines(args, pred, meta, model_columns):
    """``predict --format trec``: the lines ``qid Q0 docid rank score tag`` of a TREC
    run, query by query in the file's order of first appearance, each query's
    documents by decreasing score (tied scores in file order, the rule of
    :meth:`rlscore._groups.QueryGroups.rank_order` and of the measures), rank 1-based.
    Docids are the file's ``#docid = ...`` comments, or the 1-based row number when it
    has none (a note says so). The whole file is read: a query is ranked with all its
    rows. O(file size + m log m)."""
    from rlscore.cli._data import _file_errors
    from rlscore.utilities.reader import read_docids
    if getattr(args, "interval", None) is not None:
        raise UsageError("--format trec writes ranked documents; --interval writes "
                         "prediction intervals: give one of them")
    tag = args.run_tag
    if not (0 < len(tag) <= 64 and all(33 <= ord(c) <= 126 for c in tag)):
        raise UsageError(f"--run-tag {tag!r}: 1 to 64 printable ASCII characters, no "
                         f"blanks")
    if model_columns[4] is not None:
        raise UsageError("--format trec reads the '#docid = ...' comments of svmlight/"
                         "LETOR files; it does not take CSV/TSV files yet")
    rows = _read_model_rows(args, model_columns)
    if rows.groups is None:
        raise DataError(f"{args.data}: --format trec ranks the documents of each query, "
                        f"but the file has no qid: fields")
    kernel = meta.get("kernel") or {}
    P = predict_projected(pred, rows.X, rows.unseen, kernel.get("name"),
                          (kernel.get("params") or {}).get("gamma"),
                          meta.get("n_outputs", 1))
    if P.ndim != 1:
        raise UsageError(f"--format trec writes one score per document; the model "
                         f"predicts {P.shape[1]} outputs")
    with _file_errors(args.data):
        try:
            docids = read_docids(args.data)
        except ValueError as exc:
            raise DataError(str(exc)) from None
    if docids is None:
        note(f"{args.data} has no '#docid = ...' comments: the run names each document "
             f"by its row number in the file (1, 2, ...)")
        docids = [str(i + 1) for i in range(P.shape[0])]
    groups = rows.groups
    order = groups.rank_order(P)
    ranks = np.arange(order.size) - groups.starts[groups.codes[order]] + 1
    ids = [str(q) for q in groups.ids]

    def blocks(step=65536):
        for s in range(0, order.size, step):
            yield "".join(f"{ids[groups.codes[i]]} Q0 {docids[i]} {r} {_fmt(P[i])} {tag}\n"
                          for i, r in zip(order[s:s + step].tolist(),
                                          ranks[s:s + step].tolist()))
    return blocks()


def _emit(args, lines):
    """Write ``lines`` (a list of lines, or an iterable of text blocks that end with a
    newline) to stdout or to ``--output``."""
    blocks = ([line + "\n" for line in lines] if isinstance(lines, list) else lines)
    if args.output in (None, "-"):
        for block in blocks:
            sys.stdout.write(block)
    else:
        from rlscore._io import atomic_write
        with atomic_write(args.output, "w") as fh:
            for block in blocks:
                fh.write(block)
    return 0


def _cmd_evaluate(args):
    from rlscore._groups import QueryGroups
    from rlscore.measure import UndefinedPerformance, short_query_warnings_once
    if args.measure is None:
        args.measure = "ndcg@10,map,cindex"
    try:                # --convention letor3: the 3.0 rules of ndcg, p and map
        specs = [s.under(args.convention) for s in _usage(parse_measures, args.measure)]
    except ValueError as exc:
        raise UsageError(f"--measure: {exc}") from None
    if args.predictions is None and args.data is None:
        raise UsageError("evaluate needs MODEL_FILE DATA_FILE (or DATA_FILE "
                         "--predictions FILE)")
    P, rows = (_prediction_file_and_rows(args) if args.predictions is not None
               else _model_and_rows(args))
    y = rows.y
    if P.shape != y.shape:
        raise DataError(f"{args.data}: the file has {1 if y.ndim == 1 else y.shape[1]} "
                        f"label columns, the model predicts "
                        f"{1 if P.ndim == 1 else P.shape[1]}")
    result = {}
    per_query = None
    undefined = []
    # NDCG@k's note on queries shorter than k (rlscore.measure): once per cutoff
    with short_query_warnings_once():
        for s in specs:
            try:
                result[s.name] = float(s(y, P, rows.groups))
            except UndefinedPerformance as exc:
                # reported as undefined (null in JSON); the others are still reported
                result[s.name] = None
                undefined.append(f"{s.name} is undefined here ({exc.value})")
        if len(undefined) == len(specs):
            raise DataError(f"{args.data}: " + "; ".join(undefined))
        for text in undefined:
            note(text)
        if args.per_query:
            groups = (rows.groups if rows.groups is not None
                      else QueryGroups.single(y.shape[0]))
            per_query = {s.name: _per_query_or_nan(s, y, P, groups) for s in specs}
            ids = [str(i) for i in groups.ids] if rows.groups is not None else ["all"]
    if args.format == "json":
        out = {k: _json_value(v) for k, v in result.items()}
        if per_query is not None:
            out["per_query"] = [dict({"qid": q}, **{k: _json_value(v[i])
                                                   for k, v in per_query.items()})
                                for i, q in enumerate(ids)]
        sys.stdout.write(json.dumps(out) + "\n")
        return 0
    lines = []
    if per_query is not None:
        lines.append("\t".join(["qid"] + list(per_query)))
        for i, q in enumerate(ids):
            lines.append("\t".join([q] + [_fmt(v[i]) for v in per_query.values()]))
        lines.append("")
    lines += [f"{k} {'undefined' if v is None else _fmt(v)}" for k, v in result.items()]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _per_query_or_nan(spec, y, P, groups):
    """The measure of every query (nan where it is undefined), all nan when the
    measure is undefined on the whole file."""
    from rlscore.measure import UndefinedPerformance
    try:
        return spec.per_query_values(y, P, groups)
    except UndefinedPerformance:
        return np.full(groups.n_groups, np.nan)
