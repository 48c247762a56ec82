"""The public surface is what docs/api.rst documents, no more and no less.

For every public package (the faces, the leaves, the public submodules of
``rlscore.utilities`` and every family of ``rlscore.core``) the names in ``__all__`` equal
the names that docs/api.rst documents for that module: ``.. automodule::`` with a
``:members:`` list (an empty list means the module's whole ``__all__``, as autodoc reads
it), ``.. autoclass::``, ``.. autofunction::``. A name documented in a submodule counts
for the package when the package exposes the same object (``rlscore.learner.RLS`` is
``rlscore.learner.rls.RLS``); a submodule listed in ``__all__`` counts when it has an
``automodule`` of its own. Names that other families need stay importable from a family's
namespace without being in ``__all__`` (tests/test_layers.py allows that inside
``rlscore.core`` only; docs/architecture.rst, "Public and internal names").
"""

import importlib
import pathlib
import re
import types

import pytest

import rlscore

ROOT = pathlib.Path(__file__).resolve().parents[1]
API = ROOT / "docs" / "api.rst"
# the package as imported (the source tree under an editable install, site-packages in
# the release check, which runs the tests without the source tree and without docs/)
PKG = pathlib.Path(rlscore.__file__).resolve().parent

FAMILIES = sorted(p.name for p in (PKG / "core").iterdir()
                  if (p / "__init__.py").exists())
UTILITIES = sorted(p.stem for p in (PKG / "utilities").glob("*.py")
                   if not p.stem.startswith("_"))
PACKAGES = (["rlscore.learner", "rlscore.estimators", "rlscore.measure", "rlscore.kernel",
             "rlscore.predictor", "rlscore.utilities"]
            + [f"rlscore.utilities.{m}" for m in UTILITIES]
            + ["rlscore.datasets", "rlscore.distributed", "rlscore.model_io", "rlscore.cli",
               "rlscore.plot"]
            + [f"rlscore.core.{f}" for f in FAMILIES])

_DIRECTIVE = re.compile(r"^\.\. (automodule|autoclass|autofunction|autoexception|autodata)::"
                        r"\s*(\S+)\s*$")
_OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")


def parse_api(text):
    """module -> set of documented names ("*" for an empty ``:members:``), and the set
    of modules with an ``automodule`` of their own."""
    documented, modules = {}, set()
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _DIRECTIVE.match(lines[i])
        i += 1
        if not m:
            continue
        kind, target = m.groups()
        options, last = {}, None
        while i < len(lines) and lines[i].startswith("   ") and lines[i].strip():
            o = _OPTION.match(lines[i])
            if o:
                last = o.group(1)
                options[last] = o.group(2)
            elif last is not None:
                options[last] += " " + lines[i].strip()
            i += 1
        if kind == "automodule":
            modules.add(target)
            names = documented.setdefault(target, set())
            if "members" in options:
                listed = {n.strip() for n in options["members"].split(",") if n.strip()}
                names |= listed or {"*"}
        else:
            module, _, name = target.rpartition(".")
            documented.setdefault(module, set()).add(name)
    return documented, modules


def documented_names(package, documented, modules):
    """The names docs/api.rst documents for ``package`` (see the module docstring)."""
    mod = importlib.import_module(package)
    out = set()
    for where, names in documented.items():
        if where != package and not where.startswith(package + "."):
            continue
        if "*" in names:
            names = (names - {"*"}) | set(getattr(importlib.import_module(where), "__all__", ()))
        if where == package:
            out |= names
            continue
        sub = importlib.import_module(where)
        out |= {n for n in names
                if n in vars(mod) and vars(mod)[n] is getattr(sub, n, object())}
    for n in getattr(mod, "__all__", ()):
        if isinstance(getattr(mod, n, None), types.ModuleType) and f"{package}.{n}" in modules:
            out.add(n)
    return out


@pytest.fixture(scope="module")
def api():
    if not API.exists():
        pytest.skip("needs the source tree's docs/api.rst")
    return parse_api(API.read_text())


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_what_the_api_page_documents(package, api):
    mod = importlib.import_module(package)
    assert hasattr(mod, "__all__"), f"{package} has no __all__"
    listed = list(mod.__all__)
    assert len(listed) == len(set(listed)), f"{package}.__all__ repeats a name"
    missing = [n for n in listed if not hasattr(mod, n)]
    assert not missing, f"{package}.__all__ names what it does not define: {missing}"
    doc = documented_names(package, *api)
    assert sorted(set(listed) - doc) == [], (
        f"{package}.__all__ lists names docs/api.rst does not document")
    assert sorted(doc - set(listed)) == [], (
        f"docs/api.rst documents names {package}.__all__ does not list")


def test_every_core_family_and_public_package_is_covered():
    import rlscore.core
    assert len(FAMILIES) >= 10 and all(
        importlib.import_module(f"rlscore.core.{f}") for f in FAMILIES)
    faces = {p.name for p in PKG.iterdir()
             if (p / "__init__.py").exists() and not p.name.startswith("_")}
    assert {f"rlscore.{f}" for f in faces - {"core"}} <= set(PACKAGES), rlscore.core


def test_the_parser_reads_the_directives():
    """The parser itself can fail: members lists over several lines, empty members,
    autoclass and autofunction."""
    text = (".. automodule:: a.b\n   :members: x, y,\n             z\n\n"
            ".. automodule:: a.c\n   :members:\n\n"
            ".. automodule:: a.d\n   :no-members:\n\n"
            ".. autoclass:: a.e.K\n   :members: fit\n\n"
            ".. autofunction:: a.e.f\n")
    documented, modules = parse_api(text)
    assert documented == {"a.b": {"x", "y", "z"}, "a.c": {"*"}, "a.d": set(),
                          "a.e": {"K", "f"}}
    assert modules == {"a.b", "a.c", "a.d"}


def test_the_check_sees_an_undocumented_name(api, monkeypatch):
    """An extra name in a family's __all__ fails the comparison."""
    import rlscore.core.optim as optim
    monkeypatch.setattr(optim, "__all__", list(optim.__all__) + ["symmetric_from_triangle"])
    with pytest.raises(AssertionError, match="does not document"):
        test_all_is_what_the_api_page_documents("rlscore.core.optim", api)
