"""Recipe: Reuters-21578 (Distribution 1.0, SGML) as a topicvb Corpus.

Usage::

    python corpora/recipes/reuters21578.py reuters21578.tar.gz reuters.npz [--modapte train|test]

or from Python::

    from reuters21578 import load_reuters21578
    corpus = load_reuters21578("reuters21578.tar.gz", split="train")   # ModApte train, 9,603 docs

The SGML is not well-formed XML, so each ``<REUTERS ...>`` element is cut out with a regular
expression. A document's text is its ``<TITLE>`` and ``<BODY>`` (or the whole ``<TEXT>`` for
``TYPE="BRIEF"``/``"UNPROC"`` articles), with entities such as ``&lt;`` and ``&#3;`` decoded.
Files are decoded as latin-1 (``reut2-017.sgm`` holds one raw 0xFC byte). Labels are the first
``<TOPICS>`` category, or ``""`` when an article has none; :func:`read_articles` returns every category of each article.
"""

from __future__ import annotations

import argparse
import html
import re
import tarfile

import numpy as np

from topicvb.datasets import Corpus, vectorize_texts

_ARTICLE = re.compile(r"<REUTERS(?P<attrs>[^>]*)>(?P<body>.*?)</REUTERS>", re.DOTALL)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_TAG = re.compile(r"<[^>]+>")


def _field(body: str, tag: str) -> str:
    m = re.search(rf"<{tag}[^>]*>(.*?)</{tag}>", body, re.DOTALL)
    return m.group(1) if m else ""


def read_articles(archive: str) -> list[dict]:
    """Every article of the archive as a dict: newid, lewissplit, topics_attr, topics, text."""
    articles = []
    with tarfile.open(archive, "r:*") as tar:
        for member in sorted((m for m in tar if m.name.endswith(".sgm")), key=lambda m: m.name):
            sgml = tar.extractfile(member).read().decode("latin-1")
            for m in _ARTICLE.finditer(sgml):
                attrs = dict(_ATTR.findall(m.group("attrs")))
                body = m.group("body")
                text_el = _field(body, "TEXT")
                title, main = _field(text_el, "TITLE"), _field(text_el, "BODY")
                text = f"{title}\n{main}" if (title or main) else _TAG.sub(" ", text_el)
                articles.append(
                    {
                        "newid": int(attrs["NEWID"]),
                        "lewissplit": attrs.get("LEWISSPLIT", ""),
                        "topics_attr": attrs.get("TOPICS", ""),
                        "topics": re.findall(r"<D>(.*?)</D>", _field(body, "TOPICS")),
                        "text": html.unescape(text).strip(),
                    }
                )
    articles.sort(key=lambda a: a["newid"])
    return articles


def load_reuters21578(archive: str, split: str | None = None, vectorizer=None) -> Corpus:
    """Reuters-21578 as a Corpus; ``split`` "train"/"test" selects the ModApte split, None keeps all."""
    articles = read_articles(archive)
    if split is not None:
        want = {"train": "TRAIN", "test": "TEST"}[split]
        articles = [a for a in articles if a["lewissplit"] == want and a["topics_attr"] == "YES"]
    texts = [a["text"] for a in articles]
    labels = [a["topics"][0] if a["topics"] else "" for a in articles]
    names = sorted(set(labels))
    X, vocabulary = vectorize_texts(texts, vectorizer)
    return Corpus(
        X=X,
        vocabulary=vocabulary,
        texts=texts,
        doc_ids=[str(a["newid"]) for a in articles],
        labels=np.searchsorted(names, labels),
        label_names=names,
        name=f"reuters21578-{split or 'all'}",
        description="Reuters-21578, Distribution 1.0" + (f", ModApte {split}" if split else "") + ".",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("output", help="where to save the Corpus (.npz)")
    parser.add_argument("--modapte", choices=["train", "test"], default=None)
    args = parser.parse_args()
    corpus = load_reuters21578(args.archive, args.modapte)
    corpus.save(args.output)
    print(corpus.summary())
