"""Readers hunt, second round: a MatrixMarket ``coordinate real`` file with a decimal row or column index was read
silently wrong; iter_uci let a damaged compressed file's EOFError/LZMAError out without naming the file; read_lines
named no line for an undecodable byte, and split lines at a lone CR, so later ids no longer matched ``grep -n``."""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import subprocess

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from topicvb.datasets import iter_uci, read_lines, read_matrix_market, read_uci
from topicvb.datasets._matrix_market import _lines_look_valid

REAL = "%%MatrixMarket matrix coordinate real general\n"


def _counter():
    """Counts single letters too, so that tiny files have terms."""
    return CountVectorizer(token_pattern=r"(?u)\b\w+\b")


# --------------------------------------------------------------------------- MatrixMarket, coordinate real


@pytest.mark.parametrize("line", ["1 2.0 3.0", "1 2.5 7", "2 3.0 1e0", "2 3.9 7"])
def test_mm_real_index_with_a_point_is_refused_naming_the_line(tmp_path, line):
    # scipy read '1 2.5 7' as column 2 with the value .5 (the 7 dropped): the fast check took the indices as reals
    # (a decimal row index scipy refuses itself)
    path = tmp_path / "m.mtx"
    path.write_text(REAL + f"2 3 2\n{line}\n2 2 1.0\n")
    with pytest.raises(ValueError, match=r"MatrixMarket file '.*m\.mtx', line 3: expected 'row column value', "
                                         r"two integers and a real number .*got '" + re.escape(line) + "'"):
        read_matrix_market(path)


def test_mm_real_index_error_names_the_line_far_into_the_file(tmp_path):
    lines = [f"{1 + i % 5} {1 + i % 7} {0.25 * (i + 1)}" for i in range(5000)]
    lines[4321] = "3 4.5 2.5"
    path = tmp_path / "m.mtx"
    path.write_text(REAL + "%a comment\n5 7 5000\n" + "\n".join(lines) + "\n")  # (data from line 4)
    with pytest.raises(ValueError, match=r"line 4325: .*got '3 4\.5 2\.5'"):
        read_matrix_market(path)


def test_mm_real_values_with_points_and_exponents_still_pass_the_fast_check(tmp_path):
    # only the last token may be real: the values keep the fast path, and the file reads as before
    data = b"1 2 2.5e-3\n3 4 .5\n\n+5 6 7.\n-0 1 1E+2\n"
    assert _lines_look_valid(np.frombuffer(data, dtype=np.uint8), 3, True)
    assert not _lines_look_valid(np.frombuffer(b"1 2 3\n1 2.5 7\n", dtype=np.uint8), 3, True)
    assert _lines_look_valid(np.frombuffer(b"2.5\n1e3\n", dtype=np.uint8), 1, True)  # (array real: one token)
    path = tmp_path / "m.mtx"
    path.write_text(REAL + "2 3 3\n1 2 2.5\n2 3 1e1\n2 1 .5\n")
    assert read_matrix_market(path).X.toarray().tolist() == [[0, 2.5, 0], [0.5, 0, 10.0]]


# --------------------------------------------------------------------------- iter_uci, damaged compressed files

_DOCWORD = b"300\n2\n300\n" + b"".join(b"%d 1 1\n" % i for i in range(1, 301))
_COMPRESSORS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
@pytest.mark.parametrize("suffix", sorted(_COMPRESSORS))
def test_iter_uci_damaged_compressed_file_is_a_value_error_naming_it(tmp_path, suffix, damage):
    raw = _COMPRESSORS[suffix](_DOCWORD)
    if damage == "truncated":
        raw = raw[:-9]
    else:
        raw = bytearray(raw)
        raw[len(raw) // 2] ^= 0xFF
        raw = bytes(raw)
    path = tmp_path / f"docword.x.txt.{suffix}"
    path.write_bytes(raw)
    message = r"Could not read docword_path '.*docword\.x\.txt\." + suffix + "'"
    with pytest.raises(ValueError, match=message):
        list(iter_uci(path, 10))
    with pytest.raises(ValueError, match=message):  # as read_uci says
        read_uci(path)


# --------------------------------------------------------------------------- read_lines, undecodable bytes


def test_read_lines_undecodable_byte_names_its_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"apple pear banana cherry\n" * 200000 + "caf\xe9 au lait\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"read_lines: '.*bad\.txt' is not valid utf-8 text \(invalid continuation "
                                         r"byte on line 200001\); pass the right encoding=\."):
        read_lines(path)


@pytest.mark.parametrize(
    "data, encoding, line",
    [
        (b"a b\r\nc d\r\ne \xff f\r\n", "utf-8", 3),  # CRLF line ends
        (b"a b\rc d\re \xff f\r", "utf-8", 3),  # old Mac line ends (no "\n" at all)
        (b"a\rb \xff\nc\n", "utf-8", 1),  # a stray CR before the error does not end line 1
        (b"a\nb\nc \xe2\x82", "utf-8", 3),  # the file ends inside a character
        (b"\xef\xbb\xbfa\n\xff\n", "utf-8", 2),  # after a byte-order mark
        (b"a\nb\nc\n\xe9\n", "ascii", 4),
        ("a b\nc ".encode("utf-16") + b"\x00\xdc" + "\n".encode("utf-16-le"), "utf-16", 2),
        (b"x\n" * 40000 + b"caf\xc3\xa9 \xc3(\n", "utf-8", 40001),  # past the first re-read block
    ],
)
def test_read_lines_undecodable_line_is_counted_as_the_lines_are(tmp_path, data, encoding, line):
    path = tmp_path / "bad.txt"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=rf"is not valid {encoding} text \(.* on line {line}\); pass the right"):
        read_lines(path, vectorizer=_counter(), encoding=encoding)


def test_read_lines_undecodable_gz_file_names_its_line(tmp_path):
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(gzip.compress(b"one\ntwo\nthr\xffee\n"))
    with pytest.raises(ValueError, match=r"bad\.txt\.gz' is not valid utf-8 text \(invalid start byte on line 3\)"):
        read_lines(path, vectorizer=_counter())


# --------------------------------------------------------------------------- read_lines, lone CR


def test_read_lines_lone_cr_does_not_end_a_line_so_ids_match_grep(tmp_path):
    path = tmp_path / "stray_cr.txt"
    path.write_bytes(b"apple pear banana\rcherry grape\nmelon lemon lime\norange peach plum\n")
    corpus = read_lines(path, vectorizer=_counter())
    assert corpus.doc_ids == ["1", "2", "3"]
    assert corpus.texts == ["apple pear banana\rcherry grape", "melon lemon lime", "orange peach plum"]
    assert corpus.X[0].sum() == 5  # (the CR is whitespace between two words)
    grep = subprocess.run(["grep", "-n", "plum", str(path)], capture_output=True, text=True)
    if grep.returncode == 0:  # (where grep is installed)
        assert grep.stdout.split(":")[0] == corpus.doc_ids[corpus.texts.index("orange peach plum")]


@pytest.mark.parametrize(
    "data, texts, ids",
    [
        (b"a b\r\n\r\nc\r\n", ["a b", "c"], ["1", "3"]),  # CRLF: the CR of the line end is dropped
        (b"a\r\n\rb\r\n", ["a", "\rb"], ["1", "2"]),  # a lone CR after a CRLF stays in the next line
        (b"a b\r\rc\r", ["a b", "c"], ["1", "3"]),  # no "\n" at all: old Mac line ends still split
        (b"a\rb\nc", ["a\rb", "c"], ["1", "2"]),  # one "\n" in the file: CRs are whitespace
    ],
)
def test_read_lines_crlf_and_old_mac_files(tmp_path, data, texts, ids):
    path = tmp_path / "docs.txt"
    path.write_bytes(data)
    corpus = read_lines(path, vectorizer=_counter())
    assert corpus.texts == texts and corpus.doc_ids == ids
