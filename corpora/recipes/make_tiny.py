"""Recipe: regenerate the tiny fixture corpora in ``corpora/tiny/`` (all text written for topicvb).

Usage::

    python corpora/recipes/make_tiny.py [output_folder]

Writes, from twelve short made-up documents about three subjects (space, cooking, music):

- ``tiny.csv`` (columns ``id,text,label``) and ``tiny.jsonl`` (fields ``id``, ``text``, ``label``);
- ``texts/<label>/<id>.txt``, one file per document, for :func:`topicvb.datasets.read_text_dir`;

and, from a synthetic LDA corpus with three well-separated topics over a 24-term vocabulary
(``make_lda_corpus(40, 24, 3, topic_word_prior=0.5, separated=0.95, doc_length=(0, 30),
random_state=1)``, which includes two empty documents):

- ``docword.tiny.txt`` and ``vocab.tiny.txt`` (UCI Bag of Words);
- ``tiny.dat`` (LDA-C, same vocabulary), and ``tiny_topics.txt``, the true topic-word matrix.

The output is deterministic for a given NumPy version (NumPy may change its random streams between
versions); the test suite checks that the committed files agree with each other.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np

from topicvb.datasets import Corpus, make_lda_corpus, write_ldac, write_uci

DOCUMENTS = [
    ("s1", "space", "The rocket left the launch pad and climbed toward orbit around the planet."),
    ("s2", "space", "Astronauts on the station watched the moon rise over the dark side of the planet."),
    ("s3", "space", "A telescope in orbit measured the light of a distant star and its planets."),
    ("s4", "space", "The probe used the gravity of the moon to reach a faster orbit."),
    ("c1", "cooking", "Simmer the onions in butter, then add garlic and a pinch of salt."),
    ("c2", "cooking", "Bake the bread in a hot oven until the crust is golden and the crumb is soft."),
    ("c3", "cooking", "Whisk the eggs with sugar and butter before folding in the flour."),
    ("c4", "cooking", "A slow soup of beans, garlic and onions tastes better the next day."),
    ("m1", "music", "The band played the melody in a minor key while the drums kept a steady rhythm."),
    ("m2", "music", "She tuned the guitar, then sang the chorus twice with the choir."),
    ("m3", "music", "The orchestra rehearsed the symphony, and the violins carried the melody."),
    ("m4", "music", "A slow rhythm on the piano opened the song before the drums came in."),
]

TERMS = [
    "rocket",
    "orbit",
    "planet",
    "moon",
    "star",
    "telescope",
    "astronaut",
    "launch",
    "onion",
    "garlic",
    "butter",
    "oven",
    "bread",
    "salt",
    "soup",
    "flour",
    "melody",
    "rhythm",
    "guitar",
    "drums",
    "choir",
    "violin",
    "piano",
    "chorus",
]


def make_tiny(folder) -> None:
    """Write every tiny fixture into ``folder`` (created if needed)."""
    out = Path(folder)
    (out / "texts").mkdir(parents=True, exist_ok=True)
    with open(out / "tiny.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["id", "text", "label"])
        writer.writerows((doc_id, text, label) for doc_id, label, text in DOCUMENTS)
    with open(out / "tiny.jsonl", "w", encoding="utf-8") as f:
        f.writelines(
            json.dumps({"id": doc_id, "text": text, "label": label}) + "\n" for doc_id, label, text in DOCUMENTS
        )
    for doc_id, label, text in DOCUMENTS:
        (out / "texts" / label).mkdir(exist_ok=True)
        (out / "texts" / label / f"{doc_id}.txt").write_text(text + "\n", encoding="utf-8")

    synthetic = make_lda_corpus(40, 24, 3, topic_word_prior=0.5, separated=0.95, doc_length=(0, 30), random_state=1)
    corpus = Corpus(synthetic.corpus.X, TERMS, name="tiny-lda")
    write_uci(corpus, docword_path=out / "docword.tiny.txt", vocab_path=out / "vocab.tiny.txt")
    write_ldac(corpus, path=out / "tiny.dat")
    np.savetxt(out / "tiny_topics.txt", synthetic.topic_word, fmt="%.6f")


if __name__ == "__main__":
    make_tiny(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tiny")
