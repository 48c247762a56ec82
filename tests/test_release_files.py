"""The release files agree with each other: one version (meson.build's), one licence, one
list of supported Pythons."""

import importlib.metadata
import importlib.util
import pathlib
import re
import tomllib

import pytest

import rlscore

ROOT = pathlib.Path(__file__).resolve().parent.parent

if not (ROOT / "meson.build").exists():  # a copy of tests/ run against an installed wheel
    pytest.skip("needs the source tree", allow_module_level=True)

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _meson_version():
    text = (ROOT / "meson.build").read_text()
    return re.search(r"project\((?:[^)]|\n)*?version\s*:\s*'([^']+)'", text).group(1)


def test_the_version_has_one_home():
    version = _meson_version()
    assert "version" not in PYPROJECT["project"]
    assert "version" in PYPROJECT["project"]["dynamic"]
    assert rlscore.__version__ == version
    assert importlib.metadata.version("rlscore") == version
    cff = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^version:\s*(\S+)$", cff, re.M).group(1) == version
    changelog = (ROOT / "CHANGELOG.md").read_text()
    first = re.search(r"^## (\S+)", changelog, re.M).group(1)
    assert first == version, "the newest CHANGELOG.md entry is not this version"


def test_the_licence_is_declared_and_shipped_once():
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert re.search(r"^license:\s*MIT$", (ROOT / "CITATION.cff").read_text(), re.M)
    assert importlib.metadata.metadata("rlscore")["License-Expression"] == "MIT"


def test_the_supported_pythons_agree():
    spec = importlib.util.spec_from_file_location("release_check",
                                                  ROOT / ".ci" / "release_check.py")
    release_check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(release_check)
    checked = list(release_check.PYTHONS)
    oldest = PYPROJECT["project"]["requires-python"].removeprefix(">=")
    assert checked[0] == oldest
    classifiers = [c.rsplit(":: ", 1)[1] for c in PYPROJECT["project"]["classifiers"]
                   if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert classifiers == checked
    built = PYPROJECT["tool"]["cibuildwheel"]["build"]
    assert built == [f"cp{v.replace('.', '')}-*" for v in checked]
