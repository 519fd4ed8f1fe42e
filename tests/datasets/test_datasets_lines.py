"""read_lines: a plain text file with one document per line (a newcomer's hunt found no way to read one: the command
line could not tell its format, and --format csv took the first document as its header)."""

import bz2
import gzip

import pytest

from topicvb.datasets import read_lines
from topicvb.text import Vectorizer

LINES = ["apples and pears are fruit", "", "   ", "the taxi crossed the bridge", "pears again"]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_one_document_per_non_blank_line_with_its_line_number(tmp_path, newline):
    path = tmp_path / "docs.txt"
    path.write_bytes(newline.join(LINES).encode("utf-8") + newline.encode())
    corpus = read_lines(path, vectorizer=Vectorizer())
    assert corpus.texts == [LINES[0], LINES[3], LINES[4]] and corpus.doc_ids == ["1", "4", "5"]
    assert corpus.X.shape[0] == 3 and corpus.X[1, corpus.vocabulary.index("taxi")] == 1
    assert corpus.name == "docs.txt"


@pytest.mark.parametrize("opener", [gzip.open, bz2.open])
def test_compressed_files_are_read_as_plain_ones(tmp_path, opener):
    path = tmp_path / "docs.txt.gz"
    with opener(path, "wt", encoding="utf-8") as f:
        f.write("\n".join(LINES))
    assert read_lines(path).texts == [LINES[0], LINES[3], LINES[4]]


def test_blank_files_bad_text_and_folders_are_refused_naming_the_file(tmp_path):
    (tmp_path / "blank.txt").write_text("\n  \n\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"read_lines: '.*blank\.txt' has no documents \(every line is blank\)"):
        read_lines(tmp_path / "blank.txt")
    (tmp_path / "latin.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin\.txt' is not valid utf-8 text .*pass the right encoding="):
        read_lines(tmp_path / "latin.txt")
    assert read_lines(tmp_path / "latin.txt", encoding="latin-1").texts == ["caf\xe9 au lait"]
    with pytest.raises(FileNotFoundError):
        read_lines(tmp_path / "missing.txt")
