"""The HTML report: what a hunt found (session 19). Each test pins one fix and fails on the code before it."""

from __future__ import annotations

import dataclasses
import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from topicvb import BatchLDA, CollapsedLDA, make_topic_pipeline
from topicvb.datasets import Corpus
from topicvb.guided import seed_holding, seed_topic_prior
from topicvb.report import _build, report

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning",
                                        "ignore::topicvb.exceptions.DeadTopicWarning",
                                        "ignore::topicvb.exceptions.SeedLostWarning")

WORDS = "apple banana cherry grape lemon mango olive peach pear plum".split()


@pytest.fixture(scope="module")
def texts():
    return [" ".join(np.random.default_rng(d).choice(WORDS, 30)) for d in range(40)]


@pytest.fixture(scope="module")
def pipe(texts):
    return make_topic_pipeline(model=BatchLDA(2, random_state=0, max_iter=20)).fit(texts)


def _rows(page):
    return dict(re.findall(r'<tr data-row="(\d+)">(.*?)</tr>', page, re.S))


def test_a_seeded_topic_that_lost_its_seed_words_is_flagged_without_javascript():
    """summary() and the page's info panel said so; the table that needs no script and the header did not."""
    gen = np.random.default_rng(0)
    vocab = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    X = sp.csr_matrix(np.array([np.bincount((d % 2) * 10 + gen.integers(0, 10, 30), minlength=20)
                                for d in range(200)], dtype=np.float64))
    prior = seed_topic_prior(vocab, {"x": ["a0"], "y": ["a1"]}, 2)
    model = CollapsedLDA(2, topic_word_prior=prior, random_state=0).fit(X)
    lost = [h for h in seed_holding(model) if h.lost]
    assert len(lost) == 1
    page = report(model, X, vocab, n_words=10)
    rows = _rows(page)
    went = model.topic_labels_[lost[0].taken_by]
    assert f"lost seed words (to &#x27;{went}&#x27;)" in rows[str(lost[0].topic)]
    assert "lost seed words" not in rows[str(1 - lost[0].topic)]
    assert "1 flagged as junk or for lost seed words" in page


def test_a_corpus_over_other_terms_than_the_model_is_refused(pipe, texts):
    counts = pipe[:-1].transform(texts)
    terms = list(pipe[:-1].get_feature_names_out())
    order = np.arange(len(terms))[::-1]
    permuted = Corpus(sp.csr_matrix(counts)[:, order], [terms[j] for j in order])
    with pytest.raises(ValueError, match=r"report: X is a Corpus over other terms than the model's \(10 terms against "
                                         r"10, 10 shared; column 0 is 'plum' in the corpus and 'apple' in the model's "
                                         r"terms\)"):
        report(pipe, permuted)
    model = pipe[-1]
    with pytest.raises(ValueError, match="X is a Corpus over other terms"):
        report(model, permuted, vocabulary=terms)  # (an explicit vocabulary names the columns otherwise: refused too)
    report(pipe, Corpus(sp.csr_matrix(counts), terms))  # its own terms: fine
    report(model, Corpus(sp.csr_matrix(counts), [str(j) for j in range(10)]), vocabulary=terms)  # numbered columns


def test_a_path_that_cannot_be_written_is_refused_before_the_work(pipe, texts, tmp_path, monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the work started")

    monkeypatch.setattr(_build, "build_data", no_work)
    with pytest.raises(FileNotFoundError, match=r"Cannot write .*no_such_folder.*does not exist"):
        report(pipe, texts, path=tmp_path / "no_such_folder" / "report.html")
    with pytest.raises(ValueError, match="it is a folder"):
        report(pipe, texts, path=tmp_path)
    with pytest.raises(ValueError, match=r"report: path is empty; give the file to write, e.g. 'report.html'"):
        report(pipe, texts, path="")


@pytest.mark.parametrize("what", ["texts", "doc_ids"])
def test_texts_of_a_wrong_type_say_what_is_expected(pipe, texts, what):
    counts = pipe[:-1].transform(texts)
    with pytest.raises(TypeError, match=rf"report: {what} must be a sequence with one entry per document, got int"):
        report(pipe, counts, **{what: 5})


def test_a_pipeline_counts_the_texts_it_is_given(pipe, texts):
    """report(pipeline, texts) told the user to turn the texts into counts with a Vectorizer, which the pipeline
    holds: they are counted by it, and shown as the documents' texts."""
    page = report(pipe, texts, n_words=5)
    counted = report(pipe, pipe[:-1].transform(texts), texts=texts, n_words=5)
    assert page == counted
    assert '"has_texts":true' in page and any(t[:40] in page for t in texts)
    import pandas as pd

    assert report(pipe, pd.Series(texts), n_words=5) == page
    assert report(pipe, np.array(texts), n_words=5) == page
    assert report(pipe, texts, texts=[f"t{d}" for d in range(40)], n_words=5) != page  # given texts win


def test_words_keep_their_rank_order_in_right_to_left_scripts(pipe, texts):
    """Adjacent Hebrew words swapped places on screen: each word is isolated (<bdi> in the table; U+2068/U+2069
    around each word where the script joins them)."""
    counts = pipe[:-1].transform(texts)
    terms = ["שלום", "עולם"] + list(pipe[:-1].get_feature_names_out())[2:]
    page = report(pipe[-1], counts, terms, n_words=5)
    for row in _rows(page).values():
        words = re.search(r'<td class="words">(.*?)</td>', row).group(1)
        assert re.fullmatch(r"<bdi>[^<]+</bdi>( · <bdi>[^<]+</bdi>)*", words)
    assert "function wordList(words)" in page and "t.top_words.join" not in page
