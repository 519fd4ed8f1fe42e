"""The HTML report: what a hunt found (session 19). Each test pins one fix and fails on the code before it."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

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


def _gap_model():
    """A topic whose term TARGET ranks second by relevance only for lambda in about (0.05, 0.15): 44 terms beat it
    below (large lift), 44 above (large probability). A page whose candidates came from lambda = 0, 0.2, ..., 1
    left it out. (FixedTopicModel over term frequencies in proportion to p; the construction of the hunt.)"""
    from topicvb.evaluation import FixedTopicModel

    n = 44
    log_p = np.r_[[-0.0001], [-10.0], [-20.0] * n, [-10 + 0.5 / 0.15] * n, [-1.0]]
    lift = np.r_[[0.0], [0.0], [0.5] * n, [-0.5] * n, [-40.0]]
    terms = ["dominant", "TARGET"] + [f"a{i}" for i in range(n)] + [f"b{i}" for i in range(n)] + ["filler"]
    phi0 = np.exp(lift + log_p)
    phi0[0] = 0
    phi0[0] = 1 - phi0.sum()
    p = np.exp(log_p)
    p[-1] = p[0] = 0
    p[-1], p[0] = 1 - p.sum() - 0.2, 0.2
    phi = np.vstack([phi0, np.full(len(terms), 1.0 / len(terms))])
    return FixedTopicModel(phi), sp.csr_matrix(np.vstack([p * 1e12, p * 1e12])), terms


def test_the_page_holds_every_term_top_words_ranks_at_a_weight_it_can_show():
    from topicvb.inspection import top_words

    model, X, terms = _gap_model()
    page = report(model, X, terms, n_words=30)
    data = __import__("json").loads(re.search(r'id="tvb-data">(.*?)</script>', page, re.S).group(1))
    p = np.array(data["term_prob"])
    for lam in np.arange(101) / 100:
        exact = [w for w, _ in top_words(model, terms, 30, relevance=float(lam), X=X)[0]]
        t = data["topics"][0]
        w = np.array(t["terms"])
        log_phi = np.log(np.maximum(t["probs"], 1e-300))
        score = lam * log_phi + (1 - lam) * (log_phi - np.log(np.maximum(p[w], 1e-300)))
        if lam < 1:
            score[p[w] <= 0] = -np.inf
        ranked = w[np.lexsort((w, -score))][:30]
        assert [data["terms"][i] for i in ranked] == exact, lam
    assert "TARGET" in data["terms"]


def test_terms_never_on_top_are_beaten_by_n_terms_at_every_weight():
    """_never_on_top against the definition: a term it sets aside is beaten in both scores by n others (and so is
    never among the first n at any lambda in [0, 1]); on random scores with ties and -inf."""
    rng = np.random.default_rng(0)
    for trial in range(60):
        V, n = int(rng.integers(5, 400)), int(rng.integers(1, 12))
        a = rng.normal(size=V).round(1)  # (ties)
        b = a + rng.normal(scale=float(rng.uniform(0.1, 3)), size=V).round(1)
        b[rng.random(V) < 0.1] = -np.inf
        out = _build._never_on_top(a, b, n)
        for w in np.flatnonzero(out):
            assert np.count_nonzero((a > a[w]) & (b > b[w])) >= n
        # and what it keeps holds the first n at every weight
        for lam in np.arange(11) / 10:
            score = np.where(np.isinf(b), -np.inf if lam < 1 else a, lam * a + (1 - lam) * np.where(np.isinf(b), 0, b))
            top = np.lexsort((np.arange(V), -score))[:n]
            assert not out[top].any()


def test_a_weight_between_the_slider_steps_shows_the_ranking_of_the_nearest_step(tmp_path):
    """An address may hold any weight (#lambda=0.104); the page snaps it to the slider's step (0.1), whose ranking
    it holds, and shows top_words' order there."""
    import shutil

    from test_report import BROWSERS, _chromium, _terms_in_dom

    from topicvb.inspection import top_words

    binary = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if binary is None:
        pytest.skip(f"no headless browser found (looked for {', '.join(BROWSERS)} on PATH)")
    model, X, terms = _gap_model()
    path = tmp_path / "gap.html"
    report(model, X, terms, n_words=30, path=path)
    dom = _chromium(binary, tmp_path, path.as_uri() + "#topic=0&lambda=0.104", "--dump-dom")
    assert _terms_in_dom(dom) == [w for w, _ in top_words(model, terms, 30, relevance=0.1, X=X)[0]]
    assert "TARGET" in _terms_in_dom(dom)
