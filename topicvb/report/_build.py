"""Assemble the data of the HTML report (Python side) and render the self-contained page.

Everything numerical happens here, with NumPy: the topic-word distributions, prevalence and
representative documents (from :mod:`topicvb.inspection`), coherence (from
:mod:`topicvb.evaluation`), the Jensen-Shannon distances between topics and their classical
multidimensional scaling. The page's JavaScript only lays out and re-ranks what is embedded.
"""

from __future__ import annotations

import html
import json
import logging
import os
import re

import numpy as np
import scipy.sparse as sp

from .._kernels.distances import js_divergences
from ..datasets._files import atomic_paths, check_targets
from ..evaluation._common import (
    check_counts,
    top_columns,
    check_model,
    check_positive_int,
    prevalence_and_doc_topic,
    resolve_vocabulary,
    topic_word,
)
from .._inspection_words import as_model, custom_labels
from .._inspection_coherence import check_coherence_measure, coherence_values, reference_of
from .._validation import encodable
from ..inspection import junk_topics, representative_documents, summary
from ._template import CSS, JS

logger = logging.getLogger(__name__)

#: The relevance weights the page's slider (and a view's address) can show: 0, 0.01, ..., 1. The candidate
#: terms of each topic are those that rank among the first n_words (and a margin more) at one of them, so the
#: page's re-ranking of the candidates matches top_words at every weight it shows.
RELEVANCE_STEPS = 100
#: Characters of a document's text shown as an example.
SNIPPET_CHARS = 300
#: Words per topic in the static table and for coherence.
TABLE_WORDS = 10
DATA_VERSION = 1


# ---------------------------------------------------------------------------------------- geometry
def js_distances(phi: np.ndarray) -> np.ndarray:
    """Jensen-Shannon distances (square root of the base-2 divergence, in [0, 1]) between rows of ``phi``.

    Parameters
    ----------
    phi : ndarray of shape (n_topics, n_terms)
        Rows are probability distributions.

    Returns
    -------
    ndarray of shape (n_topics, n_topics)
        Symmetric, zero diagonal.
    """
    return np.sqrt(js_divergences(np.asarray(phi, dtype=np.float64)))


def pcoa(D: np.ndarray, n_components: int = 2) -> np.ndarray:
    """Classical multidimensional scaling (principal coordinates) of a distance matrix.

    Double-centres -D^2/2 and keeps the leading eigenvectors scaled by the square roots of their
    (non-negative) eigenvalues; missing dimensions (fewer points or a rank-deficient matrix) are
    zero. Each axis is oriented so that its largest coordinate in absolute value is positive,
    which makes the layout deterministic.

    Returns
    -------
    ndarray of shape (n_points, n_components)
    """
    D = np.asarray(D, dtype=np.float64)
    n = D.shape[0]
    out = np.zeros((n, n_components))
    if n < 2:
        return out
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ (D ** 2) @ J
    vals, vecs = np.linalg.eigh((B + B.T) / 2)
    order = np.argsort(vals)[::-1][:n_components]
    for i, j in enumerate(order):
        if vals[j] <= 1e-12:
            break
        v = vecs[:, j] * np.sqrt(vals[j])
        if v[np.argmax(np.abs(v))] < 0:
            v = -v
        out[:, i] = v
    return out


# ---------------------------------------------------------------------------------------- inputs
def _as_strings(values, what: str, n_docs: int) -> list | None:
    if values is None:
        return None
    if isinstance(values, (str, bytes)):
        raise TypeError(f"report: {what} must be a sequence with one entry per document, got a single str.")
    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"report: {what} must be a sequence with one entry per document, got "
                        f"{type(values).__name__}.") from None
    if len(values) != n_docs:
        raise ValueError(f"report: {what} has {len(values)} entries, but X has {n_docs} documents; they must match.")
    return values


def _snippet(text) -> str | None:
    if text is None:
        return None
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = re.sub(r"\s+", " ", str(text)).strip()
    if len(text) > SNIPPET_CHARS:
        text = text[:SNIPPET_CHARS].rstrip() + "\u2026"
    return text


def _finite(x: float) -> float:
    x = float(x)
    if not np.isfinite(x):
        raise ValueError(f"report: a non-finite value ({x}) reached the page data; the model may be degenerate.")
    return x


# ---------------------------------------------------------------------------------------- data
def _unpack_corpus(X, vocabulary, texts, doc_ids):
    """``(X, vocabulary, texts, doc_ids)``, taken from a topicvb Corpus where not given explicitly."""
    if hasattr(X, "X") and hasattr(X, "vocabulary") and not sp.issparse(X):  # a topicvb Corpus
        corpus = X
        X = corpus.X
        vocabulary = corpus.vocabulary if vocabulary is None else vocabulary
        texts = getattr(corpus, "texts", None) if texts is None else texts
        doc_ids = getattr(corpus, "doc_ids", None) if doc_ids is None else doc_ids
    return X, vocabulary, texts, doc_ids


def _counted_texts(model, X, texts):
    """``(X, texts)``: texts given as X to a pipeline (a TopicPipeline, or a fitted Pipeline of a vectorizer and a
    model) counted by its steps before the model, the texts then shown unless ``texts`` is given; else as given."""
    from sklearn.pipeline import Pipeline

    if not isinstance(model, Pipeline) or len(model.steps) < 2 or sp.issparse(X):
        return X, texts
    docs = X.tolist() if isinstance(X, np.ndarray) and X.ndim == 1 else X
    if hasattr(docs, "to_list") and not hasattr(docs, "columns"):  # (a pandas Series of texts)
        docs = docs.to_list()
    if not (isinstance(docs, (list, tuple)) and docs and all(isinstance(d, str) for d in docs)):
        return X, texts
    return model[:-1].transform(list(docs)), (list(docs) if texts is None else texts)


def _corpus_terms(X) -> list | None:
    """The terms of a topicvb Corpus's columns, or None: X is no Corpus, or its columns have numbers (a matrix read
    without its vocabulary), not terms of their own."""
    if not (hasattr(X, "X") and hasattr(X, "vocabulary") and not sp.issparse(X)) or X.vocabulary is None:
        return None
    from ..datasets._bow import placeholder_vocabulary
    from ..datasets._npz import numbered_vocabulary

    terms, n = list(X.vocabulary), len(X.vocabulary)
    return None if terms in (numbered_vocabulary(n), placeholder_vocabulary(n)) else terms


def _check_corpus_terms(own, terms) -> None:
    """ValueError when a Corpus's own terms are not those the report reads its columns as (``terms``: the
    pipeline's, the ``vocabulary`` given or the model's): its counts would be taken for other words."""
    terms = [str(t) for t in terms]
    if own is None or own == terms:
        return
    where = next((j for j, (a, b) in enumerate(zip(own, terms)) if a != b), min(len(own), len(terms)))
    first = (f"column {where} is {own[where]!r} in the corpus and {terms[where]!r} in the model's terms"
             if where < min(len(own), len(terms)) else "one list is longer")
    raise ValueError(
        f"report: X is a Corpus over other terms than the model's ({len(own)} terms against {len(terms)}, "
        f"{len(set(own) & set(terms))} shared; {first}), so its counts would be read as other words; count the "
        "texts over the model's terms (its pipeline's vectorizer, or Vectorizer(vocabulary=...)), or pass the "
        "matrix alone.")


def _never_on_top(a, b, n: int) -> np.ndarray:
    """Whether each term is beaten, in both of its scores ``a`` (lambda = 1) and ``b`` (lambda = 0), by at least
    ``n`` terms: then by those n at every lambda in [0, 1] (the relevance lambda a + (1 - lambda) b is a convex
    combination), so it is never among the first n. Checked against the n best ``b`` among the terms of larger
    ``a`` than the n-th, 2n-th, 4n-th, ... largest: a cheap test that finds most such terms and no other."""
    out = np.zeros(a.shape[0], dtype=bool)
    c = n
    while c < a.shape[0]:
        cut = np.partition(a, a.shape[0] - c)[a.shape[0] - c]  # the c-th largest a
        above = a > cut
        m = int(np.count_nonzero(above))
        if m >= n:
            nth = np.partition(b[above], m - n)[m - n]  # the n-th largest b among the terms of larger a
            out |= (a <= cut) & (b < nth)
        c *= 2
    return out


def _candidate_terms(phi: np.ndarray, tf: np.ndarray, n_words: int) -> list[np.ndarray]:
    """Per topic, the column numbers (ascending) of every term that ``top_words(relevance=lam)`` ranks among the
    first ``n_words`` at a weight the page can show (:data:`RELEVANCE_STEPS`), with a margin of max(10, n_words
    // 2) more at each. The relevance is computed with top_words' operations (the same bits), over the terms
    that can rank there at all (:func:`_never_on_top`): no (K, V) array beside ``phi``."""
    n_terms = phi.shape[1]
    n_ranked = min(n_terms, n_words + max(10, n_words // 2))
    lam = np.arange(RELEVANCE_STEPS + 1) / RELEVANCE_STEPS
    tiny = 1e-300  # (as inspection.top_words)
    p = tf / tf.sum()
    log_p = np.log(np.maximum(p, tiny))
    unseen = p <= 0
    cands = []
    for k in range(phi.shape[0]):
        log_phi = np.log(np.maximum(phi[k], tiny))
        lift = log_phi - log_p
        at_zero = np.where(unseen, -np.inf, lift)  # (a term the corpus lacks ranks last at every lambda < 1)
        cols = np.flatnonzero(~_never_on_top(log_phi, at_zero, n_ranked))
        scores = lam[:, None] * log_phi[cols][None, :] + (1.0 - lam)[:, None] * lift[cols][None, :]
        scores[:-1, unseen[cols]] = -np.inf
        cands.append(np.unique(cols[top_columns(scores, n_ranked)]))
    return cands


def _documents(reps_k, texts, doc_ids) -> list[dict]:
    """The page records of one topic's representative documents."""
    return [{
        "index": row,
        "id": str(doc_ids[row]) if doc_ids is not None else f"document {row}",
        "share": _finite(share),
        "text": _snippet(texts[row]) if texts is not None else None,
    } for row, share in reps_k]


def _seeds_lost_to(model, n_topics: int) -> list:
    """Per topic, the name of the topic that took its seed words when it is a seeded topic that lost them
    (:func:`topicvb.guided.seed_holding`), else None; all None for models without seeds (and for a PLSA model
    saved without ``topic_tokens_``)."""
    from .._seed_holding import _known_holdings

    out = [None] * n_topics
    labels = getattr(model, "topic_labels_", None)
    for h in _known_holdings(model):
        if h.lost:
            out[h.topic] = str(labels[h.taken_by]) if labels is not None else f"topic_{h.taken_by}"
    return out


def _topic_entries(phi, cands, compact, prevalence, n_tokens, coh, table, reps, texts, doc_ids, junk,
                   seeds_lost_to) -> list[dict]:
    """The page record of every topic: name, place on the map, prevalence, terms, coherence, documents.

    ``label`` is the topic's name when it has one of its own (a guided topic's label), else None
    (the page then calls it "Topic k", as it calls every topic of a model without names);
    ``seeds_lost_to`` the name of the topic that took a seeded topic's seed words, else None."""
    dist = js_distances(phi)
    coords = pcoa(dist, 2)
    names = custom_labels(table.labels)
    topics = []
    for k in range(phi.shape[0]):
        idx = sorted(cands[k].tolist(), key=lambda j: (-phi[k, j], j))
        others = [j for j in np.argsort(dist[k], kind="stable") if j != k]
        topics.append({
            "topic": k,
            "label": names[k] if names and names[k] != f"topic_{k}" else None,
            "prevalence": _finite(prevalence[k]),
            "tokens": _finite(prevalence[k] * n_tokens),
            "x": _finite(coords[k, 0]),
            "y": _finite(coords[k, 1]),
            "coherence": None if coh is None else _finite(coh[k]),
            "nearest": None if not others else {"topic": int(others[0]), "distance": _finite(dist[k, others[0]])},
            "terms": [compact[j] for j in idx],
            "probs": [_finite(phi[k, j]) for j in idx],
            "top_words": [w for w, _ in table.topics[k]],
            "docs": _documents(reps[k], texts, doc_ids),
            "junk": list(junk[k]),
            "seeds_lost_to": seeds_lost_to[k],
        })
    return topics


def build_data(model, X, vocabulary=None, *, texts=None, doc_ids=None, n_words: int = 30, n_docs: int = 3,
               coherence_reference=None, coherence_measure: str = "c_npmi", title: str = "topicvb report") -> dict:
    """The JSON-serialisable data of the report (see :func:`report` for the parameters)."""
    X, texts = _counted_texts(model, X, texts)
    model, vocabulary = as_model(model, vocabulary)
    check_model(model, "report")
    check_coherence_measure(coherence_measure, "report")  # (before the work, not when the coherence is computed)
    if coherence_reference is not None and coherence_values(coherence_reference, int(np.shape(model.components_)[0]),
                                                             "report", "coherence_reference") is None:
        coherence_reference = reference_of(coherence_reference, "report", "coherence_reference")  # (checked first too)
    own_terms = _corpus_terms(X)
    X, vocabulary, texts, doc_ids = _unpack_corpus(X, vocabulary, texts, doc_ids)
    n_words = check_positive_int(n_words, "n_words")
    n_docs = check_positive_int(n_docs, "n_docs")
    if not isinstance(title, str):
        raise TypeError(f"report: title must be a str, got {type(title).__name__}.")
    terms = resolve_vocabulary(model, vocabulary, caller="report")
    _check_corpus_terms(own_terms, terms)
    X = check_counts(X, model, name="X", caller="report")
    D, V = X.shape
    texts = _as_strings(texts, "texts", D)
    doc_ids = _as_strings(doc_ids, "doc_ids", D)

    phi = topic_word(model)
    prevalence, theta = prevalence_and_doc_topic(model, X, "report")
    tf = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    n_tokens = float(tf.sum())
    n_cand = min(n_words, V)
    cands = _candidate_terms(phi, tf, n_cand)
    used = np.unique(np.concatenate(cands)).tolist()
    compact = {j: i for i, j in enumerate(used)}  # compact order = column order (ties break alike)
    # coherence and the static table's words (ranked by probability), via inspection.summary
    table = summary(model, None, terms, n=min(TABLE_WORDS, V), coherence=coherence_reference,
                    coherence_measure=coherence_measure)
    coh = table.coherence
    reps = representative_documents(model, X, n=n_docs, doc_topic=theta)
    junk = junk_topics(model, X, vocabulary, doc_topic=theta)
    topics = _topic_entries(phi, cands, compact, prevalence, n_tokens, coh, table, reps, texts, doc_ids, junk,
                            _seeds_lost_to(model, phi.shape[0]))
    return {
        "format": "topicvb-report",
        "version": DATA_VERSION,
        "title": title,
        "model": type(model).__name__,
        "n_topics": phi.shape[0],
        "n_docs": int(D),
        "n_terms": int(V),
        "n_tokens": n_tokens,
        "n_words": n_cand,
        "default_lambda": 1.0,
        "has_texts": texts is not None,
        "coherence_measure": table.coherence_measure if coh is not None else None,
        "coherence_mean": None if coh is None else _finite(np.mean(coh)),
        "terms": [terms[j] for j in used],
        "term_count": [_finite(tf[j]) for j in used],
        "term_prob": [_finite(tf[j] / n_tokens) for j in used],
        "topics": topics,
    }


# ---------------------------------------------------------------------------------------- html
def _json_for_script(data: dict) -> str:
    """JSON that is safe inside a <script> element: no '<', '>' or '&' outside escapes."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _fmt_pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _breakable(text: str) -> str:
    """Escaped text with line-break opportunities after separators, so long ids wrap at their parts."""
    return re.sub(r"([._/:-])", r"\1<wbr>", html.escape(text))


def _static_table(data: dict) -> str:
    """The summary table, rendered in HTML (no JavaScript needed)."""
    esc = html.escape
    measure = data["coherence_measure"]
    max_prev = max((t["prevalence"] for t in data["topics"]), default=1.0) or 1.0
    head = ["Topic", "Prevalence"] + ([esc(measure)] if measure else []) + ["Top words", "Example document"]
    rows = []
    for t in data["topics"]:
        k = t["topic"]
        width = round(60 * t["prevalence"] / max_prev)
        flag = (f' <span class="junk" title="{esc(_JUNK_NOTE)}">{esc(", ".join(t["junk"]))}</span>'
                if t["junk"] else "")
        if t.get("seeds_lost_to"):  # (as summary's junk column says it)
            flag += (f' <span class="junk" title="{esc(_LOST_NOTE)}">lost seed words (to '
                     f'{esc(repr(t["seeds_lost_to"]))})</span>')
        name = f' <span class="label">{esc(t["label"])}</span>' if t.get("label") else ""
        cells = [
            f'<td class="num nowrap">{k}{name}{flag}</td>',
            f'<td class="num nowrap">{_fmt_pct(t["prevalence"])}<span class="pbar" style="width:{width}px"></span></td>',
        ]
        if measure:
            cells.append(f'<td class="num">{t["coherence"]:.3f}</td>')
        cells.append(f'<td class="words">{" · ".join(f"<bdi>{esc(w)}</bdi>" for w in t["top_words"])}</td>')
        if t["docs"]:
            d = t["docs"][0]
            tip = f' title="{esc(d["text"])}"' if d["text"] else ""
            cells.append(f'<td class="doc"{tip}><span class="share">{_fmt_pct(d["share"])}</span> '
                         f'<span class="docid">{_breakable(d["id"])}</span></td>')
        else:
            cells.append('<td class="doc muted">none</td>')
        rows.append(f'<tr data-row="{k}">' + "".join(cells) + "</tr>")
    return ('<table class="summary"><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


_LOST_NOTE = ("This seeded topic holds less than half the share of its seed words that its prior gives it: its name "
              "may not describe it (topicvb.guided.seed_holding).")
_JUNK_NOTE = ("Probably junk: 'non-words' = at least half of the 10 top words have no letter, a digit or "
              "fewer than 3 characters; 'few documents' = 10 or fewer documents hold more than half of the "
              "topic's tokens (topicvb.inspection.junk_topics).")


def render_html(data: dict) -> str:
    """The complete, self-contained HTML page for ``data`` (from :func:`build_data`)."""
    esc = html.escape
    title = esc(data["title"])
    facts = (f'{esc(data["model"])} · {data["n_topics"]} topics · {data["n_docs"]:,} documents · '
             f'{data["n_terms"]:,} terms · {int(round(data["n_tokens"])):,} tokens')
    if data["coherence_measure"]:
        facts += f' · mean {esc(data["coherence_measure"])} {data["coherence_mean"]:.3f}'
    n_junk = sum(1 for t in data["topics"] if t.get("junk") or t.get("seeds_lost_to"))
    if n_junk:
        lost = any(t.get("seeds_lost_to") for t in data["topics"])
        what, note = ("as junk or for lost seed words", _JUNK_NOTE + " " + _LOST_NOTE) if lost else ("as junk", _JUNK_NOTE)
        facts += f' · <span class="junk" title="{esc(note)}">{n_junk} flagged {what}</span>'
    return f"""<!DOCTYPE html>
<html lang="en" class="no-js">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="topicvb">
<title>{title}</title>
<style>{CSS}</style>
</head>
<body>
<header class="top">
<h1>{title}</h1>
<p class="facts">{facts}</p>
</header>
<noscript><p class="note">JavaScript is off: the inter-topic map and the relevance slider are not shown.
The table below lists every topic.</p></noscript>
<main>
<div id="tvb-app" aria-live="polite"></div>
<section class="panel table-panel">
<h2>All topics <span class="muted">(top {min(TABLE_WORDS, data["n_terms"])} words by probability; prevalence = share of
corpus tokens)</span></h2>
{_static_table(data)}
</section>
</main>
<footer class="muted">Made by topicvb. Map: classical multidimensional scaling of Jensen-Shannon distances between
topic-word distributions; circle area = prevalence. Relevance (Sievert &amp; Shirley, 2014) =
λ log p(w|k) + (1 − λ) log(p(w|k) / p(w)).</footer>
<script type="application/json" id="tvb-data">{_json_for_script(data)}</script>
<script>{JS}</script>
</body>
</html>
"""


def report(model, X, vocabulary=None, *, texts=None, doc_ids=None, n_words: int = 30, n_docs: int = 3,
           coherence_reference=None, coherence_measure: str = "c_npmi", title: str = "topicvb report",
           path=None) -> str:
    """An interactive, self-contained HTML report of a fitted topic model.

    The page holds an inter-topic map (classical multidimensional scaling of the Jensen-Shannon
    distances between topics, circle area = prevalence; a label that would run into another one
    is moved beside its circle, with a leader line), the selected topic's top terms as bars with a
    relevance slider (Sievert & Shirley, 2014), each topic's prevalence, coherence, junk flags
    (:func:`topicvb.inspection.junk_topics`: dominated by non-words or by 10 or fewer documents;
    dashed circles on the map) and representative documents, and a summary table that needs no
    JavaScript. Everything is inline, so the file works offline and can be mailed or archived as
    it is.

    Parameters
    ----------
    model : fitted topic model or TopicPipeline
        Any topicvb estimator (or anything :func:`topicvb.inspection.top_words` accepts); a
        :class:`~topicvb.TopicPipeline` (what :func:`topicvb.load` returns for a model saved with
        its vectorizer) stands for its model, and its vectorizer's terms for ``vocabulary``.
    X : {array-like, sparse matrix} of shape (n_docs, n_terms), Corpus, or sequence of str
        Term counts over the model's vocabulary, usually the training corpus; a Corpus also
        supplies the vocabulary, texts and document ids (explicit arguments win; its terms must be
        the model's). With a pipeline as ``model``, the documents' texts may be given instead:
        its vectorizer counts them, and they are the texts shown unless ``texts`` is given.
    vocabulary : sequence of str or Vocabulary, default=None
        The term of each column; None means the model's ``feature_names_in_`` or column numbers.
    texts : sequence of str, default=None
        Raw text of each document; the first 300 characters of the representative documents are shown.
    doc_ids : sequence of str, default=None
        A name per document, shown for the representative documents (default: ``document <row>``).
    n_words : int, default=30
        Terms shown per topic (clipped to the vocabulary size).
    n_docs : int, default=3
        Representative documents per topic.
    coherence_reference : reference corpus, default=None
        Anything :func:`topicvb.evaluation.coherence` accepts (a Corpus, an ``(X, vocabulary)``
        pair, tokenised documents): the report shows the coherence of each topic's top 10 words. Or
        precomputed values, one finite number per topic.
    coherence_measure : {"u_mass", "c_uci", "c_npmi", "c_v"}, default="c_npmi"
        The coherence measure.
    title : str, default="topicvb report"
        Page title.
    path : str or os.PathLike, default=None
        When given, the page is also written there (UTF-8, atomically); its folder must exist (checked
        before the work).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    NotFittedError
        If the model is not fitted.
    ValueError
        If ``X`` has the wrong width, negative counts or no tokens, the vocabulary, texts or
        doc_ids have the wrong length, ``X`` is a Corpus over other terms than the model's, ``path`` is a
        folder, ``n_words``/``n_docs`` is not positive,
        ``coherence_measure`` is unknown, or precomputed ``coherence_reference`` values are not one finite
        number per topic.
    TypeError
        If the model, ``title``, ``texts``, ``doc_ids`` or ``path`` has the wrong type.
    FileNotFoundError
        If the folder of ``path`` does not exist.

    References
    ----------
    Sievert & Shirley (2014), LDAvis: A method for visualizing and interpreting topics, ILLVI workshop.
    Chuang, Manning & Heer (2012), Termite: visualization techniques for assessing textual topic models, AVI.

    Examples
    --------
    >>> from topicvb import BatchLDA
    >>> from topicvb.datasets import make_lda_corpus
    >>> corpus = make_lda_corpus(100, 30, 3, separated=True, random_state=0).corpus
    >>> model = BatchLDA(3, random_state=0).fit(corpus.X)
    >>> page = report(model, corpus, n_words=10)
    >>> page.startswith("<!DOCTYPE html>")
    True
    """
    if path is not None:  # (before the work, which takes minutes for a large model)
        _check_page_path(path)
    data = build_data(model, X, vocabulary, texts=texts, doc_ids=doc_ids, n_words=n_words, n_docs=n_docs,
                      coherence_reference=coherence_reference, coherence_measure=coherence_measure, title=title)
    page = render_html(data)
    if path is not None:
        _write_page(page, path)
    return page


def _check_page_path(path) -> None:
    """``report``'s ``path``: a str or os.PathLike, not empty, in a folder that exists, not a folder itself."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"report: path must be a str or os.PathLike, got {type(path).__name__}.")
    if os.fspath(path) == "":
        raise ValueError("report: path is empty; give the file to write, e.g. 'report.html'.")
    check_targets([path])


def _write_page(page: str, path) -> None:
    """Write the page to ``path`` (UTF-8, atomically: a temporary file renamed into place)."""
    page = encodable(page)  # (a lone surrogate, a byte that was not UTF-8 in a file name or a text: U+FFFD)
    with atomic_paths([path]) as (tmp,):
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(page)  # the temporary file already has the mode the umask gives (create_temp_file)
    logger.info("report: wrote %s (%d bytes).", os.fspath(path), len(page.encode("utf-8")))
