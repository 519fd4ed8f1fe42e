"""Tests of the CSV and JSON Lines readers (topicvb/datasets/_csv_jsonl.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from datasets_support import _write

from topicvb.datasets import read_csv, read_jsonl


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_csv(tmp_path, stub_vectorizer, suffix):
    content = 'id,text,label\n7,"first doc, with a comma",spam\n8,"second\ndoc",ham\n\n9,third,spam\n'
    path = _write(tmp_path / f"docs.csv{suffix}", content)
    c = read_csv(path, "text", "label", id_column="id", vectorizer=stub_vectorizer)
    assert c.texts == ["first doc, with a comma", "second\ndoc", "third"]
    assert c.doc_ids == ["7", "8", "9"]
    assert c.label_strings() == ["spam", "ham", "spam"]
    assert c.n_docs == 3
    by_index = read_csv(path, 1, vectorizer=stub_vectorizer)
    assert by_index.texts == c.texts and by_index.labels is None


def test_read_csv_tsv_without_header(tmp_path, stub_vectorizer):
    path = _write(tmp_path / "docs.tsv", "a\tone text\nb\tanother text\n")
    c = read_csv(path, 1, 0, delimiter="\t", header=False, vectorizer=stub_vectorizer)
    assert c.texts == ["one text", "another text"]
    assert c.label_strings() == ["a", "b"]


def test_read_csv_errors(tmp_path, stub_vectorizer):
    path = _write(tmp_path / "docs.csv", "text,label\nhello,x\nworld\n")
    with pytest.raises(
        ValueError, match=r"text_column='body' is not a column of .*its columns are \['text', 'label'\]"
    ):
        read_csv(path, "body", vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"line 3 has 1 fields; expected at least 2"):
        read_csv(path, "text", "label", vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"label_column=5 is out of range; .* has 2 columns"):
        read_csv(path, "text", 5, vectorizer=stub_vectorizer)
    with pytest.raises(ValueError, match=r"is a column name, but header=False"):
        read_csv(path, "text", header=False, vectorizer=stub_vectorizer)
    empty = _write(tmp_path / "empty.csv", "")
    with pytest.raises(ValueError, match=r"'.*empty.csv' is empty; expected a header row"):
        read_csv(empty, "text", vectorizer=stub_vectorizer)
    header_only = _write(tmp_path / "header.csv", "text,label\n")
    with pytest.raises(ValueError, match=r"'.*header.csv' has no data rows"):
        read_csv(header_only, "text", vectorizer=stub_vectorizer)
    with pytest.raises(FileNotFoundError, match=r"path '.*missing.csv' does not exist"):
        read_csv(tmp_path / "missing.csv", "text", vectorizer=stub_vectorizer)


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_read_jsonl(tmp_path, stub_vectorizer, suffix):
    rows = [{"id": 1, "body": "alpha beta", "stars": 5}, {"id": 2, "body": "beta gamma", "stars": 1}]
    content = (
        "\n".join(json.dumps(r) for r in rows) + "\n\n" + json.dumps({"id": 3, "body": "日本 text", "stars": 5}) + "\n"
    )
    path = _write(tmp_path / f"docs.jsonl{suffix}", content)
    c = read_jsonl(path, "body", "stars", id_field="id", vectorizer=stub_vectorizer)
    assert c.texts == ["alpha beta", "beta gamma", "日本 text"]
    assert c.doc_ids == ["1", "2", "3"]
    assert c.label_names == [1, 5]
    assert c.labels.tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ('{"text": "a"}\n{"text": "b"\n', r"line 2 is not valid JSON"),
        ('{"text": "a"}\n["text"]\n', r"line 2: expected a JSON object, got list"),
        ('{"text": "a"}\n{"body": "b"}\n', r"line 2 has no field 'text'; its fields are \['body'\]"),
        ('{"text": 3}\n', r"line 1: field 'text' must be a string, got int"),
        ("\n\n", r"has no documents"),
    ],
)
def test_read_jsonl_errors(tmp_path, stub_vectorizer, content, match):
    path = _write(tmp_path / "docs.jsonl", content)
    with pytest.raises(ValueError, match=match):
        read_jsonl(path, "text", vectorizer=stub_vectorizer)


def test_a_utf8_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    # (Excel's "CSV UTF-8" starts with one: the first column was read as '\ufefftext', so text_column='text' failed)
    from topicvb.datasets import read_csv, read_jsonl, read_vocabulary

    path = tmp_path / "bom.csv"
    path.write_text("text,label\nalpha beta,a\ngamma,b\n", encoding="utf-8-sig")
    corpus = read_csv(path, "text", "label")
    assert list(corpus.texts) == ["alpha beta", "gamma"] and list(corpus.label_names) == ["a", "b"]
    path = tmp_path / "bom.jsonl"
    path.write_text('{"text": "alpha", "label": "a"}\n', encoding="utf-8-sig")
    assert list(read_jsonl(path, "text", "label").texts) == ["alpha"]
    path = tmp_path / "vocab.txt"
    path.write_text("function\nvalue\n", encoding="utf-8-sig")
    assert read_vocabulary(path) == ["function", "value"]
    path.write_bytes("\ufefffunction\n".encode("utf-16"))  # (other encodings as given)
    assert read_vocabulary(path, encoding="utf-16") == ["\ufefffunction"]


def test_a_byte_order_mark_in_a_vocabulary_file_or_a_seed_file(tmp_path):
    import argparse

    from topicvb._cli_seeds import read_seed_topics
    from topicvb.text import Vocabulary

    path = tmp_path / "vocab.txt"
    path.write_text("function\nvalue\n", encoding="utf-8-sig")
    assert list(Vocabulary.load(path).terms) == ["function", "value"]
    path = tmp_path / "seeds.json"
    path.write_text('{"space": ["nasa"]}', encoding="utf-8-sig")
    assert dict(read_seed_topics(path, argparse.Namespace(encoding="utf-8"))) == {"space": ["nasa"]}


@pytest.mark.parametrize("header", ["no", 0, None])
def test_read_csv_header_must_be_a_bool(tmp_path, stub_vectorizer, header):
    path = _write(tmp_path / "docs.csv", "apples and pears\ncars and trucks\nbuses and cars\n")
    with pytest.raises(TypeError, match=f"header must be True or False, got {header!r}"):
        read_csv(path, 0, header=header, vectorizer=stub_vectorizer)
    assert read_csv(path, 0, header=np.False_, vectorizer=stub_vectorizer).n_docs == 3


@pytest.mark.parametrize("header", [True, False])
def test_read_csv_refuses_negative_and_out_of_range_indices_with_or_without_header(tmp_path, stub_vectorizer, header):
    # Without a header, -1 silently read the last column.
    path = _write(tmp_path / "docs.csv", ("text,label\n" if header else "") + "\napples and pears,fruit\ncars,vehicle\n")
    for kwargs, what, index in (({"text_column": -1}, "text_column", -1),
                                ({"text_column": 0, "label_column": -2}, "label_column", -2),
                                ({"text_column": 0, "id_column": 2}, "id_column", 2)):
        with pytest.raises(ValueError, match=rf"{what}={index} is out of range; '.*docs.csv' has 2 columns"):
            read_csv(path, header=header, vectorizer=stub_vectorizer, **kwargs)
    c = read_csv(path, 0, 1, header=header, vectorizer=stub_vectorizer)
    assert c.texts == ["apples and pears", "cars"] and c.label_strings() == ["fruit", "vehicle"]
    if not header:
        empty = _write(tmp_path / "empty.csv", "")
        with pytest.raises(ValueError, match=r"text_column=-1 is out of range; 0-based indices are >= 0"):
            read_csv(empty, -1, header=False, vectorizer=stub_vectorizer)


def test_read_csv_takes_a_numpy_integer_column_index(tmp_path):
    from topicvb.datasets import read_csv

    path = tmp_path / "t.csv"
    path.write_text("id,text\n1,apples pears\n2,cars trucks\n", encoding="utf-8")
    got = read_csv(path, np.int64(1))  # (before: "must be a column name (str) or a 0-based index (int)")
    assert got.texts == read_csv(path, 1).texts == ["apples pears", "cars trucks"]
