"""Contextually weighted bag-of-words (Pahikkala et al. 2005, Paper I of Pahikkala 2008).

A document is a token sequence with a target (the ambiguous term, a token index or a
half-open token span [start, stop)). The target is excluded from its context, and a
context word at position j gets the weight

    w(j) = dist(j)^(-exponent) + offset,

where dist(j) is the number of words between t_j and the target including t_j (an
adjacent word has dist 1), the same on both sides. Feature i of the document is the sum
of the weights of the occurrences of vocabulary word v_i (Paper I, eq. (3)); the vector
is then scaled to unit Euclidean length. The variants the digest specifies are all
settings of (exponent, offset, span):

* plain bag-of-words over a window of ``span`` words each side: exponent = offset = 0;
* weighted bag-of-words over the whole document (the "weighted SVM"): span=None;
* weighted bag-of-words over a window (the WAC setting): exponent, offset and span.

The vocabulary is built from the training (``fit``) documents only; words outside it are
dropped before normalization. Paper II's positional kernel and Paper III's
word-position transformations are not specified in the available sources and are not
implemented.
"""

import numpy as np
import scipy.sparse as sp

from rlscore.kernel._base import KernelBase, as_item_list, dot_dense

__all__ = ["ContextWeightedBowVectorizer", "ContextWeightedBowKernel"]


def _check_documents(X, name="documents"):
    X = as_item_list(X, name, "documents")
    out = []
    for i, doc in enumerate(X):
        if not isinstance(doc, (tuple, list)) or len(doc) != 2:
            raise ValueError(f"{name}[{i}] is not a (tokens, target) pair")
        tokens, target = doc
        if isinstance(tokens, str):
            raise ValueError(f"{name}[{i}]: tokens must be a sequence of words, not a str")
        tokens = list(tokens)
        if target is None:
            raise ValueError(f"{name}[{i}] has no target position")
        if np.ndim(target) == 0:
            start = int(target)
            stop = start + 1
        else:
            if len(target) != 2:
                raise ValueError(f"{name}[{i}]: target must be an index or (start, stop)")
            start, stop = int(target[0]), int(target[1])
        if not 0 <= start < stop <= len(tokens):
            raise ValueError(f"{name}[{i}]: target {target!r} is not a position of its "
                             f"{len(tokens)} tokens")
        out.append((tokens, start, stop))
    return out


class ContextWeightedBowVectorizer:
    """Contextually weighted bag-of-words features, sparse (Paper I, eq. (3)).

    Parameters
    ----------
    exponent : float >= 0, default 0
        The paper's lambda: steepness of the weight dist^(-exponent) near the target.
    offset : float >= 0, default 0
        The paper's beta, added to every weight (weight of far-away words).
    span : int >= 1 or None, default None
        Context window: at most ``span`` words each side; None uses the whole document.
    normalize : bool, default True
        Scale each vector to unit Euclidean length (after the vocabulary is applied).
    lowercase : bool, default False
    stop_words : collection of str, optional
        Removed before positions are counted (as the paper preprocesses the text).
    stemmer : callable str -> str, optional
        Applied to every word (after lowercasing), e.g. a Porter stemmer.

    Attributes
    ----------
    vocabulary_ : dict word -> column, from the ``fit`` documents only

    Notes
    -----
    Input: a list of (tokens, target) pairs; target is a token index or a (start, stop)
    span. ``fit`` and ``transform`` cost O(total tokens); the output has at most one
    nonzero per distinct context word. Words not in the vocabulary are ignored; a
    document whose context has none has the zero vector.
    """

    def __init__(self, exponent=0.0, offset=0.0, span=None, normalize=True,
                 lowercase=False, stop_words=None, stemmer=None):
        self.exponent = float(exponent)
        self.offset = float(offset)
        if not (np.isfinite(self.exponent) and self.exponent >= 0):
            raise ValueError(f"exponent must be finite and >= 0, got {exponent!r}")
        if not (np.isfinite(self.offset) and self.offset >= 0):
            raise ValueError(f"offset must be finite and >= 0, got {offset!r}")
        if span is not None and (int(span) != span or span < 1):
            raise ValueError(f"span must be a positive integer or None, got {span!r}")
        self.span = None if span is None else int(span)
        self.normalize = bool(normalize)
        self.lowercase = bool(lowercase)
        self.stop_words = frozenset(stop_words) if stop_words is not None else frozenset()
        self.stemmer = stemmer

    def _contexts(self, docs):
        """Per document: (context words, their weights)."""
        out = []
        for i, (tokens, start, stop) in enumerate(_check_documents(docs)):
            words, positions = [], []
            for j, tok in enumerate(tokens):
                if start <= j < stop:
                    continue
                w = tok.lower() if self.lowercase else tok
                if w in self.stop_words:
                    continue
                words.append(self.stemmer(w) if self.stemmer is not None else w)
                positions.append(j)
            pos = np.asarray(positions, dtype=np.int64)
            # dist counts the words between t_j and the target, t_j included, after
            # stop-word removal: rank of t_j among the kept words on its side
            before = pos < start
            dist = np.empty(pos.size, dtype=np.int64)
            nb = int(before.sum())
            dist[:nb] = np.arange(nb, 0, -1)
            dist[nb:] = np.arange(1, pos.size - nb + 1)
            keep = np.ones(pos.size, bool) if self.span is None else dist <= self.span
            weight = dist[keep].astype(np.float64) ** (-self.exponent) + self.offset
            out.append(([w for w, k in zip(words, keep) if k], weight))
        return out

    def fit(self, documents):
        """Build the vocabulary from the context words of ``documents``."""
        vocab = {}
        for words, _ in self._contexts(documents):
            for w in words:
                vocab.setdefault(w, len(vocab))
        self.vocabulary_ = vocab
        return self

    def transform(self, documents):
        """Feature matrix, CSR (n_documents, n_vocabulary)."""
        if not hasattr(self, "vocabulary_"):
            raise ValueError("the vectorizer is not fitted; call fit first")
        vocab = self.vocabulary_
        rows, cols, vals = [], [], []
        for r, (words, weight) in enumerate(self._contexts(documents)):
            col = np.array([vocab.get(w, -1) for w in words], dtype=np.int64)
            ok = col >= 0
            rows.append(np.full(int(ok.sum()), r))
            cols.append(col[ok])
            vals.append(weight[ok])
        n = len(rows)
        F = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(n, len(vocab)))
        F.sum_duplicates()
        if self.normalize:
            norms = np.sqrt(np.asarray(F.multiply(F).sum(axis=1)).ravel())
            norms[norms == 0] = 1.0
            F = sp.csr_matrix(sp.diags(1.0 / norms) @ F)
        return F

    def fit_transform(self, documents):
        return self.fit(documents).transform(documents)


class ContextWeightedBowKernel(KernelBase):
    """Linear kernel on contextually weighted bag-of-words features.

    k(x, z) = <phi(x), phi(z)> with phi from :class:`ContextWeightedBowVectorizer`
    fitted on the basis documents (so the vocabulary is that of the training data, or
    of the basis documents of a reduced-set model).

    Parameters
    ----------
    X : list of (tokens, target) pairs, the basis documents
    exponent, offset, span, normalize, lowercase, stop_words, stemmer :
        as for :class:`ContextWeightedBowVectorizer`

    Attributes
    ----------
    train_X : CSR (n_basis, n_vocabulary), the basis features
    vectorizer : the fitted ContextWeightedBowVectorizer

    Notes
    -----
    ``getKM(X)`` costs O(total tokens of X) plus one sparse product.
    """

    structured_input = True

    def __init__(self, X, exponent=0.0, offset=0.0, span=None, normalize=True,
                 lowercase=False, stop_words=None, stemmer=None):
        self.vectorizer = ContextWeightedBowVectorizer(
            exponent=exponent, offset=offset, span=span, normalize=normalize,
            lowercase=lowercase, stop_words=stop_words, stemmer=stemmer)
        self._basis_input = X
        self.train_X = self.vectorizer.fit_transform(X)

    def getKM(self, X):
        F = self.train_X if X is self._basis_input else self.vectorizer.transform(X)
        return dot_dense(F, self.train_X)

    def get_params(self):
        v = self.vectorizer
        return {"exponent": v.exponent, "offset": v.offset, "span": v.span,
                "normalize": v.normalize, "lowercase": v.lowercase,
                "stop_words": v.stop_words or None, "stemmer": v.stemmer}
