"""The wheel-content check of .ci/release_check.py finds what a wheel lacks.

The release check builds real wheels (minutes each); these tests run its comparison on
listings: a synthetic source tree with a complete and with incomplete wheel listings,
the real source tree, and (slow) the files meson itself would install from a copy of
the source tree whose install lists lost one entry.
"""

import importlib.util
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "release_check.py"

if not SCRIPT.exists():  # a copy of tests/ run against an installed wheel
    pytest.skip("needs the source tree's .ci/release_check.py", allow_module_level=True)


@pytest.fixture(scope="module")
def rc():
    spec = importlib.util.spec_from_file_location("release_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOURCE = {
    "rlscore/__init__.py": "",
    "rlscore/_version.py.in": "__version__ = '@VERSION@'\n",
    "rlscore/sub/__init__.py": "",
    "rlscore/sub/_mod.py": "",
    "rlscore/sub/__pycache__/_mod.cpython-313.pyc": "",
    "rlscore/datasets/data/sample.txt": "1 1:0.5\n",
    "rlscore/_ext/__init__.py": "",
    "rlscore/_ext/meson.build": "",
    "rlscore/_ext/_fast.pyx": "",
    "rlscore/_ext/_fast.pxd": "",
}
WHEEL = [
    "rlscore/__init__.py",
    "rlscore/_version.py",
    "rlscore/sub/__init__.py",
    "rlscore/sub/_mod.py",
    "rlscore/datasets/data/sample.txt",
    "rlscore/_ext/__init__.py",
    "rlscore/_ext/_fast.cpython-313-x86_64-linux-gnu.so",
    "rlscore-1.0.dist-info/METADATA",
    "rlscore.libs/libgomp-0123abcd.so.1.0.0",
]


@pytest.fixture
def src(tmp_path):
    for rel, text in SOURCE.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_a_complete_wheel_lacks_nothing(rc, src):
    files, extensions = rc.expected_contents(src)
    assert files == {n for n in WHEEL[:6]}
    assert extensions == {"rlscore/_ext/_fast"}
    assert rc.missing_from_wheel(src, WHEEL) == []
    windows = [n.replace(".cpython-313-x86_64-linux-gnu.so", ".cp313-win_amd64.pyd")
               for n in WHEEL]
    assert rc.missing_from_wheel(src, windows) == []


@pytest.mark.parametrize("dropped, reported", [
    ("rlscore/sub/_mod.py", "rlscore/sub/_mod.py"),                      # a module
    ("rlscore/datasets/data/sample.txt", "rlscore/datasets/data/sample.txt"),  # data
    ("rlscore/_version.py", "rlscore/_version.py"),                      # generated
    ("rlscore/_ext/_fast.cpython-313-x86_64-linux-gnu.so",               # compiled
     "rlscore/_ext/_fast.<extension module>"),
])
def test_each_kind_of_missing_file_is_reported(rc, src, dropped, reported):
    listing = [n for n in WHEEL if n != dropped]
    assert rc.missing_from_wheel(src, listing) == [reported]


def test_a_source_file_added_later_is_expected(rc, src):
    (src / "rlscore" / "sub" / "new.py").write_text("")
    (src / "rlscore" / "_ext" / "_other.pyx").write_text("")
    assert rc.missing_from_wheel(src, WHEEL) == [
        "rlscore/sub/new.py", "rlscore/_ext/_other.<extension module>"]


def test_the_real_tree_expects_every_module_data_file_and_extension(rc):
    files, extensions = rc.expected_contents(ROOT)
    pyx = {p.relative_to(ROOT).with_suffix("").as_posix()
           for p in (ROOT / "rlscore").rglob("*.pyx")}
    assert extensions == pyx and "rlscore/_ext/_lpo" in extensions
    assert {"rlscore/__init__.py", "rlscore/_version.py", "rlscore/_ext/__init__.py",
            "rlscore/datasets/data/heart_scale.txt", "rlscore/cli/__init__.py"} <= files
    assert not [f for f in files if f.endswith((".pyx", ".pxd", ".in", "meson.build"))]


def _meson_installs(tree, build):
    """Wheel paths meson would install from ``tree`` (configured, not compiled): the
    install plan's files, with each install_subdir expanded under its excludes."""
    cmd = [sys.executable, "-m", "mesonbuild.mesonmain"]
    subprocess.run(cmd + ["setup", str(build), str(tree)], check=True, capture_output=True)
    plan = json.loads(subprocess.run(cmd + ["introspect", str(build), "--install-plan"],
                                     check=True, capture_output=True, text=True).stdout)

    def wheel_path(dest):
        return dest.split("}/", 1)[1]          # "{py_platlib}/rlscore/x" -> "rlscore/x"

    names = set()
    for section, entries in plan.items():
        for source, entry in entries.items():
            if section != "install_subdirs":
                names.add(wheel_path(entry["destination"]))
                continue
            base = pathlib.Path(source)
            for path in base.rglob("*"):
                rel = path.relative_to(base)
                parents = {p.as_posix() for p in rel.parents}
                if (path.is_file() and rel.as_posix() not in entry["exclude_files"]
                        and not parents & set(entry["exclude_dirs"])):
                    names.add(wheel_path(entry["destination"]) + "/" + rel.as_posix())
    return sorted(names)


@pytest.mark.slow
@pytest.mark.parametrize("edit, reported", [
    (None, []),
    (("rlscore/_ext/meson.build", "  '_svmlight',", ""),
     ["rlscore/_ext/_svmlight.<extension module>"]),
    (("meson.build", "exclude_files: ['_version.py.in'",
      "exclude_files: ['_version.py.in', 'datasets/data/heart_scale.txt'"),
     ["rlscore/datasets/data/heart_scale.txt"]),
    (("meson.build", "exclude_directories: ['_ext', '__pycache__'",
      "exclude_directories: ['_ext', '__pycache__', 'kernel'"),
     sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "rlscore" / "kernel").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts)),
])
def test_an_entry_dropped_from_mesons_install_lists_is_found(rc, tmp_path, edit, reported):
    tree = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.c")
    shutil.copytree(ROOT / "rlscore", tree / "rlscore", ignore=ignore)
    for name in ("meson.build", "meson.options", "pyproject.toml"):
        shutil.copy2(ROOT / name, tree / name)
    if edit:
        path, old, new = edit
        text = (tree / path).read_text()
        assert old in text
        (tree / path).write_text(text.replace(old, new, 1))
    names = _meson_installs(tree, tmp_path / "build")
    assert rc.missing_from_wheel(tree, names) == reported


@pytest.mark.parametrize("default, slow, expected", [(5, 0, 5), (0, 5, 5), (1, 0, 1), (0, 0, 0)])
def test_ci_run_stops_on_a_failed_or_empty_pytest(tmp_path, default, slow, expected):
    """.ci/run with stub pip/pytest/python: a pytest exit status (5: no tests collected)
    is CI's status, and the release check runs only after both pytest runs passed."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    calls = tmp_path / "calls"
    stubs = {
        "pip": "exit 0",
        "pytest": f'[ "$*" = "-m slow" ] && exit {slow}; exit {default}',
        "python": f'echo "$*" >> {calls}; exit 0',
    }
    for name, body in stubs.items():
        (bin_ / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_ / name).chmod(0o755)
    env = {"PATH": f"{bin_}:/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run(["bash", str(ROOT / ".ci" / "run")], env=env, capture_output=True)
    assert proc.returncode == expected
    ran = calls.read_text().split("\n")[0] if calls.exists() else None
    assert ran == (".ci/release_check.py" if expected == 0 else None)
