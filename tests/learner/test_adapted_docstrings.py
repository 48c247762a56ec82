"""The learners that subclass a core model build their docstrings from the core's
(``rlscore.learner._common.adapted_doc``). Python 3.13 strips the common indentation
of docstrings when it compiles them, earlier versions keep it; the splice must not
depend on that (on 3.13 ``import rlscore.learner`` failed once with "substring not
found" while cutting KronSVM's parameters out of the core docstring)."""

import textwrap

import pytest

from rlscore.core.kronecker import KronRLSModel, SampledKronRLSModel, SampledKronSVMModel
from rlscore.learner import CGKronRLS, KronRLS, KronSVM
from rlscore.learner._common import adapted_doc, clean_doc

pytestmark = pytest.mark.quick


def _as_313(doc):
    """A docstring as Python 3.13 compiles it (the first line kept, the common
    indentation of the others stripped)."""
    first, rest = doc.split("\n", 1)
    return first + "\n" + textwrap.dedent(rest)


@pytest.mark.parametrize("learner,core", [(KronSVM, SampledKronSVMModel),
                                          (KronRLS, KronRLSModel),
                                          (CGKronRLS, SampledKronRLSModel)])
def test_the_face_replaces_the_core_intro_and_documents_verbose(learner, core):
    doc = learner.__doc__
    assert "The core object behind" in clean_doc(core.__doc__)
    assert "The core object behind" not in doc
    assert "Keyword arguments only" in doc
    assert doc.count("\nverbose : bool, default False (keyword)\n") == 1
    assert doc.index("verbose : bool") < doc.index("\nAttributes\n")


def test_kronsvm_documents_rlscore_keywords_not_the_core_parameters():
    doc = KronSVM.__doc__
    assert "maxiter : int, default 100" in doc and "inneriter : int or None" in doc
    assert "kernels : (K1, K2)" not in doc


@pytest.mark.parametrize("core", [SampledKronSVMModel, KronRLSModel])
def test_the_splice_is_the_same_on_every_python(core):
    intro = ("    The core object behind :class:`rlscore.learner.KronSVM` (RLScore's keyword\n"
             "    interface) and :class:`rlscore.estimators.PairwiseSVM`.\n")
    assert clean_doc(core.__doc__) == clean_doc(_as_313(core.__doc__))
    assert adapted_doc(core.__doc__, intro, "    X.\n") == \
        adapted_doc(_as_313(core.__doc__), intro, "    X.\n")
