"""Corpora in and out: the Corpus container, readers and writers, standard and synthetic corpora.

Readers return a :class:`Corpus` (CSR counts, vocabulary, optional texts, labels and document ids):

- bag-of-words files: :func:`read_uci`, :func:`read_ldac`, :func:`read_matrix_market`
  (gzip-, bz2- and xz-compressed files are read transparently);
- raw text: :func:`read_text_dir`, :func:`read_lines` (one document per line), :func:`read_csv`,
  :func:`read_jsonl`, :func:`nltk_corpus`;
- standard corpora: :func:`load_20newsgroups` (from a local copy first), and
  :func:`load_builtin_corpus`, docstrings of the standard library and installed packages, which
  needs no download;
- synthetic data with known parameters: :func:`make_lda_corpus`.

Writers (:func:`write_uci`, :func:`write_ldac`, :meth:`Corpus.save`) are atomic: they write
temporary files next to the destination and move them into place only when complete.
"""

from ._bow import read_vocabulary
from ._builtin import DOCSTRING_STOP_WORDS, collect_docstrings, load_builtin_corpus
from ._corpus import Corpus
from ._csv_jsonl import read_csv, read_jsonl
from ._files import find_corpora_dir
from ._ldac import read_ldac, write_ldac
from ._lines import read_lines
from ._matrix_market import read_matrix_market
from ._newsgroups import load_20newsgroups
from ._nltk import nltk_corpus
from ._stream import iter_uci, iter_vectorized, uci_header
from ._synthetic import SyntheticCorpus, make_lda_corpus
from ._text import vectorize_texts
from ._text_dir import read_text_dir
from ._uci import read_uci, write_uci

__all__ = [
    "DOCSTRING_STOP_WORDS",
    "Corpus",
    "SyntheticCorpus",
    "collect_docstrings",
    "find_corpora_dir",
    "iter_uci",
    "iter_vectorized",
    "load_20newsgroups",
    "load_builtin_corpus",
    "make_lda_corpus",
    "nltk_corpus",
    "read_csv",
    "read_jsonl",
    "read_ldac",
    "read_lines",
    "read_matrix_market",
    "read_text_dir",
    "read_uci",
    "read_vocabulary",
    "uci_header",
    "vectorize_texts",
    "write_ldac",
    "write_uci",
]
