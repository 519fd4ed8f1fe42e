"""Coherence measures against values worked out by hand on a four-document corpus, and diversity.

The corpus (tokenised; vocabulary apple, banana, cherry, dog, egg):

    d0: apple banana apple cherry
    d1: apple banana
    d2: banana cherry dog
    d3: dog egg

Document counts (U = 4 documents): D(apple) = 2, D(banana) = 3, D(cherry) = 2, D(dog) = 2,
D(egg) = 1; D(apple, banana) = 2, D(apple, cherry) = 1, D(banana, cherry) = 2,
D(banana, dog) = 1, D(cherry, dog) = 1, D(dog, egg) = 1, D(apple, dog) = 0.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb.evaluation import MEASURES, CoherenceScores, ReferenceCorpus, coherence, topic_diversity

TEXTS = [
    ["apple", "banana", "apple", "cherry"],
    ["apple", "banana"],
    ["banana", "cherry", "dog"],
    ["dog", "egg"],
]
VOCAB = ["apple", "banana", "cherry", "dog", "egg"]
X = sp.csr_matrix(np.array([
    [2, 1, 1, 0, 0],
    [1, 1, 0, 0, 0],
    [0, 1, 1, 1, 0],
    [0, 0, 0, 1, 1],
]))
TOPIC = ["banana", "dog", "apple"]  # most probable first
EPS = 1e-12
log = math.log


@pytest.fixture(params=["matrix", "texts"])
def reference(request):
    """Document co-occurrence from the count matrix and from the tokenised texts must agree."""
    if request.param == "matrix":
        return ReferenceCorpus(X=X, vocabulary=VOCAB)
    return ReferenceCorpus(texts=TEXTS)


def test_umass_by_hand(reference):
    # pairs (w_m | w_l), m > l, epsilon = 1 added to the joint count (Mimno et al.):
    #   dog | banana:   log((D(dog, banana) + 1) / D(banana)) = log((1 + 1) / 3) = log(2/3)
    #   apple | banana: log((2 + 1) / 3) = log(1) = 0
    #   apple | dog:    log((0 + 1) / 2) = log(1/2)
    expected = (log(2 / 3) + 0.0 + log(1 / 2)) / 3  # = log(1/3) / 3 = -0.3662
    result = coherence([TOPIC], reference, measure="u_mass")
    assert result.per_topic[0] == pytest.approx(expected, rel=1e-12)
    assert result.mean == pytest.approx(expected, rel=1e-12)
    assert result.measure == "u_mass"
    # the order matters for UMass: reversed, the conditioning words change
    #   dog | apple: log((0 + 1) / 2); banana | apple: log((2 + 1) / 2); banana | dog: log((1 + 1) / 2) = 0
    reversed_expected = (log(1 / 2) + log(3 / 2) + 0.0) / 3
    assert coherence([TOPIC[::-1]], reference, measure="u_mass").mean == pytest.approx(reversed_expected)


def test_uci_pmi_by_hand(reference):
    # P(banana) = 3/4, P(dog) = 2/4, P(apple) = 2/4; P(banana, dog) = 1/4, P(banana, apple) = 2/4,
    # P(dog, apple) = 0:
    #   PMI(banana, dog)   = log((1/4) / (3/4 * 1/2)) = log(2/3)
    #   PMI(banana, apple) = log((2/4) / (3/4 * 1/2)) = log(4/3)
    #   PMI(dog, apple)    = log((0 + 1e-12) / (1/2 * 1/2)) = log(4e-12)
    expected = (log(2 / 3) + log(4 / 3) + log(4 * EPS)) / 3
    assert coherence([TOPIC], reference, measure="c_uci").mean == pytest.approx(expected, rel=1e-9)


def test_npmi_by_hand(reference):
    # NPMI = PMI / -log P(w_i, w_j) (Bouma):
    #   NPMI(banana, dog)   = log(2/3) / log(4)
    #   NPMI(banana, apple) = log(4/3) / log(2)
    #   NPMI(dog, apple)    = log(4e-12) / -log(1e-12)   (close to -1: they never co-occur)
    expected = (log(2 / 3) / log(4) + log(4 / 3) / log(2) + log(4 * EPS) / -log(EPS)) / 3
    assert coherence([TOPIC], reference, measure="c_npmi").mean == pytest.approx(expected, rel=1e-9)


def test_npmi_extremes():
    # always together -> 1: P(a) = P(b) = P(a, b) = 1/2, log((1/2) / (1/4)) / -log(1/2) = 1
    texts = [["a", "b"], ["a", "b"], ["c"], ["d"]]
    assert coherence([["a", "b"]], texts, measure="c_npmi").mean == pytest.approx(1.0)
    # never together -> -1 in the limit eps -> 0: P(c) = P(d) = 1/4, P(c, d) = 0,
    # log(1e-12 / (1/16)) / -log(1e-12) = -1 + log(16) / log(1e12) = -0.8997
    assert coherence([["c", "d"]], texts, measure="c_npmi").mean == pytest.approx(log(16 * EPS) / -log(EPS))
    everywhere = [["a", "b"], ["a", "b"]]  # P(a, b) = 1: -log P = 0, NPMI defined as 1
    assert coherence([["a", "b"]], everywhere, measure="c_npmi").mean == 1.0


def test_cv_by_hand_with_a_window_of_two():
    # Sliding windows of 2 tokens (a document of L > 2 tokens has L - 1 windows, a shorter one is one window):
    #   d0: [apple banana] [banana apple] [apple cherry]; d1: [apple banana];
    #   d2: [banana cherry] [cherry dog]; d3: [dog egg]                              -> U = 7 windows
    # For the topic (apple, banana, cherry): D(apple) = 4, D(banana) = 4, D(cherry) = 3,
    # D(apple, banana) = 3, D(apple, cherry) = 1, D(banana, cherry) = 1.
    n_ab = log((3 / 7) / (4 / 7 * 4 / 7)) / -log(3 / 7)  # = log(21/16) / log(7/3)
    n_ac = log((1 / 7) / (4 / 7 * 3 / 7)) / -log(1 / 7)  # = log(7/12) / log(7)
    n_bc = n_ac  # same counts
    # NPMI(w, w) = log(P(w) / P(w)^2) / -log P(w) = 1 on the diagonal
    N = np.array([[1.0, n_ab, n_ac],
                  [n_ab, 1.0, n_bc],
                  [n_ac, n_bc, 1.0]])
    total = N.sum(axis=0)  # the context vector of the whole top-word set
    cos = [N[i] @ total / (np.linalg.norm(N[i]) * np.linalg.norm(total)) for i in range(3)]
    expected = float(np.mean(cos))
    result = coherence([["apple", "banana", "cherry"]], TEXTS, measure="c_v", window_size=2)
    assert result.mean == pytest.approx(expected, rel=1e-9)
    # the same windows give the NPMI measure too
    npmi = coherence([["apple", "banana"]], TEXTS, measure="c_npmi", window_size=2).mean
    assert npmi == pytest.approx(n_ab, rel=1e-9)


def test_cv_default_window_is_110_so_short_documents_are_single_windows():
    # every document is shorter than 110 tokens: windows = documents
    a = coherence([["apple", "banana", "cherry"]], TEXTS, measure="c_v").mean
    b = coherence([["apple", "banana", "cherry"]], TEXTS, measure="c_v", window_size=4).mean
    assert a == pytest.approx(b, rel=1e-12)


@pytest.mark.parametrize("measure", MEASURES)
def test_missing_words_give_zero_not_nan(measure):
    ref = ReferenceCorpus(X=X, vocabulary=VOCAB, texts=TEXTS)
    # "zebra" is not in the reference at all: every pair involving it scores 0
    result = coherence([["banana", "zebra"], ["zebra", "unicorn"]], ref, measure=measure)
    assert np.all(np.isfinite(result.per_topic))
    if measure != "c_v":
        np.testing.assert_array_equal(result.per_topic, [0.0, 0.0])
    else:
        # banana's vector is (1, 0), zebra's (0, 0): cosines 1 and 0 (zero vector)
        np.testing.assert_allclose(result.per_topic, [0.5, 0.0])
    # a word in the vocabulary with zero count behaves the same
    Xz = sp.hstack([X, sp.csr_matrix((4, 1))]).tocsr()
    zero = coherence([["banana", "zebra"]], ReferenceCorpus(X=Xz, vocabulary=VOCAB + ["zebra"]),
                     measure="u_mass" if measure == "c_v" else measure)
    assert zero.per_topic[0] == 0.0


def test_per_topic_and_mean_and_weighted_input(reference):
    topics = [[("banana", 0.5), ("dog", 0.3), ("apple", 0.2)], [("apple", 0.6), ("banana", 0.4)]]
    result = coherence(topics, reference, measure="u_mass")
    assert isinstance(result, CoherenceScores)
    assert result.per_topic.shape == (2,)
    # second topic: banana | apple = log((2 + 1) / 2)
    assert result.per_topic[1] == pytest.approx(log(3 / 2))
    assert result.mean == pytest.approx(result.per_topic.mean())


def test_reference_forms_agree():
    from topicvb.datasets import Corpus

    expected = coherence([TOPIC], (X, VOCAB), measure="c_npmi").mean
    assert coherence([TOPIC], Corpus(X=X, vocabulary=VOCAB), measure="c_npmi").mean == pytest.approx(expected)
    assert coherence([TOPIC], TEXTS, measure="c_npmi").mean == pytest.approx(expected)


def test_coherence_bad_input():
    with pytest.raises(ValueError, match=r"measure must be one of .* got 'c_w2v'"):
        coherence([TOPIC], TEXTS, measure="c_w2v")
    with pytest.raises(ValueError, match="needs tokenised documents"):
        coherence([TOPIC], (X, VOCAB), measure="c_v")
    with pytest.raises(ValueError, match="window_size must be a positive int"):
        coherence([TOPIC], TEXTS, window_size=0)
    with pytest.raises(ValueError, match="epsilon must be a positive"):
        coherence([TOPIC], TEXTS, epsilon=-1.0)
    with pytest.raises(TypeError, match="top words must be str"):
        coherence([[1, 2]], TEXTS)
    with pytest.raises(TypeError, match="document 0 is a str"):
        ReferenceCorpus(texts=["apple banana"])
    with pytest.raises(ValueError, match="vocabulary has 4 terms but X has 5 columns"):
        ReferenceCorpus(X=X, vocabulary=VOCAB[:4])
    with pytest.raises(ValueError, match="needs X .* or texts"):
        ReferenceCorpus()


def test_topic_diversity():
    # 4 words in all, 3 distinct: 3 / 4
    assert topic_diversity([["a", "b"], ["b", "c"]]) == 0.75
    assert topic_diversity([["a", "b"], ["a", "b"]]) == 0.5
    assert topic_diversity([[("a", 0.9), ("b", 0.1)], [("c", 1.0)]]) == 1.0
    assert topic_diversity([["a", "b", "x"], ["a", "b", "y"]], n=2) == 0.5
    with pytest.raises(ValueError, match="at least one top word"):
        topic_diversity([[], []])
    with pytest.raises(ValueError, match="n must be a positive int"):
        topic_diversity([["a"]], n=0)


def _gensim_case():
    from topicvb.datasets import make_lda_corpus

    corpus, _, _ = make_lda_corpus(60, 30, 3, doc_length=40, separated=True, random_state=0)
    vocab = corpus.vocabulary
    rng = np.random.default_rng(0)
    texts = []
    for row in corpus.X.toarray():
        tokens = [vocab[j] for j in np.repeat(np.arange(len(vocab)), row)]
        rng.shuffle(tokens)
        texts.append(tokens)
    # top words that occur in the corpus (gensim drops words missing from its dictionary: see the
    # module notes of topicvb.evaluation.coherence), most frequent first, dealt to 3 topics
    freq = np.asarray(corpus.X.sum(axis=0)).ravel()
    used = [vocab[j] for j in np.argsort(-freq, kind="stable") if freq[j] > 0]
    topics = [used[k::3][:4] for k in range(3)]
    return texts, topics


def _gensim_scores(texts, topics, measure, window):
    from gensim.corpora import Dictionary
    from gensim.models.coherencemodel import CoherenceModel

    dictionary = Dictionary(texts)
    kwargs = {"corpus": [dictionary.doc2bow(t) for t in texts]} if measure == "u_mass" else {"texts": texts}
    if window is not None:
        kwargs["window_size"] = window
    return CoherenceModel(topics=topics, dictionary=dictionary, coherence=measure, **kwargs).get_coherence_per_topic()


@pytest.mark.parametrize("measure, window, unique_tokens", [
    ("u_mass", None, False),   # documents as units
    ("c_v", 110, False),       # every document fits in one window
    ("c_uci", 10, True),       # sliding windows over documents where no word repeats (see below)
    ("c_npmi", 10, True),
    ("c_v", 10, True),
])
def test_agrees_with_gensim(measure, window, unique_tokens):
    gensim = pytest.importorskip("gensim")
    texts, topics = _gensim_case()
    if unique_tokens:
        texts = [list(dict.fromkeys(t)) for t in texts]
    theirs = _gensim_scores(texts, topics, measure, window)
    eps = 1e-12 * len(texts) if measure == "u_mass" else None  # gensim smooths probabilities by 1e-12
    ours = coherence(topics, ReferenceCorpus(texts=texts), measure=measure, window_size=window, epsilon=eps)
    assert np.all(np.isfinite(theirs))
    np.testing.assert_allclose(ours.per_topic, theirs, rtol=1e-6, atol=1e-6, err_msg=f"{measure} ({gensim})")


def test_sliding_window_counts_a_repeated_word_in_every_window_that_holds_it():
    # "a a b" with windows of 2 tokens: [a a], [a b]. Both windows contain a, so D(a) = 2 and
    # D(a, b) = 1: P(a, b) / (P(a) P(b)) = (1/2) / ((2/2) (1/2)) = 1, PMI = 0. gensim's sliding
    # counter drops a word when it leaves a window even if it recurs inside it, so it sees the second
    # window as [b] only: D(a) = 1, D(a, b) = 0 and PMI = log((0 + 1e-12) / (1/2 * 1/2)) (the
    # convention difference documented in the coherence module).
    ref = ReferenceCorpus(texts=[["a", "a", "b"]])
    assert coherence([["a", "b"]], ref, measure="c_uci", window_size=2).mean == pytest.approx(0.0, abs=1e-9)
    gensim = pytest.importorskip("gensim")  # noqa: F841
    theirs = _gensim_scores([["a", "a", "b"]], [["a", "b"]], "c_uci", 2)
    assert theirs[0] == pytest.approx(np.log(4e-12), rel=1e-6)


# ---------------------------------------------------------------------------------- vocabularies, input forms
def test_vocabulary_dict_is_ordered_by_column_and_unordered_ones_refused():
    from topicvb.evaluation._common import ordered_terms

    # a dict term -> column (scikit-learn's CountVectorizer.vocabulary_) in an insertion order unlike the columns'
    as_dict = {"egg": np.int64(4), "banana": 1, "dog": 3, "apple": 0, "cherry": 2}
    assert ordered_terms(as_dict, "vocabulary", "test") == VOCAB
    expected = coherence([TOPIC], ReferenceCorpus(X=X, vocabulary=VOCAB), measure="u_mass").mean
    assert coherence([TOPIC], ReferenceCorpus(X=X, vocabulary=as_dict), measure="u_mass").mean == expected
    for bad in [set(VOCAB), frozenset(VOCAB), as_dict.keys(), {"apple": 0, "banana": 2},
                {"apple": 0, "banana": 0}, {"apple": 0, "banana": True}, {"apple": 0.0, "banana": 1}]:
        with pytest.raises(TypeError, match=r"ReferenceCorpus: vocabulary must be an ordered sequence of terms.*"
                                            r"get_feature_names_out"):
            ReferenceCorpus(X=X[:, :len(bad)], vocabulary=bad)


def test_reference_sums_duplicate_entries_without_changing_the_caller_matrix():
    # document 0 = {a: 2, b: 1} with "a" stored as two entries of 1; document 1 = {c: 1}
    dup = sp.csr_matrix((np.array([1.0, 1.0, 1.0, 1.0]), np.array([0, 0, 1, 2]), np.array([0, 3, 4])), shape=(2, 3))
    canonical = dup.copy()
    canonical.sum_duplicates()
    data_before = dup.data.copy()
    for measure in ["u_mass", "c_uci", "c_npmi"]:
        a = coherence([["a", "b"]], ReferenceCorpus(dup, ["a", "b", "c"]), measure=measure).mean
        b = coherence([["a", "b"]], ReferenceCorpus(canonical, ["a", "b", "c"]), measure=measure).mean
        assert a == b, measure
    assert dup.nnz == 4 and not dup.has_canonical_format
    np.testing.assert_array_equal(dup.data, data_before)
    # duplicates that cancel to a legal 0 are a zero count (no "negative" error, no occurrence)
    cancel = sp.csr_matrix((np.array([2.0, -2.0, 1.0, 1.0]), np.array([0, 0, 1, 2]), np.array([0, 3, 4])), shape=(2, 3))
    ref = ReferenceCorpus(cancel, ["a", "b", "c"])
    assert ref.X.nnz == 2 and cancel.nnz == 4
    assert coherence([["a", "b"]], ref, measure="u_mass").mean == 0.0  # "a" never occurs: the pair scores 0


@pytest.mark.parametrize("measure", MEASURES)
def test_document_units_skip_empty_documents(measure):
    window = None if measure == "c_v" else 1000  # c_v needs windows; both ways of counting agree
    texts = [["a", "b"], ["a"], ["b"], ["c"]]
    padded = texts + [[]] * 3
    for window_size in {None if measure != "c_v" else 110, window}:
        base = coherence([["a", "b"]], texts, measure=measure, window_size=window_size).mean
        assert coherence([["a", "b"]], padded, measure=measure, window_size=window_size).mean == pytest.approx(base)
    if measure != "c_v":
        Xp = sp.csr_matrix(np.array([[1, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]]))
        assert coherence([["a", "b"]], (Xp, ["a", "b", "c"]), measure=measure).mean == pytest.approx(
            coherence([["a", "b"]], texts, measure=measure).mean)
    # a reference of empty documents only is an error for every measure, as with windows
    with pytest.raises(ValueError, match=r"reference corpus has no documents \(or only empty ones\)"):
        coherence([["a", "b"]], [[], []], measure=measure)
    if measure != "c_v":
        with pytest.raises(ValueError, match=r"reference corpus has no documents \(or only empty ones\)"):
            coherence([["a", "b"]], ReferenceCorpus(np.zeros((3, 2)), ["a", "b"]), measure=measure)


@pytest.mark.parametrize("epsilon", [None, 0.01, 0.1])
def test_npmi_never_exceeds_one(epsilon):
    # a and b always occur together but not everywhere: the eps smoothing pushed NPMI above 1
    texts = [["cat", "dog"], ["cat", "dog"], ["fish"], ["bird"]]
    assert coherence([["cat", "dog"]], texts, measure="c_npmi", epsilon=epsilon).mean == 1.0
    assert -1.0 <= coherence([["fish", "bird"]], texts, measure="c_npmi", epsilon=epsilon).mean <= 1.0
    cv = coherence([["cat", "dog", "fish"]], texts, measure="c_v", epsilon=epsilon).mean
    assert -1.0 <= cv <= 1.0


def test_reference_bad_input_names_the_input():
    with pytest.raises(TypeError, match=r"document 0 has a token \['a', 'b'\] of type list \(nested one level too deep"):
        coherence([["a", "b"]], [[["a", "b"], ["b"]]])
    with pytest.raises(TypeError, match=r"document 1 has a token 3 of type int"):
        ReferenceCorpus(texts=[["a"], ["b", 3]])
    with pytest.raises(TypeError, match=r"ReferenceCorpus: texts must hold tokenised documents .*document 0 is a int"):
        ReferenceCorpus(texts=[3])
    with pytest.raises(TypeError, match=r"ReferenceCorpus: X must be a matrix of numeric term counts, got an array of "
                                        r"dtype <U1"):
        ReferenceCorpus(np.array([["1", "0"]]), ["a", "b"])
    with pytest.raises(TypeError, match=r"ReferenceCorpus: X must be a matrix of numeric term counts"):
        ReferenceCorpus([[1, object()]], ["a", "b"])
