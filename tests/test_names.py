"""One spelling per concept in each face, as the table of docs/names.rst lists it.

The table is parsed from the page; the signatures of every class (constructor and
public methods, inherited ones from rlscore included) and function in the ``__all__`` of
``rlscore.learner`` and ``rlscore.estimators`` are scanned with ``inspect.signature``. A
parameter is taken for a concept when its name is one of the concept's known spellings
(``SPELLINGS``, the names other libraries and our own faces use for it), or, for the
miscoverage rate, when it is the argument after ``X`` of a ``predict_interval`` (by
its name when the test data are not one ``X``). It must
then be a spelling the table lists for that face; no spelling may stand for two
concepts in one face. Deprecated aliases (default ``rlscore._validation.NOT_GIVEN``) are
accepted one release and skipped.
"""

import importlib
import inspect
import pathlib
import re
import warnings

import numpy as np
import pytest

from rlscore._validation import NOT_GIVEN

ROOT = pathlib.Path(__file__).resolve().parents[1]
NAMES = ROOT / "docs" / "names.rst"
FACES = {"rlscore.learner": 1, "rlscore.estimators": 2}     # column of the table

# every spelling of a concept the test knows of (ours and other libraries')
SPELLINGS = {
    "regularization parameter": {"regparam", "alpha", "lambda_", "lam", "reg", "C",
                                 "regularization"},
    "grid of it": {"regparams", "alphas", "lambdas", "regparam_grid", "grid"},
    "query id of each row": {"qids", "qid", "groups", "query_id", "query_ids",
                             "queries"},
    "measure selected on": {"measure", "scoring", "metric", "score_func"},
    "miscoverage of intervals": {"miscoverage", "coverage", "confidence",
                                 "miscoverage_rate"},
    "cap on iterations": {"maxiter", "max_iter", "n_iter", "max_iterations", "maxit"},
    "convergence tolerance": {"tol", "rtol", "tolerance", "eps"},
    "random seed": {"seed", "random_state", "rng", "random_seed"},
}
INTERVAL_METHODS = ("predict_interval",)


def parse_table(text):
    """concept -> (learner spellings, estimator spellings) from the first simple table."""
    lines = text.splitlines()
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"=+(  +=+)+", line)]
    top, mid, bottom = borders[:3]
    spans = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[top])]
    rows = {}
    current = None
    for line in lines[mid + 1:bottom]:
        cells = [line[a:(b if k < len(spans) - 1 else None)].strip()
                 for k, (a, b) in enumerate(spans)]
        if cells[0]:
            current = cells[0]
            rows[current] = [cells[1], cells[2]]
        elif current is not None:
            rows[current][0] += " " + cells[1]
            rows[current][1] += " " + cells[2]
    return {c: tuple(set(re.findall(r"``(\w+)=?``", cell)) for cell in cells)
            for c, cells in rows.items()}


def _callables(face):
    """(where, callable) for the constructors and public methods of the face's API."""
    mod = importlib.import_module(face)
    for name in mod.__all__:
        obj = getattr(mod, name)
        if inspect.isclass(obj):
            for attr, member in inspect.getmembers(obj, inspect.isfunction):
                if attr != "__init__" and attr.startswith("_"):
                    continue
                if not member.__module__.startswith("rlscore"):
                    continue
                yield f"{face}.{name}.{attr}", attr, member
        elif callable(obj):
            yield f"{face}.{name}", name, obj


def face_spellings(face):
    """(where, parameter, concept) of every parameter of the face taken for a concept."""
    known = {}
    for concept, names in SPELLINGS.items():
        for n in names:
            known.setdefault(n, set()).add(concept)
    out = []
    for where, attr, func in _callables(face):
        try:
            params = list(inspect.signature(func).parameters.values())
        except (TypeError, ValueError):
            continue
        params = [p for p in params if p.name not in ("self", "cls")
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        # the argument after X of a predict_interval is its miscoverage; a method
        # whose test data are not one X (the learner KronRLS: K1pred, K2pred, ...) is
        # read by the names alone
        positional = attr in INTERVAL_METHODS and params and params[0].name == "X"
        for k, p in enumerate(params):
            if p.default is NOT_GIVEN:
                continue                        # a deprecated alias, one release
            if positional and k == 1:
                out.append((where, p.name, "miscoverage of intervals"))
                continue
            for concept in known.get(p.name, ()):
                if positional and concept == "miscoverage of intervals":
                    continue
                out.append((where, p.name, concept))
    return out


def check_face(face, table):
    col = FACES[face] - 1
    bad = []
    for where, name, concept in face_spellings(face):
        listed = table[concept][col]
        if name not in listed:
            bad.append(f"{where}: {name!r} for {concept!r}; docs/names.rst lists "
                       f"{sorted(listed)}")
    return bad


@pytest.fixture(scope="module")
def table():
    if not NAMES.exists():
        pytest.skip("needs the source tree's docs/names.rst")
    return parse_table(NAMES.read_text())


def test_the_table_has_every_scanned_concept(table):
    assert set(SPELLINGS) <= set(table), sorted(set(SPELLINGS) - set(table))
    for concept in SPELLINGS:
        for col in (0, 1):
            assert table[concept][col] <= SPELLINGS[concept], (concept, table[concept])


def test_one_concept_per_spelling_in_each_face(table):
    for col in (0, 1):
        seen = {}
        for concept in SPELLINGS:
            for name in table[concept][col]:
                assert seen.setdefault(name, concept) == concept, (
                    f"{name!r} stands for {seen[name]!r} and {concept!r}")


@pytest.mark.parametrize("face", sorted(FACES))
def test_faces_spell_each_concept_as_the_table_lists(face, table):
    bad = check_face(face, table)
    assert not bad, "\n".join(bad)


def test_the_scan_sees_a_spelling_the_table_does_not_list(table, monkeypatch):
    """The check can fail: a regularization spelled ``lam`` in a learner is reported,
    and so is an interval method whose miscoverage is called ``alpha``."""
    import rlscore.learner as learner

    def fake(X, lam=1.0):
        return X

    class Fake:
        def predict_interval(self, X, alpha=0.1):
            return X

    Fake.predict_interval.__module__ = "rlscore.learner.fake"
    fake.__module__ = "rlscore.learner.fake"
    monkeypatch.setattr(learner, "fake", fake, raising=False)
    monkeypatch.setattr(learner, "Fake", Fake, raising=False)
    monkeypatch.setattr(learner, "__all__", list(learner.__all__) + ["fake", "Fake"])
    bad = "\n".join(check_face("rlscore.learner", table))
    assert "fake: 'lam' for 'regularization parameter'" in bad
    assert "Fake.predict_interval: 'alpha' for 'miscoverage of intervals'" in bad


def test_the_parser_reads_continuation_lines():
    text = ("===  =====  =====\nc    l      e\n===  =====  =====\n"
            "a    ``x``  ``y``\n     ``z``\nb    ``u``  ``v=``\n===  =====  =====\n")
    assert parse_table(text) == {"a": ({"x", "z"}, {"y"}), "b": ({"u"}, {"v"})}


# -- the deprecated alias and the patience ---------------------------------------------

def _data(m=20, d=3):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((m, d))
    return X, X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(m), X[:4] + 0.5


def test_interval_miscoverage_and_its_deprecated_alias_agree():
    """``miscoverage=`` and the old ``alpha=`` give the same intervals (the alias with a
    FutureWarning); both at once is refused; a bad value names the keyword used."""
    from rlscore.estimators import KernelRLS
    from rlscore.learner import RLS
    X, y, Xt = _data()
    for model in (RLS(X, y, regparam=1.0), KernelRLS(alpha=1.0).fit(X, y)):
        new = model.predict_interval(Xt, miscoverage=0.2)
        with pytest.warns(FutureWarning, match="miscoverage"):
            old = model.predict_interval(Xt, alpha=0.2)
        positional = model.predict_interval(Xt, 0.2)
        for a, b, c in zip(new, old, positional):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, c)
        with pytest.raises(TypeError, match="miscoverage"):
            model.predict_interval(Xt, miscoverage=0.2, alpha=0.3)
        with pytest.raises(ValueError, match="miscoverage"):
            model.predict_interval(Xt, miscoverage=1.5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(ValueError, match="alpha"):
                model.predict_interval(Xt, alpha=1.5)


def test_early_stopping_patience_has_its_own_name():
    """EarlyStopCB keeps RLScore's ``maxiter`` keyword and attribute, which read and set
    the patience; the CG learner's ``maxiter`` stays its cap on iterations."""
    from rlscore.learner.cg_rls import CGRLS, EarlyStopCB
    X, y, _ = _data(60, 8)
    cb = EarlyStopCB(X[40:], y[40:], maxiter=3)
    assert cb.patience == 3 and cb.maxiter == 3
    cb.maxiter = 4
    assert cb.patience == 4
    learner = CGRLS(X[:40], y[:40], regparam=1.0, maxiter=2)
    assert learner.n_iter <= 2
