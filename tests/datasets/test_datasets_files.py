"""Tests of the file helpers of topicvb.datasets (topicvb/datasets/_files.py)."""

from __future__ import annotations

import pytest

from topicvb.datasets import find_corpora_dir


def test_find_corpora_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path))
    assert find_corpora_dir() == tmp_path
    monkeypatch.setenv("TOPICVB_CORPORA", str(tmp_path / "missing"))
    assert find_corpora_dir() is None
    monkeypatch.delenv("TOPICVB_CORPORA")
    found = find_corpora_dir()
    assert found is None or (found.is_dir() and found.name == "corpora")


def test_a_file_numpy_would_read_as_a_pickle_is_not_an_npz_archive(tmp_path):
    # (numpy's own message advised loading it "unsafely using allow_pickle=")
    from topicvb.datasets._npz import read_npz

    path = tmp_path / "binary.npz"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"it is not a \.npz archive \(numpy would read it only as a pickle, which "
                                         r"topicvb never loads\)\.$"):
        read_npz(path)


def test_corpus_load_of_a_pickle_says_it_is_not_a_corpus(tmp_path):
    from topicvb.datasets import Corpus

    path = tmp_path / "binary.npz"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"could not read .* as a \.npz file: it is not a \.npz archive \(numpy would "
                                         r"read it only as a pickle"):
        Corpus.load(path)


def test_a_checkpoint_numpy_would_read_as_a_pickle_is_not_readable(tmp_path):
    from topicvb.models._checkpoint import load_checkpoint

    path = tmp_path / "ck.npz"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ValueError, match=r"is not a readable topicvb checkpoint \(it is not a \.npz archive \(numpy "
                                         r"would read it only as a pickle, which topicvb never loads\)\)\.$"):
        load_checkpoint(path, "fingerprint")


def test_a_npy_file_named_npz_is_reported_as_a_single_array(tmp_path):
    # (np.load gives an ndarray for it, which the readers used as a context manager: "'numpy.ndarray' object does
    # not support the context manager protocol")
    import numpy as np

    from topicvb.datasets import Corpus
    from topicvb.datasets._npz import read_npz

    np.save(tmp_path / "arr.npy", np.arange(6).reshape(2, 3))
    path = (tmp_path / "arr.npy").rename(tmp_path / "arr.npz")
    with pytest.raises(ValueError, match=r"^'.*arr\.npz' is a single NumPy array \(\.npy\), not a \.npz corpus or "
                                         r"SciPy sparse matrix\.$"):
        read_npz(path)
    with pytest.raises(ValueError, match=r"^Corpus\.load could not read '.*arr\.npz' as a \.npz file: it is a single "
                                         r"NumPy array \(\.npy\), not a \.npz archive\.$"):
        Corpus.load(path)


_COMPRESSORS = {"gz": "gzip", "bz2": "bz2", "xz": "lzma"}


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz"])
def test_the_readers_decompress_gzip_bz2_and_xz_by_content(tmp_path, suffix):
    # (bz2 and xz files were read as text: "expected the number of documents D ..., got 'BZh91AY&SY...'")
    import importlib

    import scipy.sparse as sp

    from topicvb.datasets import (iter_uci, read_csv, read_jsonl, read_ldac, read_matrix_market, read_uci,
                                  read_vocabulary)

    compress = importlib.import_module(_COMPRESSORS[suffix]).compress

    def write(name, text):
        path = tmp_path / f"{name}.{suffix}"
        path.write_bytes(compress(text.encode()))
        return path

    vocab = write("vocab.txt", "a\nb\nc\n")
    assert read_vocabulary(vocab) == ["a", "b", "c"]
    expected = [[2, 0, 1], [0, 3, 0]]
    docword = write("docword.txt", "2\n3\n3\n1 1 2\n1 3 1\n2 2 3\n")
    assert read_uci(docword, vocab).X.toarray().tolist() == expected
    assert sp.vstack(list(iter_uci(docword, batch_size=1))).toarray().tolist() == expected
    assert read_ldac(write("c.ldac", "2 0:2 2:1\n1 1:3\n"), vocab).X.toarray().tolist() == expected
    mtx = write("m.mtx", "%%MatrixMarket matrix coordinate integer general\n2 3 3\n1 1 2\n1 3 1\n2 2 3\n")
    assert read_matrix_market(mtx, vocab).X.toarray().tolist() == expected
    assert read_csv(write("t.csv", "text\nhello world\n"), "text").n_docs == 1
    assert read_jsonl(write("t.jsonl", '{"text": "hello world"}\n'), "text").n_docs == 1


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz"])
@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_a_damaged_compressed_file_is_a_clear_error(tmp_path, suffix, damage):
    import importlib

    from topicvb.datasets import read_ldac, read_matrix_market, read_uci, read_vocabulary

    compress = importlib.import_module(_COMPRESSORS[suffix]).compress
    for read, text, what in (
        (read_uci, "1\n2\n500\n" + "1 2 4\n" * 500, "Could not read docword_path"),
        (read_ldac, "1 0:1\n" * 500, "Could not read path"),
        (read_matrix_market, "%%MatrixMarket matrix coordinate integer general\n1 2 500\n" + "1 2 4\n" * 500,
         "Could not read path"),
        (read_vocabulary, "term\n" * 500, "Could not read vocab_path"),
    ):
        data = compress(text.encode())
        data = data[: len(data) // 2] if damage == "truncated" else data[:12] + bytes(64) + data[76:]
        path = tmp_path / f"f.{suffix}"
        path.write_bytes(data)
        with pytest.raises(ValueError, match=rf"^{what} '.*f\.{suffix}'"):
            read(path)


@pytest.mark.parametrize("suffix", ["gz", "bz2", "xz"])
def test_a_damaged_compressed_text_file_is_a_clear_error(tmp_path, suffix, capsys):
    """The text readers too (CSV, JSON lines, one document per line): the decompressor's EOFError or zlib/LZMA error
    reached the user raw, and the command line's column guess named only its type."""
    import importlib

    from topicvb.cli import main
    from topicvb.datasets import read_csv, read_jsonl, read_lines

    compress = importlib.import_module(_COMPRESSORS[suffix]).compress
    for name, read, text, what in (
        ("t.csv", lambda p: read_csv(p, "text"), "text\n" + "hello world\n" * 500, "read_csv: could not read"),
        ("t.jsonl", lambda p: read_jsonl(p, "text"), '{"text": "hello world"}\n' * 500, "read_jsonl: could not read"),
        ("t.txt", read_lines, "hello world\n" * 500, "read_lines: could not read"),
    ):
        data = compress(text.encode())
        path = tmp_path / f"{name}.{suffix}"
        path.write_bytes(data[: len(data) // 2])
        with pytest.raises(ValueError, match=rf"^{what} '.*{name}\.{suffix}'"):
            read(path)
    for name in ("t.csv", "t.jsonl"):  # (the command line reads the first rows to guess the text column)
        assert main(["vectorize", str(tmp_path / f"{name}.{suffix}"), "-o", str(tmp_path / "c.npz")]) == 1
        assert capsys.readouterr().err.startswith(f"topicvb: error: could not read '{tmp_path / name}.{suffix}': ")


def test_a_text_file_that_starts_with_bzh_is_text(tmp_path):
    """A review: the bz2 signature's "BZh" is printable, so a vocabulary whose first term is "BZh" (or any text
    starting so) was opened as bz2 and refused as an invalid data stream."""
    import bz2

    from topicvb.datasets import read_lines, read_vocabulary

    (tmp_path / "v.txt").write_text("BZh\napple\n", encoding="utf-8")
    assert read_vocabulary(tmp_path / "v.txt") == ["BZh", "apple"]
    (tmp_path / "notes.txt").write_text("BZh91 is not a header\nsecond line\n", encoding="utf-8")
    assert read_lines(tmp_path / "notes.txt").texts == ["BZh91 is not a header", "second line"]
    (tmp_path / "empty.bz2").write_bytes(bz2.compress(b""))  # (an empty stream: its end-of-stream magic)
    (tmp_path / "some.bz2").write_bytes(bz2.compress(b"pear\n"))
    assert read_vocabulary(tmp_path / "some.bz2") == ["pear"]
    with pytest.raises(ValueError, match="has no documents"):
        read_lines(tmp_path / "empty.bz2")
