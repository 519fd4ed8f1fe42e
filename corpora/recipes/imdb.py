"""Recipe: the Large Movie Review Dataset (aclImdb v1, 100,000 reviews) as a topicvb Corpus.

Usage::

    python corpora/recipes/imdb.py aclImdb_v1.tar.gz imdb.npz [--parts train/pos train/neg ...]

Reads the reviews straight from the archive (``.tar.gz`` or ``.tar.xz``), one document per
``aclImdb/<split>/<pos|neg|unsup>/<id>_<rating>.txt`` file, decoded as UTF-8, with the HTML
``<br />`` breaks turned into newlines. Labels are ``pos``/``neg``/``unsup``; ``doc_ids`` are
``<split>/<label>/<file>``. All 100,000 reviews make a good scale test for OnlineLDA.
"""

from __future__ import annotations

import argparse
import re
import tarfile

import numpy as np

from topicvb.datasets import Corpus, vectorize_texts

_REVIEW = re.compile(r"aclImdb/(train|test)/(pos|neg|unsup)/(\d+_\d+\.txt)$")
PARTS = ("train/pos", "train/neg", "train/unsup", "test/pos", "test/neg")


def load_imdb(archive: str, parts=PARTS, vectorizer=None) -> Corpus:
    """Reviews of the chosen ``parts`` (``"train/pos"``, ...), sorted by split, label and file name."""
    wanted = set(parts)
    reviews = []
    with tarfile.open(archive, "r:*") as tar:
        for member in tar:
            m = _REVIEW.search(member.name)
            if m and f"{m.group(1)}/{m.group(2)}" in wanted:
                text = tar.extractfile(member).read().decode("utf-8").replace("<br />", "\n")
                reviews.append((f"{m.group(1)}/{m.group(2)}/{m.group(3)}", m.group(2), text))
    reviews.sort()
    texts = [r[2] for r in reviews]
    labels = [r[1] for r in reviews]
    names = sorted(set(labels))
    X, vocabulary = vectorize_texts(texts, vectorizer)
    return Corpus(
        X=X,
        vocabulary=vocabulary,
        texts=texts,
        doc_ids=[r[0] for r in reviews],
        labels=np.searchsorted(names, labels),
        label_names=names,
        name="imdb",
        description=f"aclImdb v1 reviews ({', '.join(sorted(wanted))}).",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("output", help="where to save the Corpus (.npz)")
    parser.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS)
    args = parser.parse_args()
    corpus = load_imdb(args.archive, args.parts)
    corpus.save(args.output)
    print(corpus.summary())
