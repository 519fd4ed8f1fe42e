"""Bad input for topicvb.datasets: the readers, the writers, Corpus and make_lda_corpus.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from bad_input_helpers import (
    PNG,
    PYTESTMARK,
    V3,
    X3,
    C,
    Raises,
    Works,
    _afile,
    _hang_guard,  # noqa: F401  (autouse fixture)
    _write,
    fitted,
    run_case,
)

from topicvb import persistence
from topicvb.datasets import (
    Corpus,
    make_lda_corpus,
    read_csv,
    read_jsonl,
    read_ldac,
    read_matrix_market,
    read_text_dir,
    read_uci,
    write_ldac,
    write_uci,
)

pytestmark = PYTESTMARK


# ============================================================================= datasets: readers and writers
def _uci(data):
    return lambda tmp: read_uci(_write(tmp, "docword.test.txt", data))


def _ldac(data, **kw):
    return lambda tmp: read_ldac(_write(tmp, "corpus.ldac", data), **kw)


def _mm(data):
    return lambda tmp: read_matrix_market(_write(tmp, "m.mtx", data))


def _csv(data, *args, **kw):
    return lambda tmp: read_csv(_write(tmp, "t.csv", data), *args, **kw)


def _jsonl(data, *args, **kw):
    return lambda tmp: read_jsonl(_write(tmp, "t.jsonl", data), *args, **kw)


def _shape(shape, total=None):
    return Works(lambda c: c.X.shape == shape and (total is None or c.X.sum() == total))


MM = "%%MatrixMarket matrix coordinate {} general\n"

def _textdir(files):
    def make_dir(tmp):
        root = tmp / "docs"
        root.mkdir()
        for name, data in files.items():
            _write(root, name, data)
        return root
    return make_dir


def _corpus_file(tmp, **changes):
    """A valid Corpus.save file with some arrays replaced."""
    Corpus(X3, V3).save(tmp / "good.npz")
    with np.load(tmp / "good.npz") as f:
        arrays = {k: f[k] for k in f.files}
    arrays.update(changes)
    np.savez(tmp / "bad.npz", **arrays)
    return tmp / "bad.npz"


def _meta(obj):
    return np.frombuffer(obj if isinstance(obj, bytes) else json.dumps(obj).encode(), dtype=np.uint8)


DATASET_CASES = [
    # read_uci
    C("uci-png", _uci(PNG), Raises(ValueError, r"UCI file .*line 1: expected the number of documents D")),
    C("uci-empty", _uci(b""), Raises(ValueError, r"ends before line 1")),
    C("uci-ok", _uci("2\n3\n2\n1 1 2\n2 3 1\n"), _shape((2, 3), 3)),
    C("uci-no-data-lines", _uci("3\n4\n0\n"), _shape((3, 4), 0)),
    C("uci-huge-1e9", _uci("1\n1\n1\n1 1 1000000000\n"), _shape((1, 1), 10**9)),
    C("uci-negative", _uci("2\n3\n1\n1 1 -2\n"), Raises(ValueError, r"line 4: count must be non-negative")),
    C("uci-fractional", _uci("2\n3\n1\n1 1 2.5\n"), Raises(ValueError, r"line 4: expected 'docID wordID count' \(three integers\)")),
    C("uci-doc-out-of-range", _uci("2\n3\n1\n3 1 2\n"), Raises(ValueError, r"docID must be between 1 and D=2")),
    C("uci-word-out-of-range", _uci("2\n3\n1\n1 9 2\n"), Raises(ValueError, r"wordID must be between 1 and W=3")),
    C("uci-zero-id", _uci("2\n3\n1\n0 1 2\n"), Raises(ValueError, r"docID must be between 1 and D=2")),
    C("uci-truncated", _uci("2\n3\n5\n1 1 2\n"), Raises(ValueError, r"NNZ=5 data lines, but the file has 1")),
    C("uci-D0", _uci("0\n3\n0\n"), Raises(ValueError, r"describes an empty corpus \(D=0")),
    C("uci-overflow", _uci("1\n1\n1\n1 1 99999999999999999999999\n"), Raises(ValueError, r"line 4: expected 'docID wordID count'")),
    C("uci-header-negative", _uci("-1\n3\n0\n"), Raises(ValueError, r"line 1: expected the number of documents D .*got '-1'")),
    C("uci-header-float", _uci("2.5\n3\n0\n"), Raises(ValueError, r"got '2.5'")),
    C("uci-two-columns", _uci("2\n3\n1\n1 1\n"), Raises(ValueError, r"three integers\), got '1 1'")),
    C("uci-non-ascii", _uci(b"2\n3\n1\n1 1 \xe9\n"), Raises(ValueError, r"line 4: expected 'docID wordID count'")),
    C("uci-utf16", _uci("2\n3\n".encode("utf-16")), Raises(ValueError, r"line 1: expected the number of documents")),
    C("uci-gzip-garbage", _uci(b"\x1f\x8b\x08garbage"), Raises(ValueError, r"Could not read docword_path")),
    C("uci-gzip-ok", _uci(gzip.compress(b"1\n2\n1\n1 2 4\n")), _shape((1, 2), 4)),
    C("uci-missing", lambda tmp: read_uci(tmp / "nope.txt"), Raises(FileNotFoundError, r"docword_path .*nope\.txt' does not exist")),
    C("uci-None", lambda tmp: read_uci(None), Raises(TypeError, r"docword_path must be a path \(str or os.PathLike\), got NoneType")),
    C("uci-folder", lambda tmp: read_uci(tmp), Raises(ValueError, r"is a folder; expected a file")),
    C("uci-vocab-png", lambda tmp: read_uci(_write(tmp, "docword.t.txt", "1\n3\n1\n1 1 2\n"), _write(tmp, "v.png", PNG)),
      Raises(ValueError, r"vocab_path .*v\.png' is not valid utf-8 text")),
    C("uci-vocab-size", lambda tmp: read_uci(_write(tmp, "docword.t.txt", "1\n3\n1\n1 1 2\n"), _write(tmp, "v.txt", "a\n")),
      Raises(ValueError, r"has 1 terms, but .* says W=3")),
    C("uci-vocab-missing", lambda tmp: read_uci(_write(tmp, "docword.t.txt", "1\n3\n1\n1 1 2\n"), tmp / "nov.txt"),
      Raises(FileNotFoundError, r"vocab_path .*nov\.txt")),
    # read_ldac
    C("ldac-png", _ldac(PNG), Raises(ValueError, r"LDA-C file .*line 1: expected 'M id:count")),
    C("ldac-empty", _ldac(b""), Raises(ValueError, r"LDA-C file .* is empty")),
    C("ldac-blank", _ldac("\n\n"), Raises(ValueError, r"is empty")),
    C("ldac-ok", _ldac("2 0:1 2:3\n1 1:1\n"), _shape((2, 3), 5)),
    C("ldac-negative", _ldac("1 0:-1\n"), Raises(ValueError, r"line 1: counts must be non-negative, got -1")),
    C("ldac-fractional", _ldac("1 0:1.5\n"), Raises(ValueError, r"line 1: expected 'M id:count")),
    C("ldac-bad-token", _ldac("1 0-1\n"), Raises(ValueError, r"got '1 0-1'")),
    C("ldac-M-mismatch", _ldac("3 0:1\n"), Raises(ValueError, r"leading count M=3 disagrees")),
    C("ldac-negative-id", _ldac("1 -1:1\n"), Raises(ValueError, r"term id -1 is out of range")),
    C("ldac-non-utf8", _ldac(b"1 0:1 \xff\n"), Raises(ValueError, r"line 1: expected 'M id:count")),
    C("ldac-huge-count", _ldac("1 0:99999999999999999999999\n"), Raises(ValueError, r"LDA-C file .*line 1")),
    C("ldac-no-terms", _ldac("0\n"), Raises(ValueError, r"(?i)LDA-C file .*(no terms|empty|at least one term)")),
    C("ldac-n_terms-small", _ldac("2 0:1 2:3\n", n_terms=1), Raises(ValueError, r"term id 2 is out of range")),
    C("ldac-n_terms-negative", _ldac("1 0:1\n", n_terms=-1), Raises(ValueError, r"n_terms must be .*got -1")),
    C("ldac-n_terms-str", _ldac("1 0:1\n", n_terms="x"), Raises(TypeError, r"n_terms must be .*got 'x'")),
    C("ldac-missing", lambda tmp: read_ldac(tmp / "nope.ldac"), Raises(FileNotFoundError, r"nope\.ldac' does not exist")),
    # read_matrix_market (binary garbage is in the subprocess test below)
    C("mm-empty", _mm(b""), Raises(ValueError, r"Could not read path .*m\.mtx' as MatrixMarket")),
    C("mm-ok", _mm(MM.format("integer") + "2 3 2\n1 1 2\n2 3 1\n"), _shape((2, 3), 3)),
    C("mm-negative", _mm(MM.format("integer") + "1 1 1\n1 1 -2\n"), Raises(ValueError, r"m\.mtx' expects non-negative term counts")),
    C("mm-fractional", _mm(MM.format("real") + "1 1 1\n1 1 2.5\n"), Works(lambda c: c.X.dtype.kind == "f" and c.X.sum() == 2.5)),
    C("mm-nan", _mm(MM.format("real") + "1 2 1\n1 1 nan\n"), Raises(ValueError, r"m\.mtx.*(NaN|finite)")),
    C("mm-inf", _mm(MM.format("real") + "1 2 1\n1 1 inf\n"), Raises(ValueError, r"m\.mtx.*(inf|finite)")),
    C("mm-complex", _mm(MM.format("complex") + "1 1 1\n1 1 1 2\n"), Raises(ValueError, r"holds complex values")),
    C("mm-truncated", _mm(MM.format("integer") + "2 3 5\n1 1 2\n"), Raises(ValueError, r"as MatrixMarket: .*Truncated")),
    C("mm-zero-shape", _mm(MM.format("integer") + "0 0 0\n"), Raises(ValueError, r"holds an empty matrix of shape \(0, 0\)")),
    C("mm-index-out-of-range", _mm(MM.format("integer") + "2 2 1\n3 3 1\n"), Raises(ValueError, r"as MatrixMarket: .*out of bounds")),
    C("mm-missing", lambda tmp: read_matrix_market(tmp / "nope.mtx"), Raises(FileNotFoundError, r"nope\.mtx' does not exist")),
    # read_text_dir
    C("textdir-empty-folder", _textdir({}), Works(lambda p: True)),  # placeholder replaced below
    C("textdir-non-utf8-and-empty", lambda tmp: read_text_dir(_textdir({"a.txt": b"\xff\xfe caf\xe9 hello world", "b.txt": b""})(tmp)),
      Works(lambda c: c.X.shape[0] == 2 and "hello" in c.vocabulary)),
    C("textdir-binary-file", lambda tmp: read_text_dir(_textdir({"a.txt": "hello world", "b.png": PNG})(tmp)),
      Works(lambda c: c.X.shape[0] == 2)),
    C("textdir-all-empty", lambda tmp: read_text_dir(_textdir({"a.txt": "", "b.txt": "   "})(tmp)),
      Raises(ValueError, r"found no terms in 2 document")),
    C("textdir-no-match", lambda tmp: read_text_dir(_textdir({"a.txt": "hello"})(tmp), pattern="*.xyz"),
      Raises(ValueError, r"found no files matching pattern '\*\.xyz'")),
    C("textdir-missing", lambda tmp: read_text_dir(tmp / "nope"), Raises(FileNotFoundError, r"folder .*nope' does not exist")),
    C("textdir-is-file", lambda tmp: read_text_dir(_afile(tmp)), Raises(ValueError, r"expects a folder, but .*afile' is a file")),
    C("textdir-None", lambda tmp: read_text_dir(None), Raises(TypeError, r"read_text_dir.*path.*NoneType")),
    C("textdir-bad-encoding", lambda tmp: read_text_dir(_textdir({"a.txt": "hello world"})(tmp), encoding="nope"),
      Raises(ValueError, r"encoding must be a known codec name, got 'nope'")),
    # (a codec that is no text encoding: Python's LookupError, advising codecs.decode(), after the folder walk)
    C("textdir-non-text-encoding", lambda tmp: read_text_dir(_textdir({"a.txt": "hello world"})(tmp), encoding="rot13"),
      Raises(ValueError, r"encoding must be a text encoding such as utf-8 or latin-1, got 'rot13'")),
    # read_csv
    C("csv-ok", _csv("text,label\nhello world,a\nworld peace,b\n", "text"), _shape((2, 3))),
    C("csv-empty", _csv("", "text"), Raises(ValueError, r"read_csv: .* is empty")),
    C("csv-header-only", _csv("text,label\n", "text"), Raises(ValueError, r"has no data rows")),
    C("csv-missing-column", _csv("a,b\n1,2\n", "text"), Raises(ValueError, r"text_column='text' is not a column .*\['a', 'b'\]")),
    C("csv-png", _csv(PNG, "text"), Raises(ValueError, r"t\.csv' is not valid utf-8 text")),
    C("csv-non-utf8", _csv(b"text\nhello \xff world\n", "text"), Raises(ValueError, r"is not valid utf-8 text")),
    C("csv-empty-texts", _csv('text\n""\n', "text"), Raises(ValueError, r"found no terms")),
    C("csv-nul", _csv("text\nhel\x00lo world\n", "text"), Works(lambda c: c.X.shape[0] == 1)),
    C("csv-col-out-of-range", _csv("text\nhello\n", 5), Raises(ValueError, r"text_column=5 is out of range")),
    C("csv-col-None", _csv("text\nhello\n", None), Raises(TypeError, r"text_column must be a column name \(str\) or a 0-based index")),
    C("csv-col-float", _csv("text\nhello\n", 1.5), Raises(TypeError, r"text_column must be .*got 1.5")),
    C("csv-label-missing", _csv("text\nhello\n", "text", "nolabel"), Raises(ValueError, r"label_column='nolabel' is not a column")),
    C("csv-missing-file", lambda tmp: read_csv(tmp / "nope.csv", "text"), Raises(FileNotFoundError, r"nope\.csv' does not exist")),
    # read_jsonl
    C("jsonl-ok", _jsonl('{"text":"hello world","y":1}\n{"text":"world peace","y":2}\n', "text"), _shape((2, 3))),
    C("jsonl-empty", _jsonl("", "text"), Raises(ValueError, r"has no documents")),
    C("jsonl-blank", _jsonl("\n\n", "text"), Raises(ValueError, r"has no documents")),
    C("jsonl-bad-json", _jsonl('{"text": "a"\n', "text"), Raises(ValueError, r"line 1 is not valid JSON")),
    C("jsonl-not-object", _jsonl("[1, 2]\n", "text"), Raises(ValueError, r"line 1: expected a JSON object, got list")),
    C("jsonl-wrong-keys", _jsonl('{"a": 1, "b": 2}\n', "text"), Raises(ValueError, r"has no field 'text'; its fields are \['a', 'b'\]")),
    C("jsonl-text-int", _jsonl('{"text": 5}\n', "text"), Raises(ValueError, r"field 'text' must be a string, got int")),
    C("jsonl-text-null", _jsonl('{"text": null}\n', "text"), Raises(ValueError, r"must be a string, got NoneType")),
    C("jsonl-png", _jsonl(PNG, "text"), Raises(ValueError, r"is not valid utf-8 text")),
    C("jsonl-non-utf8", _jsonl(b'{"text": "caf\xe9"}\n', "text"), Raises(ValueError, r"is not valid utf-8 text")),
    C("jsonl-empty-text", _jsonl('{"text": ""}\n', "text"), Raises(ValueError, r"found no terms")),
    C("jsonl-field-None", _jsonl('{"text": "a b"}\n', None), Raises(TypeError, r"text_field must be a str.*None")),
    C("jsonl-label-missing", _jsonl('{"text": "a b"}\n', "text", "nolabel"), Raises(ValueError, r"has no field 'nolabel'")),
    # writers
    *[C(f"{w.__name__}-{i}", (lambda w, x, v: lambda tmp: w(x, v, tmp / "out.txt"))(w, x, v), Raises(e, m), r)
      for w in (write_uci, write_ldac)
      for i, x, v, e, m, r in [
          ("None", None, V3, TypeError, r"needs a Corpus or a count matrix X, got None", None),
          ("str", "abc", V3, (TypeError, ValueError), r"expects a 2-D count matrix", None),
          ("1d", np.ones(3), V3, ValueError, r"expects a 2-D count matrix \(n_docs, n_terms\), got shape \(3,\)", None),
          ("3d", np.ones((2, 2, 2)), None, ValueError, r"got shape \(2, 2, 2\)", None),
          ("fractional", np.full((2, 3), 0.5), V3, ValueError, r"writes integer term counts; X has 6 non-integer", None),
          ("negative", -X3, V3, ValueError, r"non-negative term counts; X has 3 negative", None),
          ("nan", np.full((2, 3), np.nan), V3, ValueError, r"finite term counts; X has NaN", None),
          ("0-docs", np.zeros((0, 3)), V3, ValueError, r"received an empty corpus of shape \(0, 3\)", None),
          ("vocab-size", X3, ["a"], ValueError, r"vocabulary has 1 terms, but X has 3 columns", None),
          ("vocab-newline", X3, ["a", "b\nc", "d"], ValueError, r"must not contain line breaks", None),
          ("complex", np.ones((2, 3)) + 1j, V3, TypeError, r"expects numeric term counts, got dtype complex128", None),
          ("object", np.array([[1, "a", 2], [1, 2, 3]], dtype=object), V3, TypeError, w.__name__ + r" expects numeric term counts",
           None),
      ]],
    C("write_uci-huge", lambda tmp: write_uci(np.array([[1e9, 0, 1e15]]), V3, tmp / "d.txt"), Works()),
    C("write_uci-all-empty", lambda tmp: write_uci(np.zeros((2, 3)), V3, tmp / "d.txt"), Works()),
    C("write_uci-no-path", lambda tmp: write_uci(X3, V3), Raises(TypeError, r"write_uci needs docword_path")),
    C("write_uci-unwritable", lambda tmp: write_uci(X3, V3, _afile(tmp) / "docword.txt"),
      Raises(FileNotFoundError, r"Cannot write .*afile/docword\.txt'")),
    C("write_uci-to-folder", lambda tmp: write_uci(X3, V3, tmp), Raises(ValueError, r"Cannot write .*: it is a folder")),
    C("write_ldac-unwritable", lambda tmp: write_ldac(X3, V3, _afile(tmp) / "c.ldac"), Raises(FileNotFoundError, r"Cannot write")),
    # Corpus
    C("Corpus-None", lambda tmp: Corpus(None, []), Raises((TypeError, ValueError), r"Corpus X must be")),
    C("Corpus-str", lambda tmp: Corpus("abc", []), Raises((TypeError, ValueError), r"Corpus X must be")),
    C("Corpus-1d", lambda tmp: Corpus(np.ones(3), V3), Raises(ValueError, r"Corpus X must be 2-D .*got shape \(3,\)")),
    C("Corpus-3d", lambda tmp: Corpus(np.ones((2, 2, 2)), V3), Raises(ValueError, r"got shape \(2, 2, 2\)")),
    C("Corpus-nan", lambda tmp: Corpus(np.full((2, 3), np.nan), V3), Raises(ValueError, r"Corpus X must hold finite term counts")),
    C("Corpus-negative", lambda tmp: Corpus(-np.ones((2, 3)), V3), Raises(ValueError, r"non-negative, but X has 6 negative")),
    C("Corpus-complex", lambda tmp: Corpus(np.ones((2, 3)) + 1j, V3), Raises(TypeError, r"Corpus X must hold real numbers")),
    C("Corpus-object", lambda tmp: Corpus(np.array([[1, "a", 2]], dtype=object), V3), Raises(TypeError, r"Corpus X must hold real numbers")),
    C("Corpus-vocab-size", lambda tmp: Corpus(X3, ["a"]), Raises(ValueError, r"vocabulary has 1 terms, but X has 3 columns")),
    C("Corpus-vocab-None", lambda tmp: Corpus(X3, None), Raises(TypeError, r"vocabulary.*NoneType")),
    C("Corpus-labels-length", lambda tmp: Corpus(X3, V3, labels=[1]), Raises(ValueError, r"labels has 1 entries, but X has 2 documents")),
    C("Corpus-0-docs", lambda tmp: Corpus(np.zeros((0, 3)), V3), Works(lambda c: c.n_docs == 0)),
    C("Corpus-fractional", lambda tmp: Corpus(np.full((2, 3), 0.5), V3), Works(lambda c: c.X.sum() == 3.0)),
    C("Corpus.save-unwritable", lambda tmp: Corpus(X3, V3).save(_afile(tmp) / "c.npz"), Raises(FileNotFoundError, r"Cannot write .*afile")),
    C("Corpus.save-folder", lambda tmp: Corpus(X3, V3).save(tmp), Raises(ValueError, r"it is a folder")),
    C("Corpus.save-None", lambda tmp: Corpus(X3, V3).save(None), Raises(TypeError, r"path must be a path .*NoneType")),
    C("Corpus.load-truncated", lambda tmp: Corpus.load(_write(tmp, "t.npz", (Corpus(X3, V3).save(tmp / "c.npz"),
                                                                         (tmp / "c.npz").read_bytes())[1][:200])),
      Raises(ValueError, r"Corpus.load could not read .*t\.npz' as a \.npz file")),
    C("Corpus.load-png", lambda tmp: Corpus.load(_write(tmp, "c.npz", PNG)), Raises(ValueError, r"could not read .*c\.npz' as a \.npz file")),
    C("Corpus.load-json", lambda tmp: Corpus.load(_write(tmp, "c.json", '{"a": 1}')), Raises(ValueError, r"c\.json")),
    C("Corpus.load-missing", lambda tmp: Corpus.load(tmp / "nope.npz"), Raises(FileNotFoundError, r"nope\.npz' does not exist")),
    C("Corpus.load-None", lambda tmp: Corpus.load(None), Raises(TypeError, r"path must be a path \(str or os.PathLike\), got NoneType")),
    C("Corpus.load-other-npz", lambda tmp: (np.savez(tmp / "o.npz", a=np.ones(2)), Corpus.load(tmp / "o.npz")),
      Raises(ValueError, r"not a topicvb corpus \(no 'meta_json' entry\)")),
    C("Corpus.load-model-file", lambda tmp: Corpus.load(persistence.save(fitted("BatchLDA"), tmp / "m.npz")),
      Raises(ValueError, r"not a topicvb corpus")),
    C("Corpus.load-meta-wrong-keys", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta({"format": "topicvb.Corpus", "version": 1}))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-meta-not-json", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta(b"not json"))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-meta-list", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta([1]))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-meta-non-utf8", lambda tmp: Corpus.load(_corpus_file(tmp, meta_json=_meta(b"\xff\xfe"))),
      Raises(ValueError, r"bad\.npz")),
    C("Corpus.load-index-out-of-range", lambda tmp: Corpus.load(_corpus_file(tmp, X_indices=np.array([0, 700000, 1], dtype=np.int32))),
      Raises(ValueError, r"bad\.npz")),  # fixed: Corpus.load checks the sparse structure
    C("Corpus.load-nan-data", lambda tmp: Corpus.load(_corpus_file(tmp, X_data=np.array([1.0, np.nan, 2.0]))),
      Raises(ValueError, r"finite term counts")),
    # make_lda_corpus
    *[C(f"make_lda_corpus-{i}", (lambda kw: lambda tmp: make_lda_corpus(**kw))(kw), Raises(e, m))
      for i, kw, e, m in [
          ("n_docs-0", dict(n_docs=0, n_terms=5, n_topics=2), ValueError, r"n_docs == 0, must be >= 1"),
          ("n_docs-neg", dict(n_docs=-1, n_terms=5, n_topics=2), ValueError, r"n_docs == -1"),
          ("n_docs-float", dict(n_docs=2.5, n_terms=5, n_topics=2), TypeError, r"n_docs must be an instance of int"),
          ("n_docs-str", dict(n_docs="5", n_terms=5, n_topics=2), TypeError, r"n_docs must be an instance of int, not str"),
          ("n_terms-0", dict(n_docs=5, n_terms=0, n_topics=2), ValueError, r"n_terms == 0"),
          ("n_topics-0", dict(n_docs=5, n_terms=5, n_topics=0), ValueError, r"n_topics == 0"),
          ("alpha-neg", dict(n_docs=5, n_terms=5, n_topics=2, doc_topic_prior=-1), ValueError, r"doc_topic_prior must be a positive finite"),
          ("alpha-nan", dict(n_docs=5, n_terms=5, n_topics=2, doc_topic_prior=np.nan), ValueError, r"got nan"),
          ("eta-0", dict(n_docs=5, n_terms=5, n_topics=2, topic_word_prior=0), ValueError, r"topic_word_prior must be a positive"),
          ("length-neg", dict(n_docs=5, n_terms=5, n_topics=2, doc_length=-3), ValueError, r"doc_length must be a non-negative"),
          ("length-nan", dict(n_docs=5, n_terms=5, n_topics=2, doc_length=np.nan), ValueError, r"doc_length .*got nan"),
          ("length-str", dict(n_docs=5, n_terms=5, n_topics=2, doc_length="x"), TypeError, r"doc_length must be a number"),
          ("seed-str", dict(n_docs=5, n_terms=5, n_topics=2, random_state="x"), TypeError, r"random_state must be None, an int"),
      ]],
    C("make_lda_corpus-empty-docs", lambda tmp: make_lda_corpus(5, 5, 2, doc_length=0, random_state=0),
      Works(lambda s: s.corpus.X.shape == (5, 5) and s.corpus.n_tokens == 0)),
    C("make_lda_corpus-1x1x1", lambda tmp: make_lda_corpus(1, 1, 1, random_state=0), Works(lambda s: s.corpus.X.shape == (1, 1))),
    C("make_lda_corpus-K>docs", lambda tmp: make_lda_corpus(3, 5, 10, random_state=0), Works(lambda s: s.corpus.X.shape == (3, 5))),
]
# the placeholder above: an empty folder is an error, not a corpus
DATASET_CASES[[p.id for p in DATASET_CASES].index("textdir-empty-folder")] = C(
    "textdir-empty-folder", lambda tmp: read_text_dir(_textdir({})(tmp)),
    Raises(ValueError, r"read_text_dir found no files matching pattern '\*'"))


@pytest.mark.parametrize("fn,expect", DATASET_CASES)
def test_datasets_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)


_MM_SCRIPT = textwrap.dedent(r'''
    import json, sys
    from topicvb.datasets import read_matrix_market
    try:
        read_matrix_market(sys.argv[1])
        print(json.dumps({"ok": True}))
    except Exception as exc:
        print(json.dumps({"ok": False, "type": type(exc).__name__, "msg": str(exc)}))
''')


@pytest.mark.parametrize("data", [
    pytest.param(PNG, id="png"),  # fixed: mmread reads from an in-memory buffer
    pytest.param(b"%%MatrixMarket matrix coordinate integer general\n" + bytes(range(256)), id="banner-then-binary"),
])
def test_read_matrix_market_binary_garbage_in_subprocess(tmp_path, data):
    path = _write(tmp_path, "garbage.mtx", data)
    proc = subprocess.run([sys.executable, "-c", _MM_SCRIPT, str(path)], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)  # (cwd: python -c imports the installed topicvb, not ./topicvb)
    assert proc.returncode == 0, f"interpreter died (rc={proc.returncode}): {proc.stderr[-300:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"ok": False, "type": "ValueError", "msg": out["msg"]}
    assert "garbage.mtx" in out["msg"] and "MatrixMarket" in out["msg"]
