"""Contextually weighted bag-of-words: hand-computed examples, variants, bad input,
learners."""

import warnings

import numpy as np
import pytest

from rlscore.kernel import ContextWeightedBowKernel, ContextWeightedBowVectorizer

DOC = (["the", "gene", "x", "binds", "the", "dna"], 2)


def dense(v, docs):
    return v.transform(docs).toarray()


def test_hand_computed_weighted_example():
    # context of "x": the (dist 2), gene (1) | binds (1), the (2), dna (3)
    # weights dist^-1 + 0.5: 1 -> 1.5, 2 -> 1.0, 3 -> 1/3 + 0.5
    v = ContextWeightedBowVectorizer(exponent=1.0, offset=0.5).fit([DOC])
    assert v.vocabulary_ == {"the": 0, "gene": 1, "binds": 2, "dna": 3}
    raw = np.array([2.0, 1.5, 1.5, 1 / 3 + 0.5])
    np.testing.assert_allclose(dense(v, [DOC]), [raw / np.sqrt(9 + 7 / 36)], rtol=1e-14)
    u = ContextWeightedBowVectorizer(exponent=1.0, offset=0.5, normalize=False).fit([DOC])
    np.testing.assert_allclose(dense(u, [DOC]), [raw], rtol=1e-14)


def test_window_stopwords_span_target_and_plain_counts():
    v = ContextWeightedBowVectorizer(exponent=1.0, offset=0.5, span=1).fit([DOC])
    assert v.vocabulary_ == {"gene": 0, "binds": 1}
    np.testing.assert_allclose(dense(v, [DOC]), [[2 ** -0.5, 2 ** -0.5]], rtol=1e-14)
    # stop words are removed before distances are counted: dna moves to dist 2
    v = ContextWeightedBowVectorizer(exponent=1.0, offset=0.5, stop_words={"the"},
                                     normalize=False).fit([DOC])
    np.testing.assert_allclose(dense(v, [DOC]), [[1.5, 1.5, 1.0]], rtol=1e-14)
    # a two-token target span: distances from its ends
    v = ContextWeightedBowVectorizer(exponent=1.0, offset=0.5, normalize=False)
    np.testing.assert_allclose(v.fit_transform([(DOC[0], (1, 3))]).toarray(),
                               [[2.5, 1.5, 1 / 3 + 0.5]], rtol=1e-14)
    # exponent = offset = 0 is the plain bag of words (counts) in the window
    v = ContextWeightedBowVectorizer(span=2, normalize=False).fit([DOC])
    np.testing.assert_allclose(dense(v, [DOC]), [[2.0, 1.0, 1.0]])
    # lowercasing and a stemmer hook
    v = ContextWeightedBowVectorizer(lowercase=True, stemmer=lambda w: w[:3],
                                     normalize=False).fit([(["Genes", "x", "GENE"], 1)])
    assert v.vocabulary_ == {"gen": 0}
    np.testing.assert_allclose(dense(v, [(["Genes", "x", "GENE"], 1)]), [[2.0]])


def test_vocabulary_from_training_only():
    v = ContextWeightedBowVectorizer(exponent=1.0).fit([DOC])
    test = [(["foo", "x", "dna", "bar"], 1), (["foo", "x"], 1)]
    F = dense(v, test)
    np.testing.assert_allclose(F, [[0, 0, 0, 1.0], [0, 0, 0, 0]])


def test_matches_brute_force_on_random_documents():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(12)]
    docs = []
    for _ in range(20):
        n = int(rng.integers(2, 30))
        docs.append(([str(w) for w in rng.choice(words, n)], int(rng.integers(0, n))))
    lam, beta, span = 1.3, 0.05, 6
    v = ContextWeightedBowVectorizer(exponent=lam, offset=beta, span=span).fit(docs)
    F = dense(v, docs)
    for r, (toks, t) in enumerate(docs):
        ref = np.zeros(len(v.vocabulary_))
        for j, w in enumerate(toks):
            d = abs(j - t)
            if 0 < d <= span:
                ref[v.vocabulary_[w]] += d ** -lam + beta
        np.testing.assert_allclose(F[r], ref / np.linalg.norm(ref), rtol=1e-13)


def test_bad_documents():
    v = ContextWeightedBowVectorizer()
    with pytest.raises(ValueError, match=r"documents\[1\] has no target position"):
        v.fit([DOC, (["a", "b"], None)])
    with pytest.raises(ValueError, match="is not a position"):
        v.fit([(["a", "b"], 2)])
    with pytest.raises(ValueError, match="is not a position"):
        v.fit([(["a", "b"], (1, 1))])
    with pytest.raises(ValueError, match="holds no documents"):
        v.fit([])
    with pytest.raises(ValueError, match="not a str"):
        v.fit([("a b", 0)])
    with pytest.raises(ValueError, match="not a \\(tokens, target\\) pair"):
        v.fit([["a", "b", "c"]])
    with pytest.raises(ValueError, match="not fitted"):
        ContextWeightedBowVectorizer().transform([DOC])
    with pytest.raises(ValueError, match="exponent"):
        ContextWeightedBowVectorizer(exponent=-1)
    with pytest.raises(ValueError, match="offset"):
        ContextWeightedBowVectorizer(offset=np.nan)
    with pytest.raises(ValueError, match="span"):
        ContextWeightedBowVectorizer(span=0)


def _docs(seed, m):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(30)]
    docs = []
    for _ in range(m):
        n = int(rng.integers(3, 25))
        docs.append(([str(w) for w in rng.choice(words, n)], int(rng.integers(0, n))))
    return docs, rng.standard_normal(m)


def test_kernel_and_learners_equal_explicit_features():
    from rlscore.learner import RLS
    docs, y = _docs(1, 40)
    test, _ = _docs(2, 9)
    params = dict(exponent=1.5, offset=0.025)
    k = ContextWeightedBowKernel(docs, **params)
    F = ContextWeightedBowVectorizer(**params).fit(docs)
    np.testing.assert_allclose(k.getKM(test), (F.transform(test) @ F.transform(docs).T)
                               .toarray(), rtol=1e-13)
    # dual kernel model == linear model on the sparse features == precomputed kernel
    got = RLS(docs, y, regparam=0.5, kernel="ContextWeightedBowKernel", **params)
    lin = RLS(F.transform(docs), y, regparam=0.5, bias=0.0)
    pre = RLS(k.getKM(docs), y, regparam=0.5, kernel="PrecomputedKernel")
    p = got.predictor.predict(test)
    np.testing.assert_allclose(p, lin.predictor.predict(F.transform(test)), rtol=1e-8,
                               atol=1e-10)
    np.testing.assert_allclose(p, pre.predictor.predict(k.getKM(test)), rtol=1e-9,
                               atol=1e-10)
    # reduced set on basis documents (vocabulary of the basis)
    basis = docs[:12]
    kb = ContextWeightedBowKernel(basis, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = RLS(docs, y, regparam=0.5, kernel="ContextWeightedBowKernel",
                  basis_vectors=basis, **params)
        pre = RLS(kb.getKM(docs), y, regparam=0.5, kernel="PrecomputedKernel",
                  basis_vectors=kb.getKM(basis))
    np.testing.assert_allclose(got.predictor.predict(test),
                               pre.predictor.predict(kb.getKM(test)), rtol=1e-8, atol=1e-9)
