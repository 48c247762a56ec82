"""Fuzz suite of crafted model files: every file is loaded in a child process and must
give a ModelFileError (or load into a model whose predictions are finite), never crash,
never a traceback of another kind, never more than 100 MB of memory for a small file.

The files are written as an attacker would: checksums recomputed after each edit, so the
validation behind the checksum is what is tested. A bigger random byte-flip run is
marked slow.
"""

import io
import json
import struct
import subprocess
import sys
import textwrap
import zipfile
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

from rlscore.learner import RLS
from rlscore.model_io import _digest, save_model
from rlscore.predictor import (KernelPairwisePredictor, LinearPairwisePredictor,
                               LinearPredictor)

_CHILD = textwrap.dedent(r"""
    import json, resource, sys, tracemalloc
    import numpy as np
    from rlscore.model_io import ModelFileError, load_model
    out = []
    for path in sys.argv[1:]:
        tracemalloc.start()
        rec = {"path": path}
        try:
            pred, meta = load_model(path, return_metadata=True)
        except ModelFileError as exc:
            rec["result"] = "refused"
            rec["message"] = str(exc)
        except Exception as exc:   # anything else is a defect
            rec["result"] = "other"
            rec["message"] = f"{type(exc).__name__}: {exc}"
        else:
            rec["result"] = "loaded"
            try:
                kind = meta["predictor"]
                rng = np.random.default_rng(0)
                if kind in ("LinearPredictor", "KernelPredictor"):
                    P = pred.predict(rng.standard_normal((3, meta["n_features"])))
                elif kind == "LinearPairwisePredictor":
                    d = pred.W.size
                    P = pred.predict(rng.standard_normal((2, 1)),
                                     rng.standard_normal((3, d)))
                else:
                    c1 = pred.inds_K1training
                    c2 = pred.inds_K2training
                    terms = isinstance(c1, list)
                    n1 = 1 + int(max(np.max(v) for v in (c1 if terms else [c1])))
                    n2 = 1 + int(max(np.max(v) for v in (c2 if terms else [c2])))
                    K1 = rng.standard_normal((2, n1))
                    K2 = rng.standard_normal((3, n2))
                    P = pred.predict([K1] * len(c1), [K2] * len(c1)) if terms \
                        else pred.predict(K1, K2)
                rec["finite"] = bool(np.all(np.isfinite(P)))
            except ValueError as exc:   # a clear refusal at predict time is fine
                rec["finite"] = True
                rec["predict_error"] = str(exc)
            except Exception as exc:
                rec["result"] = "other"
                rec["message"] = f"predict: {type(exc).__name__}: {exc}"
        rec["peak"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        out.append(rec)
    print(json.dumps(out))
""")


def _load_in_child(paths, timeout=120):
    """Load the files in one child process; returns its per-file records. A crash
    (signal) or a traceback of the child fails the test."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, *map(str, paths)],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"child died (status {proc.returncode}): {proc.stderr[-2000:]}")
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------- crafting


def _members(path):
    with np.load(path) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(arrays.pop("__metadata__").tobytes())
    return meta, arrays


def _sum(v):
    try:
        return _digest(np.asarray(v))
    except (TypeError, ValueError):   # object or structured arrays cannot be hashed so
        return "0" * 64


def _write(path, meta, arrays, resum=True, raw_meta=None):
    arrays = dict(arrays)
    if resum:
        meta["sha256"] = {k: _sum(v) for k, v in arrays.items()}
    blob = raw_meta if raw_meta is not None else json.dumps(meta).encode()
    arrays["__metadata__"] = np.frombuffer(blob, dtype=np.uint8)
    np.savez_compressed(path, **arrays)


def _bases(tmp):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((12, 4))
    y = rng.standard_normal(12)
    files = {}
    save_model(LinearPredictor(rng.standard_normal((4, 2)), rng.standard_normal(2)),
               tmp / "lin.npz", feature_indices=[0, 2, 5, 9], n_file_features=12)
    save_model(RLS(X, y, kernel="GaussianKernel", gamma=0.5), tmp / "gau.npz")
    save_model(RLS(sp.csr_matrix(np.where(X > 0.3, X, 0)), y, kernel="PolynomialKernel",
                   degree=2, gamma=0.5, coef0=1.0), tmp / "poly.npz")
    i1, i2 = rng.integers(0, 5, 9), rng.integers(0, 4, 9)
    save_model(KernelPairwisePredictor(rng.standard_normal(9), [i1, i1], [i2, i2],
                                       [1.0, 0.5]), tmp / "kpair.npz")
    save_model(LinearPairwisePredictor(rng.standard_normal((3, 2))), tmp / "lpair.npz")
    for name in ("lin", "gau", "poly", "kpair", "lpair"):
        files[name] = tmp / f"{name}.npz"
    return files


def _edit(cases, tmp, base, label, fn, **kw):
    meta, arrays = _members(base)
    fn(meta, arrays)
    path = tmp / f"case{len(cases):03d}.npz"
    _write(path, meta, arrays, **kw)
    cases.append((label, path))


def _set(key, value):
    def fn(meta, arrays):
        arrays[key] = value
    return fn


def _meta(path, value):
    def fn(meta, arrays):
        node = meta
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return fn


def _drop(key):
    def fn(meta, arrays):
        arrays.pop(key)
    return fn


def _semantic_cases(tmp, bases):
    cases = []
    lin, gau, poly = bases["lin"], bases["gau"], bases["poly"]
    kpair, lpair = bases["kpair"], bases["lpair"]
    nan, inf = float("nan"), float("inf")
    # --- linear predictor arrays
    for label, W in [("W NaN", np.array([[nan, 1], [1, 1], [1, 1], [1, 1]])),
                     ("W inf", np.full((4, 2), inf)), ("W empty", np.empty((0, 2))),
                     ("W 3-D", np.ones((4, 2, 1))), ("W 0-D", np.array(1.0)),
                     ("W int", np.ones((4, 2), dtype=np.int64)),
                     ("W rows != n_features", np.ones((5, 2))),
                     ("W outputs != n_outputs", np.ones((4, 3))),
                     ("W float32", np.ones((4, 2), dtype=np.float32)),
                     ("W complex", np.ones((4, 2), dtype=complex)),
                     ("W bool", np.ones((4, 2), dtype=bool)),
                     ("W object", np.array([[1, 2]] * 4, dtype=object)),
                     ("W structured", np.zeros(4, dtype=[("a", "f8"), ("b", "f8")])),
                     ("W strings", np.array(["a", "b"]))]:
        _edit(cases, tmp, lin, label, _set("W", W))
    _edit(cases, tmp, lin, "b inf", _set("b", np.array([inf, 0.0])))
    _edit(cases, tmp, lin, "b wrong length", _set("b", np.ones(5)))
    _edit(cases, tmp, lin, "b 2-D", _set("b", np.ones((2, 2))))
    _edit(cases, tmp, lin, "missing b", _drop("b"))
    _edit(cases, tmp, lin, "extra member", _set("evil", np.ones(2)))
    _edit(cases, tmp, lin, "feature_indices out of order",
          _set("feature_indices", np.array([0, 5, 2, 9])))
    _edit(cases, tmp, lin, "feature_indices negative",
          _set("feature_indices", np.array([-1, 2, 5, 9])))
    _edit(cases, tmp, lin, "feature_indices beyond n_file_features",
          _set("feature_indices", np.array([0, 2, 5, 99])))
    _edit(cases, tmp, lin, "feature_indices wrong length",
          _set("feature_indices", np.array([0, 2])))
    _edit(cases, tmp, lin, "feature_indices float",
          _set("feature_indices", np.array([0.0, 2, 5, 9])))
    # --- metadata types
    for label, path, value in [
            ("format_version string", ("format_version",), "1"),
            ("format_version bool", ("format_version",), True),
            ("format_version float", ("format_version",), 1.0),
            ("format_version 0", ("format_version",), 0),
            ("format_version huge", ("format_version",), 10**30),
            ("predictor unknown", ("predictor",), "os.system"),
            ("predictor list", ("predictor",), ["LinearPredictor"]),
            ("predictor null", ("predictor",), None),
            ("n_features -1", ("n_features",), -1),
            ("n_features string", ("n_features",), "4"),
            ("n_features huge", ("n_features",), 10**40),
            ("n_outputs 0", ("n_outputs",), 0),
            ("n_outputs list", ("n_outputs",), [2]),
            ("n_file_features 1", ("n_file_features",), 1),
            ("layout list", ("layout",), [1, 2]),
            ("kernel string on linear", ("kernel",), "GaussianKernel"),
            ("kernel gaussian on linear", ("kernel",),
             {"name": "GaussianKernel", "params": {}}),
            ("regparam string", ("regparam",), "1"),
            ("learner number", ("learner",), 3),
            ("format number", ("format",), 1)]:
        _edit(cases, tmp, lin, label, _meta(path, value))
    _edit(cases, tmp, lin, "sha256 list", _meta(("sha256",), []), resum=False)

    cases.append(("sha256 not a dict", tmp / f"case{len(cases):03d}.npz"))
    m, a = _members(lin)
    m["sha256"] = [1, 2]
    _write(cases[-1][1], m, a, resum=False)
    # raw metadata: not JSON, NaN literal, deep nesting, not an object, huge, not UTF-8
    for label, raw in [("metadata not JSON", b"{nope"),
                       ("metadata NaN literal", b'{"format": NaN}'),
                       ("metadata deep nesting", b"[" * 100000 + b"]" * 100000),
                       ("metadata a list", b"[1, 2]"),
                       ("metadata not UTF-8", b"\xff\xfe{}"),
                       ("metadata huge", b'{"format": "' + b"x" * (2 << 20) + b'"}')]:
        m, a = _members(lin)
        path = tmp / f"case{len(cases):03d}.npz"
        _write(path, m, a, raw_meta=raw)
        cases.append((label, path))

    def deep_info(meta, arrays):
        v = 1
        for _ in range(200):
            v = {"a": v}
        meta["info"] = v
    _edit(cases, tmp, lin, "info nested 200 deep", deep_info)

    m, a = _members(lin)
    a["__metadata__"] = np.frombuffer(json.dumps(m).encode(), dtype=np.uint8).reshape(1, -1)
    path = tmp / f"case{len(cases):03d}.npz"
    np.savez(path, **a)
    cases.append(("metadata 2-D", path))
    m, a = _members(lin)
    a["__metadata__"] = np.frombuffer(json.dumps(m).encode(), dtype=np.uint8).astype(
        np.int64)
    path = tmp / f"case{len(cases):03d}.npz"
    np.savez(path, **a)
    cases.append(("metadata int64", path))
    # --- kernel predictor (dense Gaussian)
    for label, path, value in [
            ("gamma NaN", ("kernel", "params", "gamma"), None),
            ("gamma negative", ("kernel", "params", "gamma"), -1.0),
            ("gamma zero", ("kernel", "params", "gamma"), 0),
            ("gamma string", ("kernel", "params", "gamma"), "0.5"),
            ("gamma huge int", ("kernel", "params", "gamma"), 10**400),
            ("gamma list", ("kernel", "params", "gamma"), [0.5]),
            ("unknown kernel param", ("kernel", "params", "shell"), "rm -rf"),
            ("kernel name module", ("kernel", "name"), "os.system"),
            ("kernel name RsetKernel", ("kernel", "name"), "RsetKernel"),
            ("kernel params list", ("kernel", "params"), [1]),
            ("kernel null", ("kernel",), None),
            ("layout basis unknown", ("layout", "basis"), "coo"),
            ("layout basis csr without members", ("layout", "basis"), "csr"),
            ("n_features mismatch", ("n_features",), 7)]:
        _edit(cases, tmp, gau, label, _meta(path, value))
    _edit(cases, tmp, gau, "A NaN", _set("A", np.full(12, np.nan)))
    _edit(cases, tmp, gau, "A wrong length", _set("A", np.ones(11)))
    _edit(cases, tmp, gau, "A 3-D", _set("A", np.ones((12, 1, 1))))
    _edit(cases, tmp, gau, "basis inf", _set("basis", np.full((12, 4), np.inf)))
    _edit(cases, tmp, gau, "basis 1-D", _set("basis", np.ones(12)))
    _edit(cases, tmp, gau, "basis empty", _set("basis", np.ones((12, 0))))
    _edit(cases, tmp, gau, "basis huge values", _set("basis", np.full((12, 4), 1e200)))
    # --- kernel predictor (CSR polynomial)
    for label, path, value in [
            ("degree 10**6", ("kernel", "params", "degree"), 10**6),
            ("degree 2.5", ("kernel", "params", "degree"), 2.5),
            ("degree 0", ("kernel", "params", "degree"), 0),
            ("degree true", ("kernel", "params", "degree"), True),
            ("coef0 string", ("kernel", "params", "coef0"), "nan"),
            ("poly gamma -1", ("kernel", "params", "gamma"), -1)]:
        _edit(cases, tmp, poly, label, _meta(path, value))
    m, a = _members(poly)
    nnz = a["basis.data"].size
    ncols = int(a["basis.shape"][1])
    ind = a["basis.indices"].copy()
    bad = ind.copy(); bad[0] = ncols + 1000
    _edit(cases, tmp, poly, "CSR index beyond columns", _set("basis.indices", bad))
    bad = ind.copy(); bad[-1] = -1
    _edit(cases, tmp, poly, "CSR index negative", _set("basis.indices", bad))
    bad = ind.copy(); bad[0] = 2**40
    _edit(cases, tmp, poly, "CSR index 2**40", _set("basis.indices", bad))
    ptr = a["basis.indptr"].copy()
    bad = ptr.copy(); bad[3], bad[4] = bad[4] + 1, bad[3]
    _edit(cases, tmp, poly, "indptr not monotone", _set("basis.indptr", bad))
    bad = ptr.copy(); bad[-1] = nnz + 50
    _edit(cases, tmp, poly, "indptr beyond nnz", _set("basis.indptr", bad))
    bad = ptr.copy(); bad[0] = 1
    _edit(cases, tmp, poly, "indptr start 1", _set("basis.indptr", bad))
    _edit(cases, tmp, poly, "indptr short", _set("basis.indptr", ptr[:-2]))
    _edit(cases, tmp, poly, "indices shorter than data", _set("basis.indices", ind[:-1]))
    _edit(cases, tmp, poly, "data NaN", _set("basis.data", np.full(nnz, np.nan)))
    _edit(cases, tmp, poly, "shape 3 entries", _set("basis.shape", np.array([12, 4, 1])))
    _edit(cases, tmp, poly, "shape negative", _set("basis.shape", np.array([-12, 4])))
    _edit(cases, tmp, poly, "shape huge", _set("basis.shape", np.array([2**40, 2**40])))
    _edit(cases, tmp, poly, "shape rows mismatch", _set("basis.shape", np.array([13, 4])))
    _edit(cases, tmp, poly, "shape float", _set("basis.shape", np.array([12.0, 4.0])))
    _edit(cases, tmp, poly, "missing indptr", _drop("basis.indptr"))
    # --- pairwise predictors
    for label, path, value in [
            ("inds1 terms string", ("layout", "inds1"), "2"),
            ("inds1 terms 3", ("layout", "inds1"), 3),
            ("inds1 terms huge", ("layout", "inds1"), 10**9),
            ("inds1 terms negative", ("layout", "inds1"), -1),
            ("inds2 absent", ("layout", "inds2"), None)]:
        _edit(cases, tmp, kpair, label, _meta(path, value))
    _edit(cases, tmp, kpair, "pair index negative", _set("inds1.0", -np.ones(9, np.int64)))
    _edit(cases, tmp, kpair, "pair index 2**40",
          _set("inds2.1", np.full(9, 2**40, np.int64)))
    _edit(cases, tmp, kpair, "pair inds wrong length", _set("inds1.1", np.zeros(4, np.int64)))
    _edit(cases, tmp, kpair, "pair A NaN", _set("A", np.full(9, np.nan)))
    _edit(cases, tmp, kpair, "pair A 2-D", _set("A", np.ones((3, 3))))
    _edit(cases, tmp, kpair, "weights wrong length", _set("weights", np.ones(5)))
    _edit(cases, tmp, kpair, "weights inf", _set("weights", np.array([1.0, np.inf])))
    for label, value in [("shape2d wrong product", [4, 4]), ("shape2d string", "3x2"),
                         ("shape2d negative", [-3, -2]), ("shape2d 3 entries", [3, 2, 1])]:
        _edit(cases, tmp, lpair, label, _meta(("layout", "shape2d"), value))
    _edit(cases, tmp, lpair, "linear pair W inf", _set("W", np.full(6, np.inf)))
    _edit(cases, tmp, lpair, "linear pair W 2-D", _set("W", np.ones((2, 3))))
    return cases


def _zip_with(path, members, declared=None):
    """Write a zip of raw members {name: bytes} (deflated); ``declared`` overrides the
    uncompressed size written in the directory for each name."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    if declared:
        raw = bytearray(path.read_bytes())
        for name, size in declared.items():
            enc = name.encode()
            for sig, off in ((b"PK\x01\x02", 24), (b"PK\x03\x04", 22)):
                pos = 0
                while True:
                    pos = raw.find(sig, pos)
                    if pos < 0:
                        break
                    nlen_off = 28 if sig == b"PK\x03\x04" else 28
                    nlen = struct.unpack_from("<H", raw, pos + nlen_off)[0]
                    start = pos + (30 if sig == b"PK\x03\x04" else 46)
                    if bytes(raw[start:start + nlen]) == enc:
                        struct.pack_into("<I", raw, pos + off, size)
                    pos += 4
        path.write_bytes(bytes(raw))


def _npy_bytes(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=False)
    return buf.getvalue()


def _npy_header_only(shape, dtype="<f8"):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"shape": shape, "fortran_order": False,
                                               "descr": dtype})
    return buf.getvalue()


def _bomb(path, n_bytes, name="W.npy"):
    """A deflated member of ``n_bytes`` zeros (an honest directory entry, ~1000:1). The
    deflate stream is one 4 MiB block of zeros compressed once (full flush: no reference
    to earlier data) and repeated, then an empty final block."""
    header = _npy_header_only((n_bytes // 8,))
    block = 4 << 20
    n_bytes -= n_bytes % block
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = comp.compress(header) + comp.flush(zlib.Z_FULL_FLUSH)
    zero = bytes(block)
    body = comp.compress(zero) + comp.flush(zlib.Z_FULL_FLUSH)
    data = head + body * (n_bytes // block) + comp.flush()
    crc = zlib.crc32(header)
    for _ in range(n_bytes // block):
        crc = zlib.crc32(zero, crc)
    size = len(header) + n_bytes
    fn = name.encode()
    local = struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(data),
                        size, len(fn), 0) + fn
    central = struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc,
                          len(data), size, len(fn), 0, 0, 0, 0, 0, 0) + fn
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, 1, 1, len(central),
                      len(local) + len(data), 0)
    path.write_bytes(local + data + central + end)


def test_bomb_helper_is_a_valid_zip(tmp_path):
    """The crafted bomb is a genuine archive: zipfile inflates it to the declared size
    with a matching CRC (so the loader's refusal is the budget, not a broken file)."""
    p = tmp_path / "b.npz"
    _bomb(p, 16 << 20)
    with zipfile.ZipFile(p) as zf:
        info = zf.infolist()[0]
        with zf.open(info) as fh:
            n = 0
            while chunk := fh.read(1 << 20):
                n += len(chunk)
    assert n == info.file_size == (16 << 20) + len(_npy_header_only((2 << 20,)))


def _archive_cases(tmp, bases):
    cases = []
    raw = bases["gau"].read_bytes()
    for frac in (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99):
        p = tmp / f"trunc{frac}.npz"
        p.write_bytes(raw[:int(len(raw) * frac)])
        cases.append((f"truncated at {frac:.0%}", p))
    p = tmp / "bomb.npz"
    _bomb(p, 200 << 20)
    cases.append(("zip bomb 200 MB of zeros", p))
    p = tmp / "liar.npz"
    _zip_with(p, {"W.npy": _npy_bytes(np.zeros(1 << 20))}, declared={"W.npy": 1000})
    cases.append(("member inflates beyond its declared size", p))
    p = tmp / "header_huge.npz"
    _zip_with(p, {"W.npy": _npy_header_only((10**12,)) + bytes(64)})
    cases.append(("npy header declares 8 TB", p))
    p = tmp / "header_bad.npz"
    _zip_with(p, {"W.npy": b"\x93NUMPY\x01\x00\x20\x00{'descr': __import__('os')}  \n"})
    cases.append(("npy header with code", p))
    p = tmp / "header_obj.npz"
    _zip_with(p, {"W.npy": _npy_header_only((3,), "|O") + bytes(24)})
    cases.append(("npy header object dtype", p))
    p = tmp / "notnpy.npz"
    _zip_with(p, {"W.npy": b"hello world"})
    cases.append(("member not npy", p))
    p = tmp / "dirname.npz"
    _zip_with(p, {"../W.npy": _npy_bytes(np.ones(2))})
    cases.append(("member with a path", p))
    p = tmp / "many.npz"
    _zip_with(p, {f"m{i}.npy": _npy_bytes(np.ones(1)) for i in range(5000)})
    cases.append(("5000 members", p))
    p = tmp / "bz2.npz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_BZIP2) as zf:
        zf.writestr("W.npy", _npy_bytes(np.ones(4)))
    cases.append(("bzip2 member", p))
    p = tmp / "empty.npz"
    p.write_bytes(b"")
    cases.append(("empty file", p))
    p = tmp / "text.npz"
    p.write_text("1 1:0.5\n")
    cases.append(("text file", p))
    p = tmp / "pickle.npz"
    np.savez(p, __metadata__=np.array([{"a": 1}], dtype=object))
    cases.append(("pickled metadata", p))
    # CRC corruption in the middle of the data of a stored member
    p = tmp / "crc.npz"
    m, a = _members(bases["lin"])
    m["sha256"] = {k: _digest(v) for k, v in a.items()}
    a["__metadata__"] = np.frombuffer(json.dumps(m).encode(), dtype=np.uint8)
    np.savez(p, **a)
    b = bytearray(p.read_bytes())
    b[len(b) // 3] ^= 0xFF
    p.write_bytes(bytes(b))
    cases.append(("flipped byte in a stored member", p))
    return cases


@pytest.fixture(scope="module")
def fuzz_results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    bases = _bases(tmp)
    cases = _semantic_cases(tmp, bases) + _archive_cases(tmp, bases)
    base_cases = [(f"valid {k}", v) for k, v in bases.items()]
    recs = _load_in_child([p for _, p in base_cases + cases])
    return base_cases, cases, recs


def test_valid_files_load_and_predict(fuzz_results):
    base_cases, _, recs = fuzz_results
    for (label, _), rec in zip(base_cases, recs):
        assert rec["result"] == "loaded" and rec["finite"], (label, rec)
        assert "predict_error" not in rec, (label, rec)


def test_every_crafted_file_is_refused(fuzz_results):
    base_cases, cases, recs = fuzz_results
    recs = recs[len(base_cases):]
    assert len(cases) >= 130
    bad = [(label, rec) for (label, _), rec in zip(cases, recs)
           if rec["result"] != "refused"]
    assert not bad, bad
    for (label, path), rec in zip(cases, recs):
        # one line naming the file
        assert str(path) in rec["message"] and "\n" not in rec["message"], (label, rec)
        assert rec["peak"] < 100 << 20, (label, rec["peak"])


def test_messages_name_the_member_and_reason(fuzz_results):
    base_cases, cases, recs = fuzz_results
    msg = {label: rec["message"] for (label, _), rec in
           zip(cases, recs[len(base_cases):])}
    assert "'basis.indices'" in msg["CSR index beyond columns"]
    assert "holds index" in msg["CSR index beyond columns"]
    assert "outside 0.." in msg["CSR index beyond columns"]
    assert "'basis.indptr'" in msg["indptr not monotone"]
    assert "'W'" in msg["W NaN"] and "NaN" in msg["W NaN"]
    assert "'W'" in msg["W 3-D"] and "dimensions" in msg["W 3-D"]
    assert "gamma" in msg["gamma negative"]
    assert "degree" in msg["degree 10**6"]
    assert "budget" in msg["zip bomb 200 MB of zeros"]
    assert "'W'" in msg["member inflates beyond its declared size"]
    assert "dtype" in msg["npy header object dtype"]


def test_one_megabyte_files_stay_under_100_mb(tmp_path):
    """A 1 MB zip bomb and a 1 MB file of incompressible data, each in a fresh child:
    peak RSS growth under 100 MB."""
    bomb = tmp_path / "bomb1mb.npz"
    _bomb(bomb, 1 << 30)            # 1 GiB of zeros deflates to about 1 MB
    assert 0.5e6 < bomb.stat().st_size < 2e6
    rng = np.random.default_rng(0)
    honest = tmp_path / "honest1mb.npz"
    m, a = _members(_bases(tmp_path)["lin"])
    _write(honest, m, {"W": rng.standard_normal((4, 2)), "b": np.zeros(2),
                       "feature_indices": a["feature_indices"],
                       "pad": rng.standard_normal(125_000)})
    code = textwrap.dedent("""
        import resource, sys
        from rlscore.model_io import ModelFileError, load_model
        for path in sys.argv[1:]:
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            try:
                load_model(path)
            except ModelFileError:
                pass
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print((after - before) * 1024)
    """)
    # one child: the high-water mark only grows, so each delta bounds that file's peak
    out = subprocess.run([sys.executable, "-c", code, str(bomb), str(honest)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    for name, grow in zip(("bomb", "honest"), out.stdout.split()):
        assert int(grow) < 100 << 20, (name, int(grow))


@pytest.mark.slow
def test_random_byte_flips(tmp_path):
    """2000 files with 1-8 random bytes changed: refused or loaded with finite
    predictions; none crashes the child or escapes as another exception."""
    bases = _bases(tmp_path)
    rng = np.random.default_rng(7)
    paths = []
    for k in range(2000):
        src = list(bases.values())[k % len(bases)]
        b = bytearray(src.read_bytes())
        for _ in range(rng.integers(1, 9)):
            b[rng.integers(len(b))] = rng.integers(256)
        p = tmp_path / f"flip{k}.npz"
        p.write_bytes(bytes(b))
        paths.append(p)
    recs = []
    for i in range(0, len(paths), 250):
        recs += _load_in_child(paths[i:i + 250], timeout=600)
    assert all(r["result"] in ("refused", "loaded") for r in recs), \
        [r for r in recs if r["result"] not in ("refused", "loaded")][:3]
    assert all(r.get("finite", True) for r in recs)
