"""A small synthetic protein-protein interaction (relation extraction) corpus.

Sentences are generated from a handful of templates together with their dependency
parses (collapsed-Stanford-style triples), so the candidate pairs can be turned into the
all-paths graph representation of Airola et al. (2008) with
:func:`rlscore.kernel.relation_graph`. Whether a pair interacts depends on the syntactic
relation between the two mentions and on the connecting word (an interaction verb or
noun versus a neutral one), as in real PPI corpora; a ``noise`` fraction of the labels
is flipped.
"""

from itertools import combinations

import numpy as np

from rlscore._validation import check_positive_int, check_real
from rlscore.datasets.synthetic import _rng

__all__ = ["make_relation_extraction"]

_INTERACT_VERBS = ["binds", "activates", "inhibits", "phosphorylates", "regulates"]
_NEUTRAL_VERBS = ["resembles", "precedes", "outnumbers", "accompanies"]
_INTERACT_NOUNS = ["interaction", "association", "complex", "binding"]
_NEUTRAL_NOUNS = ["comparison", "similarity", "ratio", "distinction"]
_ADJ = ["human", "recombinant", "mutant", "purified"]
_ADV = ["strongly", "directly", "weakly", "rapidly"]
_LOC = ["cells", "vitro", "yeast", "tissues"]
_DETECT = ["detected", "measured", "expressed", "observed"]


class _Sentence:
    """Tokens, POS tags and dependency triples built left to right."""

    def __init__(self):
        self.tokens, self.pos, self.deps, self.prot = [], [], [], []

    def add(self, word, tag, protein=False):
        self.tokens.append(word)
        self.pos.append(tag)
        if protein:
            self.prot.append(len(self.tokens) - 1)
        return len(self.tokens) - 1

    def dep(self, gov, dep, typ):
        self.deps.append((gov, dep, typ))


def _protein(s, rng, name):
    """A protein mention, optionally with an adjective modifier."""
    adj = s.add(str(rng.choice(_ADJ)), "JJ") if rng.random() < 0.3 else None
    p = s.add(name, "NN", protein=True)
    if adj is not None:
        s.dep(p, adj, "amod")
    return p


def _location(s, rng, head):
    if rng.random() < 0.5:
        s.add("in", "IN")
        s.dep(head, s.add(str(rng.choice(_LOC)), "NNS"), "prep_in")


def _verb_clause(s, rng, positive):
    """P_a [adv] VERB P_b [in LOC]: interacts iff the verb is an interaction verb."""
    a = _protein(s, rng, "PROTA")
    adv = s.add(str(rng.choice(_ADV)), "RB") if rng.random() < 0.4 else None
    v = s.add(str(rng.choice(_INTERACT_VERBS if positive else _NEUTRAL_VERBS)), "VBZ")
    b = _protein(s, rng, "PROTB")
    s.dep(v, a, "nsubj")
    s.dep(v, b, "dobj")
    if adv is not None:
        s.dep(v, adv, "advmod")
    _location(s, rng, v)
    return v, [(a, b)] if positive else []


def _template_verb(s, rng):
    return _verb_clause(s, rng, rng.random() < 0.5)[1]


def _template_noun(s, rng):
    """the NOUN of P_a with P_b was observed [in LOC]."""
    positive = rng.random() < 0.5
    det = s.add("the", "DT")
    n = s.add(str(rng.choice(_INTERACT_NOUNS if positive else _NEUTRAL_NOUNS)), "NN")
    s.dep(n, det, "det")
    s.add("of", "IN")
    a = _protein(s, rng, "PROTA")
    s.add("with", "IN")
    b = _protein(s, rng, "PROTB")
    aux = s.add("was", "VBD")
    v = s.add(str(rng.choice(_DETECT)), "VBN")
    s.dep(n, a, "prep_of")
    s.dep(n, b, "prep_with")
    s.dep(v, n, "nsubjpass")
    s.dep(v, aux, "auxpass")
    _location(s, rng, v)
    return [(a, b)] if positive else []


def _template_coordination(s, rng):
    """P_a and P_b were detected [in LOC]: no interaction."""
    a = _protein(s, rng, "PROTA")
    cc = s.add("and", "CC")
    b = _protein(s, rng, "PROTB")
    aux = s.add("were", "VBD")
    v = s.add(str(rng.choice(_DETECT)), "VBN")
    s.dep(a, cc, "cc")
    s.dep(a, b, "conj_and")
    s.dep(v, a, "nsubjpass")
    s.dep(v, b, "nsubjpass")
    s.dep(v, aux, "auxpass")
    _location(s, rng, v)
    return []


def _template_negated_third(s, rng):
    """P_a VERB P_b but not P_c: only (a, b) can interact."""
    v, pairs = _verb_clause(s, rng, rng.random() < 0.6)
    b = s.prot[-1]
    but = s.add("but", "CC")
    neg = s.add("not", "RB")
    c = _protein(s, rng, "PROTC")
    s.dep(b, but, "cc")
    s.dep(b, c, "conj_negcc")
    s.dep(c, neg, "neg")
    return pairs


def _template_relative(s, rng):
    """P_a , which VERB P_b , is expressed [in LOC]."""
    positive = rng.random() < 0.5
    a = _protein(s, rng, "PROTA")
    s.add(",", ",")
    which = s.add("which", "WDT")
    v = s.add(str(rng.choice(_INTERACT_VERBS if positive else _NEUTRAL_VERBS)), "VBZ")
    b = _protein(s, rng, "PROTB")
    s.add(",", ",")
    aux = s.add("is", "VBZ")
    root = s.add(str(rng.choice(_DETECT)), "VBN")
    s.dep(a, v, "rcmod")
    s.dep(v, which, "nsubj")
    s.dep(v, b, "dobj")
    s.dep(root, a, "nsubjpass")
    s.dep(root, aux, "auxpass")
    _location(s, rng, root)
    return [(a, b)] if positive else []


_TEMPLATES = [_template_verb, _template_noun, _template_coordination,
              _template_negated_third, _template_relative]


def make_relation_extraction(n_sentences=100, noise=0.05, random_state=None, *,
                             return_parses=False, variant_weights=None):
    """Candidate protein pairs of synthetic sentences, as all-paths graphs.

    Parameters
    ----------
    n_sentences : int, default 100
    noise : float in [0, 1], default 0.05
        Fraction of candidate labels flipped at random.
    random_state : None, int, SeedSequence, Generator or RandomState
    return_parses : bool, default False
        Also return, per candidate, the dict ``tokens, pos_tags, dependencies,
        entity1, entity2, other_entities`` it was built from.
    variant_weights : sequence of 5 floats, optional
        Template probabilities (verb, noun, coordination, negated third protein,
        relative clause); uniform by default.

    Returns
    -------
    graphs : list of Graph
        :func:`rlscore.kernel.relation_graph` of each candidate pair (each unordered
        pair of mentions of a sentence; 2 or 3 mentions per sentence).
    y : ndarray of +-1
    sentence : ndarray of int
        The sentence of each candidate (for sentence-grouped cross-validation).
    parses : list of dict, only with ``return_parses``

    Notes
    -----
    O(total tokens). Sentences have 4-14 tokens, so graphs have about 10-40 vertices.
    """
    from rlscore.kernel.graph_kernel import relation_graph

    n_sentences = check_positive_int(n_sentences, "n_sentences")
    noise = check_real(noise, "noise", minimum=0)
    if noise > 1:
        raise ValueError(f"noise must be in [0, 1], got {noise}")
    rng = _rng(random_state)
    p = None
    if variant_weights is not None:
        p = np.asarray(variant_weights, dtype=float)
        if p.shape != (len(_TEMPLATES),) or np.any(p < 0) or p.sum() <= 0:
            raise ValueError(f"variant_weights must be {len(_TEMPLATES)} nonnegative "
                             f"numbers with a positive sum")
        p = p / p.sum()
    graphs, y, sent, parses = [], [], [], []
    for i in range(n_sentences):
        s = _Sentence()
        if rng.random() < 0.2:
            s.add("Moreover", "RB")
            s.add(",", ",")
        template = _TEMPLATES[rng.choice(len(_TEMPLATES), p=p)]
        positive = set(template(s, rng))
        s.add(".", ".")
        for a, b in combinations(s.prot, 2):
            parse = dict(tokens=s.tokens, pos_tags=s.pos, dependencies=s.deps,
                         entity1=a, entity2=b,
                         other_entities=[e for e in s.prot if e not in (a, b)])
            label = 1.0 if (a, b) in positive else -1.0
            if rng.random() < noise:
                label = -label
            graphs.append(relation_graph(**parse))
            y.append(label)
            sent.append(i)
            parses.append(parse)
    out = (graphs, np.array(y), np.array(sent))
    return out + (parses,) if return_parses else out
