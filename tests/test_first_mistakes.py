"""Mistakes a newcomer makes (a hunt that followed the README as one, session 17): each gets a message that says
what to pass instead, not nonsense fitted silently nor a failure inside NumPy or scikit-learn."""

import warnings

import numpy as np
import pytest

from topicvb import BatchLDA, CollapsedLDA, Vectorizer, make_topic_pipeline
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import heldout_perplexity, select_n_topics
from topicvb.inspection import summary

pd = pytest.importorskip("pandas")

TEXTS = ["apples pears plums fruit", "pears plums apples juice", "taxi street bridge city", "city taxi traffic street"]


@pytest.fixture(scope="module")
def fitted():
    corpus = make_lda_corpus(40, 12, 2, random_state=0).corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BatchLDA(2, max_iter=5, random_state=0).fit(corpus.X), corpus


def test_a_dataframe_of_texts_is_refused_naming_its_text_column():
    """Before: iterating a DataFrame gives its column names, so the Vectorizer counted 'id' and 'text' as two
    documents and a pipeline fitted topics of the word 'text', without a word."""
    df = pd.DataFrame({"id": range(4), "text": TEXTS})
    with pytest.raises(TypeError, match=r"got a DataFrame \(whose iteration gives its column names: 'id', 'text'\); "
                                        r"pass its column of texts, e.g. df\['text'\]"):
        Vectorizer().fit_transform(df)
    with pytest.raises(TypeError, match=r"got a DataFrame"):
        make_topic_pipeline(Vectorizer(), CollapsedLDA(2, max_iter=3)).fit(df)
    assert Vectorizer().fit_transform(df["text"]).shape == (4, 10)  # (the column itself is fine)


def test_a_corpus_object_is_refused_naming_its_counts(fitted):
    """Before: scikit-learn's "float() argument must be a string or a real number, not 'Corpus'"."""
    model, corpus = fitted
    for call in (lambda: CollapsedLDA(2).fit(corpus), lambda: model.transform(corpus)):
        with pytest.raises(TypeError, match=r"got a Corpus; pass its counts, Corpus\.X \(e\.g\. model\.fit\(corpus\.X\)\)"):
            call()


def test_tokenised_documents_are_named():
    """Before: NumPy's "setting an array element with a sequence ... inhomogeneous shape" for ragged token lists (a
    gensim habit); token lists of equal length already got the message for texts. (A 1-D array keeps scikit-learn's
    message, which its estimator checks ask for.)"""
    with pytest.raises(TypeError, match=r"holds lists of tokens \(tokenised documents\); join each into a text and "
                                        r"turn texts into counts with topicvb\.Vectorizer"):
        CollapsedLDA(2).fit([["apples", "pears"], ["taxi"]])


def test_texts_given_to_the_evaluation_functions_are_named_as_texts(fitted):
    """Before: "X is not a valid count matrix: could not convert string to float: '<the whole first document>'"."""
    model, corpus = fitted
    calls = {"heldout_perplexity": lambda: heldout_perplexity(model, TEXTS),
             "summary": lambda: summary(model, TEXTS, vocabulary=corpus.vocabulary),
             "select_n_topics": lambda: select_n_topics(TEXTS, [2, 3])}
    for caller, call in calls.items():
        with pytest.raises(TypeError, match=rf"{caller} expects a document-term count matrix X(_test)? .*holds text; "
                                            r"turn texts into counts with topicvb\.Vectorizer"):
            call()


def test_a_vocabulary_given_to_a_pipelines_top_words_is_named_briefly():
    """Before: TopicPipeline.top_words(10, vocabulary), the model's call, failed on relevance with the whole
    vocabulary in the message (62 KB on the built-in corpus)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make_topic_pipeline(Vectorizer(), BatchLDA(2, max_iter=3, random_state=0)).fit(TEXTS * 3)
    vocabulary = list(pipe.vectorizer.get_feature_names_out()) * 50
    with pytest.raises(TypeError, match=r"takes relevance, a number in \[0, 1\] or None, got a list; .* so it takes no "
                                        r"vocabulary \(pipe\.top_words\(10\)\)") as info:
        pipe.top_words(10, vocabulary)
    assert len(str(info.value)) < 300
    from topicvb.inspection import top_words

    with pytest.raises(ValueError, match=r"got a list \(\['apples', ") as info:
        top_words(pipe.model, relevance=vocabulary)
    assert len(str(info.value)) < 300


def test_the_submodules_are_reached_from_a_bare_import():
    """Before: after `import topicvb` alone, topicvb.datasets.load_builtin_corpus() raised AttributeError (the lazy
    attributes covered names, not submodules) unless something else had imported the submodule."""
    import subprocess
    import sys

    code = ("import topicvb; print(topicvb.datasets.load_builtin_corpus.__name__, topicvb.inspection.summary.__name__, "
            "topicvb.evaluation.coherence.__name__, 'datasets' in dir(topicvb))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["load_builtin_corpus", "summary", "coherence", "True"]


def test_nan_counts_get_topicvbs_message_not_advice_for_supervised_learning():
    """Before: scikit-learn's message, which recommends HistGradientBoostingClassifier or an imputer."""
    X = np.ones((3, 4))
    X[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^CollapsedLDA\.fit: Input X contains NaN; a document-term matrix holds "
                                         r"finite, non-negative counts") as info:
        CollapsedLDA(2).fit(X)
    assert "HistGradientBoosting" not in str(info.value) and "impute" not in str(info.value)


def test_a_count_matrix_without_its_terms_is_no_coherence_reference(fitted):
    """Before: "texts must hold tokenised documents; document 0 has a token <Compressed Sparse Row sparse matrix ...>"
    for coherence(words, X_train), the vocabulary forgotten."""
    from topicvb.evaluation import coherence

    model, corpus = fitted
    words = model.top_words(5, corpus.vocabulary)
    for reference in (corpus.X, corpus.X.toarray()):
        with pytest.raises(TypeError, match=r"a count matrix alone is no reference corpus: its columns need their "
                                            r"terms\. Pass \(X, vocabulary\)"):
            coherence(words, reference)
    assert np.isfinite(coherence(words, (corpus.X, corpus.vocabulary)).mean)


@pytest.mark.parametrize("argv", [["topics", "m.npz"], ["report", "m.npz", "c.npz", "-o", "r.html"],
                                  ["evaluate", "m.npz", "c.npz"]])
def test_the_number_of_words_has_a_short_option(argv):
    """Before: `topicvb topics model.npz -n 5` said "unrecognized arguments: -n 5" (only --n existed)."""
    from topicvb.cli import build_parser

    assert build_parser().parse_args([*argv, "-n", "5"]).n == 5


def test_counts_too_large_for_a_float32_model_say_so():
    """A review: the NaN/infinity message said "X contains infinity" for a finite count of 1e39 that a float32 model
    cannot hold, and lost scikit-learn's "or a value too large for dtype('float32')"."""
    X = np.ones((3, 4))
    X[0, 0] = 1e39
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's cast overflow, before the check)
        with pytest.raises(ValueError, match=r"Input X contains infinity or a value too large for dtype\('float32'\), "
                                             r"the model's dtype; rescale X or use dtype='float64'"):
            CollapsedLDA(2, dtype="float32").fit(X)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"Input X contains infinity; a document-term matrix holds finite"):
        CollapsedLDA(2).fit(X)


def test_a_submodule_whose_optional_dependency_is_missing_is_an_attribute_error():
    """A review: dir(topicvb) lists the submodules, and getattr of one whose optional dependency is missing raised
    ImportError, so hasattr and inspect.getmembers(topicvb) failed."""
    import subprocess
    import sys

    code = ("import sys, inspect; sys.modules['matplotlib'] = sys.modules['dask'] = sys.modules['distributed'] = None; "
            "import topicvb; print(hasattr(topicvb, 'distributed'), len(inspect.getmembers(topicvb)) > 10)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
