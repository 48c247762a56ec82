"""The layering of the package holds: every import of an rlscore module points down (or
within its own package), and no module imports a private name of another package.

Layers, bottom first (docs/architecture.rst explains them):

0. ``rlscore._memory``, ``rlscore._validation``, ``rlscore._groups``, ``rlscore._io``, ``rlscore._archive``, ``rlscore._lapack_threads``,
   ``rlscore._progress``, ``rlscore._vec_trick``, ``rlscore._ext`` (peak-memory estimates,
   argument checks, query structure, atomic files, bounded archives, progress, the generalized vec
   trick, compiled kernels)
1. ``rlscore.kernel``, ``rlscore.measure``, ``rlscore.predictor`` (leaves)
2. ``rlscore.core``, ``rlscore.model_io`` (the algebra; model files)
3. the faces ``rlscore.learner``, ``rlscore.estimators``, ``rlscore.distributed``,
   ``rlscore.utilities``, ``rlscore.datasets`` (thin adapters; they do not import each other)
4. ``rlscore.cli`` (trains core models; of the faces it uses the readers and folds of
   ``rlscore.utilities`` and the plots, and ``rlscore.learner`` only in ``rlscore demo``),
   then ``rlscore`` itself and ``rlscore.__main__``.

Inside ``rlscore.core`` the families have an order of their own (``FAMILY``, bottom
first; docs/architecture.rst explains them): ``structure`` < ``optim`` < ``selection`` <
``rls`` < {``rankrls``, ``ranksvm``, ``kronecker``} < ``survival``. A family imports only families below
it -- never one above and never one of its own rank -- and reaches another family only
through its public namespace (``rlscore.core.rls``), never through a private module
(``rlscore.core.rls._solvers``).

Public and internal names: a package's (or a core family's) ``__all__`` is its documented
API (tests/test_public_api.py holds it equal to docs/api.rst). Names outside ``__all__``
may stay importable from the public namespace for the lower layers: ``rlscore.core`` and
the leaves (layers 1 and 2) may import them, and so may one core family from another, but
a face (layer 3 and up) imports only ``__all__`` names of another package or core family.

Within layer 1 the predictors may use the kernels (a kernel predictor evaluates its
kernel); within layer 3 the data-set loaders use the readers of ``rlscore.utilities``. The compiled modules of ``rlscore._ext`` carry private names by convention and
may be imported by any layer above them.
"""

import ast
import pathlib
import sys

import pytest

import rlscore

PKG = pathlib.Path(rlscore.__file__).resolve().parent

LAYER = {
    # layer 0 in the order its modules may use each other
    "_ext": 0.0, "_version": 0.0, "_memory": 0.05, "_validation": 0.1, "_io": 0.2, "_progress": 0.2,
    "_blocks": 0.2, "_lapack_threads": 0.2, "__version__": 0.2,
    "_groups": 0.3, "_archive": 0.3, "_vec_trick": 0.3,
    "kernel": 1, "measure": 1, "predictor": 1,
    "core": 2, "model_io": 2,
    "learner": 3, "estimators": 3, "distributed": 3, "utilities": 3, "datasets": 3,
    "plot": 3, "cli": 4, "": 5, "__main__": 5,
}
# the families of rlscore.core, bottom first (equal ranks never import each other)
FAMILY = {"structure": 0, "optim": 1, "selection": 2, "rls": 3, "nystrom": 4,
          "rankrls": 5, "ranksvm": 5, "kronecker": 5, "survival": 6, "hyper": 6}
# sideways imports allowed within one layer: (importer, imported)
ALLOWED_SIDEWAYS = {("predictor", "kernel"), ("datasets", "utilities")}
# from this layer up, a package imports only the __all__ names of another package
FACE_LAYER = 3


def _package_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        name = ".".join(rel.parts)
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        yield path, name


def _imports(path, name):
    """(line, imported module, imported names or None) for every rlscore import."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rlscore"):
                    yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                if not is_pkg:
                    base = base[:-1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module == "rlscore":        # from rlscore import measure, __version__
                for alias in node.names:
                    yield node.lineno, f"rlscore.{alias.name}", None
            elif module.startswith("rlscore"):
                yield node.lineno, module, [a.name for a in node.names]


def _family_violations(where, name, module):
    """Family-order faults of one import inside rlscore.core (or into it from outside)."""
    src, dst = name.split("."), module.split(".")
    if len(dst) < 3 or dst[1] != "core":
        return []
    src_fam = src[2] if len(src) > 2 and src[1] == "core" else None
    dst_fam = dst[2]
    out = []
    if dst_fam not in FAMILY:
        return [f"{where}: {module} is not a family of rlscore.core (FAMILY lists them)"]
    if src_fam is not None and src_fam not in FAMILY:
        return [f"{where}: {name} lives outside every family of rlscore.core"]
    if src_fam == dst_fam:
        return []
    if len(dst) > 3 and dst[3].startswith("_"):
        out.append(f"{where}: private module {module} imported from outside its family")
    if src_fam is not None:
        if FAMILY[dst_fam] > FAMILY[src_fam]:
            out.append(f"{where}: upward family import {src_fam} -> {dst_fam} ({module})")
        elif FAMILY[dst_fam] == FAMILY[src_fam]:
            out.append(f"{where}: sideways family import {src_fam} -> {dst_fam} ({module})")
    return out


def _exported(module):
    """The ``__all__`` of a public rlscore package, module or core family, read from its
    source (None for a private module, one without ``__all__`` or one not found)."""
    parts = module.split(".")
    if any(p.startswith("_") for p in parts[1:]):
        return None
    base = PKG.parent.joinpath(*parts)
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    if not path.exists():
        return None
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", "") == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return None


def _internal_name_violations(where, src, module, names):
    """A face (layer FACE_LAYER and up) importing a name that is not in the ``__all__`` of
    another package or of a core family: the internals are for rlscore.core and the
    leaves only."""
    dst = _package_of(module)
    if not names or dst == src or LAYER.get(src, 0) < FACE_LAYER:
        return []
    parts = module.split(".")
    if dst == "core" and len(parts) != 3:     # rlscore.core itself, or a private module
        return []
    exported = _exported(module)
    if exported is None:
        return []
    hidden = sorted(n for n in names if n not in exported and not n.startswith("_"))
    if not hidden:
        return []
    return [f"{where}: internal name(s) {hidden} of {module} (not in its __all__) "
            f"imported by the face {src}"]


def _violations():
    out = []
    for path, name in _modules():
        src = _package_of(name) if "." in name else ""
        if name == "rlscore.__main__":
            src = "__main__"
        for line, module, names in _imports(path, name):
            dst = _package_of(module)
            where = f"{path.relative_to(PKG.parent)}:{line}"
            out.extend(_family_violations(where, name, module))
            if dst == src:
                continue
            if src not in LAYER or dst not in LAYER:
                out.append(f"{where}: unknown package in {name} -> {module}")
                continue
            if LAYER[dst] > LAYER[src]:
                out.append(f"{where}: upward import {src} -> {dst} ({module})")
            elif LAYER[dst] == LAYER[src] and (src, dst) not in ALLOWED_SIDEWAYS:
                out.append(f"{where}: sideways import {src} -> {dst} ({module})")
            if names and dst != "_ext":
                private = [n for n in names if n.startswith("_")]
                if private:
                    out.append(f"{where}: private name(s) {private} of {module}")
            out.extend(_internal_name_violations(where, src, module, names))
    return out


def test_every_package_has_a_layer():
    packages = {p.name if p.is_dir() else p.stem for p in PKG.iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"}
    packages.discard("__init__")
    assert packages <= set(LAYER), sorted(packages - set(LAYER))


def test_imports_point_down_and_use_public_names():
    bad = _violations()
    assert not bad, "\n".join(bad)


def _fake_package(tmp_path, monkeypatch, files):
    """A scratch ``rlscore`` package of ``files`` (path relative to the package ->
    source; every folder gets an empty ``__init__.py`` unless given) that the
    checkers read instead of the real one."""
    fake = tmp_path / "rlscore"
    for rel, text in files.items():
        path = fake / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for d in [fake, *(p for p in fake.rglob("*") if p.is_dir())]:
        if not (d / "__init__.py").exists():
            (d / "__init__.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "PKG", fake)


def test_the_checker_sees_a_violation(tmp_path, monkeypatch):
    """The test itself can fail: an upward import in a scratch copy is reported."""
    _fake_package(tmp_path, monkeypatch,
                  {"kernel/__init__.py": "from rlscore.core.rls import _x\n"})
    bad = _violations()
    assert any("upward import kernel -> core" in b for b in bad)
    assert any("private name" in b for b in bad)


def test_every_core_module_is_in_a_family():
    core = PKG / "core"
    loose = sorted(p.name for p in core.glob("*.py") if p.name != "__init__.py")
    assert not loose, f"modules outside every family: {loose}"
    fams = sorted(p.name for p in core.iterdir() if (p / "__init__.py").exists())
    assert fams == sorted(FAMILY), (fams, sorted(FAMILY))


def test_the_checker_sees_family_violations(tmp_path, monkeypatch):
    """An upward, a sideways and a private-module import between families are reported."""
    _fake_package(tmp_path, monkeypatch, {
        "core/rls/_a.py": "from rlscore.core.rankrls import X\n",
        "core/rankrls/_b.py": "from rlscore.core.kronecker import Y\n",
        "core/kronecker/_c.py": "from rlscore.core.rls._a import Z\n"})
    bad = "\n".join(_violations())
    assert "upward family import rls -> rankrls" in bad
    assert "sideways family import rankrls -> kronecker" in bad
    assert "private module rlscore.core.rls._a imported from outside its family" in bad


def test_the_checker_sees_a_face_importing_a_core_internal(tmp_path, monkeypatch):
    """A face may import only __all__ names of a core family; a family may import the
    other names of a lower family; a leaf may import a kernel internal."""
    _fake_package(tmp_path, monkeypatch, {
        "core/rls/__init__.py":
            "from rlscore.core.rls._a import Public, Internal\n__all__ = ['Public']\n",
        "core/rankrls/_b.py": "from rlscore.core.rls import Public, Internal\n",
        "learner/x.py": "from rlscore.core.rls import Public, Internal\n",
        "kernel/__init__.py": "block = 1\n__all__ = []\n",
        "predictor/__init__.py": "from rlscore.kernel import block\n"})
    bad = [b for b in _violations() if "internal name" in b]
    assert len(bad) == 1 and "learner/x.py" in bad[0] and "['Internal']" in bad[0], bad


def _module_graph():
    """module -> the rlscore modules it imports (at any level of the file, functions
    included), packages' ``__init__`` left out: a package face importing its own modules
    is how a package is built, not a cycle."""
    names = {name for _, name in _modules()}
    graph = {}
    for path, name in _modules():
        if path.name == "__init__.py":
            continue
        targets = set()
        for _, module, imported in _imports(path, name):
            for cand in [module] + [f"{module}.{n}" for n in (imported or [])]:
                if cand in names and cand != name and not (
                        PKG.parent / (cand.replace(".", "/") + "/__init__.py")).exists():
                    targets.add(cand)
        graph[name] = targets
    return graph


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_between_modules():
    """No two modules need each other, not even through an import inside a function:
    one of them is the lower one (the package faces excepted)."""
    cycles = _cycles(_module_graph())
    assert not cycles, cycles


def test_the_cycle_check_sees_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


# the command line reaches the algebra through core, not through another face's classes
# (docs/architecture.rst, "The road from a face to the core"); ``rlscore demo`` shows the
# RLScore-style learner face and is the one exception
CLI_MAY_USE_THE_LEARNERS = {"rlscore.cli._demo"}


def _cli_learner_imports():
    out = []
    for path, name in _modules():
        if _package_of(name) != "cli" or name in CLI_MAY_USE_THE_LEARNERS:
            continue
        for line, module, _ in _imports(path, name):
            if module == "rlscore.learner" or module.startswith("rlscore.learner."):
                out.append(f"{path.relative_to(PKG.parent)}:{line}: {module}")
    return out


def test_the_command_line_trains_core_models_not_learners():
    bad = _cli_learner_imports()
    assert not bad, "\n".join(bad)


def test_the_checker_sees_the_command_line_importing_a_learner(tmp_path, monkeypatch):
    _fake_package(tmp_path, monkeypatch, {
        "cli/_fit.py": "def f():\n    from rlscore.learner import LinearRankSVM\n",
        "cli/_demo.py": "from rlscore.learner import RLS\n"})
    bad = _cli_learner_imports()
    assert len(bad) == 1 and "_fit.py:2: rlscore.learner" in bad[0], bad
