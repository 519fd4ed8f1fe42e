"""The HTML report: page structure, embedded data, escaping, errors, and rendering in a headless browser."""

import html
import json
import re
import shutil
import struct
import subprocess
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from topicvb import BatchLDA, CollapsedLDA, OnlineLDA, PLSA
from topicvb.datasets import make_lda_corpus
from topicvb.evaluation import coherence
from topicvb.inspection import representative_documents, top_words, topic_prevalence
from topicvb.report import js_distances, pcoa, report

K, V = 4, 40
EVIL = "<script>alert(1)</script>"
DATA_RE = re.compile(r'<script type="application/json" id="tvb-data">(.*?)</script>', re.S)


def _fit(cls, X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return cls(K, random_state=0, **kw).fit(X)


@pytest.fixture(scope="module")
def corpus():
    c = make_lda_corpus(200, V, K, separated=True, random_state=0).corpus
    c.vocabulary[5] = EVIL
    c.vocabulary[6] = "fish & chips"
    c.texts = [f"Doc {d}: </script><b>bold</b> & " + " ".join(c.vocabulary[j] for j in c.X[d].indices)
               + " filler" * 80 for d in range(c.n_docs)]
    c.doc_ids = [f"id-{d:03d}" for d in range(c.n_docs)]
    return c


@pytest.fixture(scope="module")
def model(corpus):
    return _fit(BatchLDA, corpus.X)


@pytest.fixture(scope="module")
def page(model, corpus):
    return report(model, corpus, n_words=12, coherence_reference=corpus, title="Report <i>test</i>")


def _data(page):
    blocks = DATA_RE.findall(page)
    assert len(blocks) == 1
    return json.loads(blocks[0])


# ------------------------------------------------------------------------------------ structure
def test_page_is_one_self_contained_document(page):
    assert page.startswith("<!DOCTYPE html>")
    assert page.rstrip().endswith("</html>")
    assert page.count("<html") == 1 and page.count("</html>") == 1
    assert page.count("<body") == 1
    # exactly our two scripts (data and code), both inline, and one inline style sheet
    assert len(re.findall(r"<script\b", page)) == 2
    assert not re.search(r"<script[^>]*\ssrc\s*=", page)
    assert not re.search(r"<link\b", page) and "@import" not in page and "url(" not in page
    assert page.count("<style>") == 1
    # no network reference anywhere; the only URL-like string is the SVG namespace name
    assert set(re.findall(r"https?://[^\s\"'<>)]*", page)) <= {"http://www.w3.org/2000/svg"}


def test_embedded_data_shapes(page, model, corpus):
    data = _data(page)
    assert data["format"] == "topicvb-report" and data["model"] == "BatchLDA"
    assert (data["n_topics"], data["n_docs"], data["n_terms"]) == (K, corpus.n_docs, V)
    assert data["n_tokens"] == corpus.X.sum()
    assert len(data["topics"]) == K
    n_cand = len(data["terms"])
    assert len(data["term_count"]) == len(data["term_prob"]) == n_cand
    prevalence = np.array([t["prevalence"] for t in data["topics"]])
    assert prevalence.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(prevalence, topic_prevalence(model, corpus.X))
    coords = np.array([[t["x"], t["y"]] for t in data["topics"]])
    assert coords.shape == (K, 2) and np.all(np.isfinite(coords))
    assert np.abs(coords).max() > 0
    for k, t in enumerate(data["topics"]):
        assert t["topic"] == k
        assert data["n_words"] <= len(t["terms"]) == len(t["probs"]) <= n_cand
        assert all(0 <= w < n_cand for w in t["terms"])
        assert np.all(np.diff(t["probs"]) <= 0)  # by probability, best first
        assert len(t["docs"]) == 3 and len(t["top_words"]) == 10
        assert t["nearest"]["topic"] != k and 0 < t["nearest"]["distance"] <= 1


def test_map_is_pcoa_of_js_distances(page, model):
    data = _data(page)
    coords = np.array([[t["x"], t["y"]] for t in data["topics"]])
    expected = pcoa(js_distances(model.topic_word_distribution()))
    np.testing.assert_allclose(coords, expected, atol=1e-12)


def test_js_distances_and_pcoa():
    phi = np.array([[0.5, 0.5, 0, 0], [0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5], [0.25, 0.25, 0.25, 0.25]])
    D = js_distances(phi)
    np.testing.assert_allclose(D, D.T)
    np.testing.assert_allclose(np.diag(D), 0)
    assert D[0, 1] == pytest.approx(0.0) and D[0, 2] == pytest.approx(1.0)  # identical; disjoint supports
    assert 0 < D[0, 3] < 1
    # classical MDS recovers the pairwise distances of points that live in the plane
    pts = np.random.default_rng(0).normal(size=(6, 2))
    E = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    Y = pcoa(E)
    np.testing.assert_allclose(np.linalg.norm(Y[:, None] - Y[None], axis=2), E, atol=1e-10)
    assert pcoa(np.zeros((1, 1))).tolist() == [[0.0, 0.0]]


def test_candidates_rerank_like_top_words(page, model, corpus):
    """What the page's JavaScript does with the slider, in Python: the same order as top_words."""
    data = _data(page)
    p = np.array(data["term_prob"])
    index = {t: i for i, t in enumerate(data["terms"])}
    for lam in np.round(np.linspace(0, 1, 101), 2):
        exact = top_words(model, corpus.vocabulary, data["n_words"], relevance=float(lam), X=corpus.X)
        for k, t in enumerate(data["topics"]):
            w = np.array(t["terms"])
            log_phi = np.log(np.maximum(t["probs"], 1e-300))
            score = lam * log_phi + (1 - lam) * (log_phi - np.log(np.maximum(p[w], 1e-300)))
            if lam < 1:
                score[p[w] <= 0] = -np.inf  # a term absent from the corpus has no meaningful lift: last
            ranked = w[np.lexsort((w, -score))][: data["n_words"]]
            assert [data["terms"][i] for i in ranked] == [term for term, _ in exact[k]], (lam, k)
            assert all(term in index for term, _ in exact[k])


def test_coherence_prevalence_and_documents(page, model, corpus):
    data = _data(page)
    assert data["coherence_measure"] == "c_npmi"
    expected = coherence(top_words(model, corpus.vocabulary, 10), corpus).per_topic
    np.testing.assert_allclose([t["coherence"] for t in data["topics"]], expected)
    reps = representative_documents(model, corpus.X, n=3)
    for t, rep in zip(data["topics"], reps):
        assert [d["index"] for d in t["docs"]] == [row for row, _ in rep]
        for d in t["docs"]:
            assert d["id"] == corpus.doc_ids[d["index"]]
            assert d["text"].startswith(f"Doc {d['index']}: ") and len(d["text"]) <= 301
            assert d["text"].endswith("\u2026")
    # without a reference corpus, coherence is left out
    bare = report(model, corpus.X, corpus.vocabulary)
    data = _data(bare)
    assert data["coherence_measure"] is None and all(t["coherence"] is None for t in data["topics"])
    assert "c_npmi" not in bare
    assert all(t["docs"][0]["text"] is None and t["docs"][0]["id"].startswith("document ") for t in data["topics"])


def test_terms_texts_and_title_are_escaped(page):
    data = _data(page)
    assert EVIL in data["terms"] and "fish & chips" in data["terms"]  # round-trips through the JSON
    assert data["title"] == "Report <i>test</i>"
    assert EVIL not in page and "<b>bold</b>" not in page and "<i>test</i>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # static table
    assert "fish &amp; chips" in page
    assert "<title>Report &lt;i&gt;test&lt;/i&gt;</title>" in page
    assert page.count("</script>") == 2
    block = DATA_RE.search(page).group(1)
    assert "<" not in block and ">" not in block and "&" not in block


def test_static_table_lists_every_topic(page):
    assert len(re.findall(r'<tr data-row="\d+">', page)) == K
    assert "<noscript>" in page


@pytest.mark.parametrize("cls, kw", [(PLSA, {"max_iter": 30}), (BatchLDA, {"max_iter": 20}),
                                     (CollapsedLDA, {"max_iter": 20}), (OnlineLDA, {"max_iter": 3})],
                         ids=["PLSA", "BatchLDA", "CollapsedLDA", "OnlineLDA"])
def test_every_estimator(cls, kw, corpus):
    m = _fit(cls, corpus.X, **kw)
    data = _data(report(m, corpus.X, corpus.vocabulary, n_words=8, n_docs=2))
    assert data["model"] == cls.__name__ and len(data["topics"]) == K
    assert sum(t["prevalence"] for t in data["topics"]) == pytest.approx(1.0)
    assert all(np.isfinite([t["x"], t["y"]]).all() and len(t["docs"]) == 2 for t in data["topics"])


def test_corpus_argument_equals_explicit_arguments(model, corpus):
    a = report(model, corpus, n_words=7)
    b = report(model, corpus.X, corpus.vocabulary, texts=corpus.texts, doc_ids=corpus.doc_ids, n_words=7)
    assert a == b
    assert report(model, corpus, n_words=7) == a  # deterministic


def test_writes_file_atomically(model, corpus, tmp_path):
    out = tmp_path / "report.html"
    text = report(model, corpus, path=out)
    assert out.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        report(model, corpus, path=tmp_path / "missing" / "report.html")
    with pytest.raises(TypeError, match="path must be a str"):
        report(model, corpus, path=3)


def test_bad_input(model, corpus):
    with pytest.raises(NotFittedError, match="not fitted"):
        report(BatchLDA(K), corpus.X)
    with pytest.raises(TypeError, match="expects a fitted topic model"):
        report(np.ones((K, V)), corpus.X)
    with pytest.raises(ValueError, match=f"X has 5 terms .* fitted on {V}"):
        report(model, corpus.X[:, :5])
    with pytest.raises(ValueError, match=f"vocabulary has 3 terms, but the model has {V}"):
        report(model, corpus.X, ["a", "b", "c"])
    with pytest.raises(ValueError, match="texts has 2 entries, but X has 200 documents"):
        report(model, corpus.X, texts=["a", "b"])
    with pytest.raises(ValueError, match="doc_ids has 1 entries"):
        report(model, corpus.X, doc_ids=["a"])
    with pytest.raises(TypeError, match="texts must be a sequence"):
        report(model, corpus.X, texts="one string")
    with pytest.raises(ValueError, match="n_words must be a positive int"):
        report(model, corpus.X, n_words=0)
    with pytest.raises(TypeError, match="n_docs must be a positive int"):
        report(model, corpus.X, n_docs=2.5)
    with pytest.raises(TypeError, match="title must be a str"):
        report(model, corpus.X, title=None)
    with pytest.raises(ValueError, match="every document is empty"):
        report(model, sp.csr_matrix((3, V)))
    with pytest.raises(ValueError, match="negative"):
        report(model, -corpus.X)


# ------------------------------------------------------------------------------------ in a browser
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def chromium():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(f"no headless browser found (looked for {', '.join(BROWSERS)} on PATH); "
                "install one, e.g. apt-get install chromium, to run the rendering tests.")


def _chromium(binary, tmp_path, url, *args):
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", *args, url]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{binary} did not finish within 90 s: {' '.join(cmd)}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def browser_page(model, corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    report(model, corpus, n_words=12, coherence_reference=corpus, path=path)
    return path


def _terms_in_dom(dom):
    return [html.unescape(t) for t in re.findall(r'<div class="term" data-term="([^"]*)"', dom)]


def test_browser_renders_every_topic(chromium, browser_page, tmp_path):
    dom = _chromium(chromium, tmp_path, browser_page.as_uri(), "--dump-dom")
    assert 'data-rendered="true"' in dom and 'data-error="true"' not in dom
    marks = re.findall(r'<circle class="topic-circle[^"]*" data-topic="(\d+)"', dom)
    assert sorted(int(k) for k in marks) == list(range(K))  # the script draws one circle per topic
    assert len(re.findall(r'<circle class="topic-circle selected"', dom)) == 1
    assert len(_terms_in_dom(dom)) == 12
    assert len(re.findall(r'<div class="doc" data-doc="\d+"', dom)) == 3
    # the hostile term and text stay text: no script element was added
    assert len(re.findall(r"<script\b", dom)) == 2
    assert "&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;" in dom


@pytest.mark.parametrize("topic, lam", [(2, 0.4), (0, 0.0)])
def test_browser_relevance_ranking_matches_python(chromium, browser_page, tmp_path, model, corpus, topic, lam):
    """The page's own re-ranking (URL hash #topic=k&lambda=x sets the slider) equals top_words."""
    dom = _chromium(chromium, tmp_path, browser_page.as_uri() + f"#topic={topic}&lambda={lam}", "--dump-dom")
    expected = top_words(model, corpus.vocabulary, 12, relevance=lam, X=corpus.X)[topic]
    assert _terms_in_dom(dom) == [w for w, _ in expected]
    assert f'<circle class="topic-circle selected" data-topic="{topic}"' in dom


def test_browser_screenshot(chromium, browser_page, tmp_path):
    shot = tmp_path / "shot.png"
    _chromium(chromium, tmp_path, browser_page.as_uri(), f"--screenshot={shot}", "--window-size=1280,900",
              "--hide-scrollbars")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1280, 900)
    assert len(data) > 30_000  # a blank page is a few kB


def test_single_topic_and_tiny_vocabulary():
    c = make_lda_corpus(30, 5, 1, random_state=0).corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = BatchLDA(1, random_state=0, max_iter=5).fit(c.X)
    data = _data(report(m, c.X, n_words=30))
    assert data["n_words"] == 5 and len(data["topics"]) == 1
    t = data["topics"][0]
    assert (t["x"], t["y"], t["nearest"]) == (0.0, 0.0, None) and t["prevalence"] == pytest.approx(1.0)
    assert data["terms"] == [str(j) for j in range(5)]  # no vocabulary: column numbers


# ------------------------------------------------------------------------------------ layout, measured in a browser
MEASURE_JS = """
(function () {
  const out = { labels: [], leaders: 0, cells: [], rendered: document.getElementById("tvb-app").getAttribute("data-rendered") };
  for (const t of document.querySelectorAll("svg text.topic-label")) {
    const b = t.getBBox();
    out.labels.push({ topic: t.textContent, x0: b.x, y0: b.y, x1: b.x + b.width, y1: b.y + b.height,
                      size: Number(t.getAttribute("font-size")) });
  }
  out.leaders = document.querySelectorAll("svg line.leader").length;
  for (const td of document.querySelectorAll("table.summary td.doc")) {
    out.cells.push({ text: td.textContent, scroll: td.scrollWidth, client: td.clientWidth });
  }
  const pre = document.createElement("pre");
  pre.id = "measured";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
"""


def _measure(chromium, tmp_path, page):
    """Render the page with a measuring script appended, and return what it measured."""
    path = tmp_path / "measured.html"
    path.write_text(page.replace("</body>", f"<script>{MEASURE_JS}</script></body>"), encoding="utf-8")
    dom = _chromium(chromium, tmp_path, path.as_uri(), "--dump-dom", "--window-size=1280,900")
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def crowded_page():
    """40 topics in 20 near-identical pairs, so circles sit on top of each other (two-digit labels), and
    long document ids."""
    from topicvb.evaluation import FixedTopicModel

    gen = np.random.default_rng(0)
    n_base, V = 20, 200
    base = np.full((n_base, V), 1e-3)
    for i in range(n_base):
        base[i, gen.choice(V, 12, replace=False)] += gen.dirichlet(np.ones(12)) * 5
    phi = np.repeat(base, 2, axis=0) * gen.uniform(0.97, 1.03, size=(2 * n_base, V))
    phi /= phi.sum(axis=1, keepdims=True)
    rows = [gen.multinomial(60, base[d % n_base] / base[d % n_base].sum()) for d in range(400)]
    X = sp.csr_matrix(np.array(rows, dtype=float))
    ids = [f"sklearn.ensemble._forest.RandomForestClassifier.predict_log_proba_{d:03d}" for d in range(400)]
    model = FixedTopicModel(phi)
    return report(model, X, [f"term{j}" for j in range(V)], doc_ids=ids, n_words=10, n_docs=1)


def test_browser_map_labels_do_not_overlap(chromium, crowded_page, tmp_path):
    out = _measure(chromium, tmp_path, crowded_page)
    assert out["rendered"] == "true"
    labels = out["labels"]
    assert sorted(int(lab["topic"]) for lab in labels) == list(range(40))
    for lab in labels:  # measured boxes, so a wrong estimate of glyph widths cannot hide an overlap
        assert lab["x1"] - lab["x0"] >= 0.4 * lab["size"] * len(lab["topic"])
        assert 0 <= lab["x0"] and lab["x1"] <= 400 and 0 <= lab["y0"] and lab["y1"] <= 400, lab
    clashes = [(a["topic"], b["topic"]) for i, a in enumerate(labels) for b in labels[i + 1:]
               if min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 0 and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 0]
    assert clashes == []
    assert out["leaders"] > 0  # labels moved off their circles are tied to them by a leader line


def test_browser_example_document_column_is_not_cut(chromium, crowded_page, tmp_path):
    out = _measure(chromium, tmp_path, crowded_page)
    cells = out["cells"]
    assert len(cells) == 40
    for cell in cells:
        assert cell["scroll"] <= cell["client"], cell  # nothing hidden behind an ellipsis or the cell's edge
        assert re.fullmatch(r"\d{1,3}\.\d% sklearn\.ensemble\._forest\.RandomForestClassifier\.predict_log_proba_\d{3}",
                            cell["text"].strip()), cell


# ------------------------------------------------------------------------------------ junk topics
@pytest.fixture(scope="module")
def junk_page():
    """Three topics over 30 terms: two of words spread over 150 documents, one of non-words ("0d", "w7")."""
    from topicvb.evaluation import FixedTopicModel

    vocab = ([f"{w}" for w in "apple banana cherry grape lemon mango olive peach pear plum".split()]
             + [f"{w}" for w in "atom boson charge electron energy field lepton mass muon quark".split()]
             + ["0d", "w7", "34u", "ax", "c_", "b8f", "a86", "g9v", "mv", "_o"])
    phi = np.full((3, 30), 1e-4)
    for k in range(3):
        phi[k, 10 * k:10 * k + 10] = 1.0
    gen = np.random.default_rng(0)
    X = np.zeros((150, 30))
    for d in range(150):
        X[d, 10 * (d % 3):10 * (d % 3) + 10] = gen.integers(1, 4, size=10)
    return report(FixedTopicModel(phi), sp.csr_matrix(X), vocab, n_words=10)


def test_junk_topics_in_data_and_table(junk_page):
    data = _data(junk_page)
    assert [t["junk"] for t in data["topics"]] == [[], [], ["non-words"]]
    rows = re.findall(r'<tr data-row="(\d)">(.*?)</tr>', junk_page, re.S)
    assert [('class="junk"' in row) for _, row in rows] == [False, False, True]
    assert "1 flagged as junk" in junk_page


def test_browser_shows_the_junk_flag(chromium, junk_page, tmp_path):
    path = tmp_path / "junk.html"
    path.write_text(junk_page, encoding="utf-8")
    dom = _chromium(chromium, tmp_path, path.as_uri() + "#topic=2&lambda=1", "--dump-dom")
    assert re.search(r'<circle class="topic-circle junk[^"]*" data-topic="2"', dom)
    assert len(re.findall(r'<circle class="topic-circle junk', dom)) == 1
    assert '<dd><span class="junk">probably junk: non-words</span>' in dom  # in the topic's facts
    dom = _chromium(chromium, tmp_path, path.as_uri() + "#topic=0&lambda=1", "--dump-dom")
    assert '<dd><span class="junk">' not in dom


# ------------------------------------------------------------------------------------ guided topics that lost their seeds
def _lost_seed_page(cls):
    """Two themes (a0-a9, b0-b9), two topics both seeded with words of theme a: one loses its seed word."""
    from topicvb.exceptions import SeedLostWarning
    from topicvb.guided import seed_holding, seed_topic_prior

    gen = np.random.default_rng(0)
    vocab = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    X = sp.csr_matrix(np.array([np.bincount((d % 2) * 10 + gen.integers(0, 10, 30), minlength=20)
                                for d in range(200)], dtype=np.float64))
    prior = seed_topic_prior(vocab, {"x": ["a0"], "y": ["a1"]}, 2)
    with pytest.warns(SeedLostWarning):
        model = cls(2, topic_word_prior=prior, random_state=0).fit(X)
    lost = next(h for h in seed_holding(model) if h.lost)
    return report(model, X, vocab, n_words=10), lost


@pytest.fixture(scope="module")
def lost_seed_page():
    return _lost_seed_page(CollapsedLDA)


def test_a_seeded_topic_that_lost_its_seeds_is_flagged(lost_seed_page):
    page, lost = lost_seed_page
    data = _data(page)
    assert [t["seeds_lost_to"] for t in data["topics"]] == [
        None if k != lost.topic else ["x", "y"][lost.taken_by] for k in range(2)]


def test_a_plsa_seeded_topic_that_lost_its_seeds_is_flagged():
    """PLSA's topics are probabilities: the check weighs them by the topic sizes its fit keeps (topic_tokens_)."""
    from topicvb import PLSA

    page, lost = _lost_seed_page(PLSA)
    assert [t["seeds_lost_to"] for t in _data(page)["topics"]] == [
        None if k != lost.topic else ["x", "y"][lost.taken_by] for k in range(2)]


def test_browser_shows_the_lost_seeds(chromium, lost_seed_page, tmp_path):
    page, lost = lost_seed_page
    path = tmp_path / "lost.html"
    path.write_text(page, encoding="utf-8")
    dom = _chromium(chromium, tmp_path, path.as_uri() + f"#topic={lost.topic}&lambda=1", "--dump-dom")
    taker = ["x", "y"][lost.taken_by]
    assert f'<dt>Seed words</dt><dd><span class="junk">lost to {taker}</span>' in dom
    dom = _chromium(chromium, tmp_path, path.as_uri() + f"#topic={lost.taken_by}&lambda=1", "--dump-dom")
    assert "<dt>Seed words</dt>" not in dom
