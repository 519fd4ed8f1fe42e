"""Recipe: the AP corpus of Blei's lda-c (``ap.tgz``) as a topicvb Corpus, with its raw texts.

Usage::

    python corpora/recipes/ap_blei.py ap.tgz ap.npz

``ap/ap.dat`` (LDA-C, 0-based ids) and ``ap/vocab.txt`` are read with
:func:`topicvb.datasets.read_ldac`; the ``<DOC>`` blocks of ``ap/ap.txt`` are aligned line by line
with ``ap.dat`` and kept as ``texts``, with the DOCNO as ``doc_ids``.
"""

from __future__ import annotations

import argparse
import re
import tarfile
import tempfile
from pathlib import Path

from topicvb.datasets import Corpus, read_ldac

_DOC = re.compile(r"<DOC>\s*<DOCNO>\s*(\S+)\s*</DOCNO>\s*<TEXT>(.*?)</TEXT>\s*</DOC>", re.DOTALL)


def load_ap(archive: str) -> Corpus:
    """The 2,246 AP documents: counts from ap.dat, texts and DOCNOs from ap.txt."""
    with tarfile.open(archive, "r:*") as tar, tempfile.TemporaryDirectory() as tmp:
        for name in ("ap.dat", "vocab.txt"):
            Path(tmp, name).write_bytes(tar.extractfile(f"ap/{name}").read())
        corpus = read_ldac(Path(tmp, "ap.dat"), Path(tmp, "vocab.txt"), name="ap")
        raw = tar.extractfile("ap/ap.txt").read().decode("latin-1")
    docs = _DOC.findall(raw)
    if len(docs) != corpus.n_docs:
        raise ValueError(f"ap.txt has {len(docs)} documents but ap.dat has {corpus.n_docs}; they must align.")
    corpus.doc_ids = [docno for docno, _ in docs]
    corpus.texts = [text.strip() for _, text in docs]
    corpus.description = "AP corpus from Blei's lda-c (ap.dat counts, ap.txt texts)."
    return corpus


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive")
    parser.add_argument("output", help="where to save the Corpus (.npz)")
    args = parser.parse_args()
    corpus = load_ap(args.archive)
    corpus.save(args.output)
    print(corpus.summary())
