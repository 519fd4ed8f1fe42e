"""Unusual text on the way out: bytes that were not UTF-8, a bare carriage return in a word, a trailing NUL, a
dollar sign. Each case was a bug of the writers (a hunt of adversarial vocabularies); markup and script in words
are covered by tests/test_report.py."""

from __future__ import annotations

import csv
import io
import os
import sys
import warnings

import numpy as np
import pytest

from topicvb import BatchLDA, persistence, save
from topicvb.cli import main
from topicvb.inspection import summary

TERMS = ["apple", "banana", "cherry", "durian", "elder", "fig"]


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, (30, len(TERMS))).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BatchLDA(2, max_iter=5, random_state=0).fit(X), X


def test_a_report_with_bytes_that_were_not_utf8_is_written_with_replacement_characters(fitted, tmp_path):
    # (before: "'utf-8' codec can't encode character '\udcff' ... surrogates not allowed", for a text folder with a
    # file name that is not UTF-8, whose name os.listdir gives with a lone surrogate)
    from topicvb.report import report

    model, X = fitted
    ids = [f"doc\udcff{i}" for i in range(X.shape[0])]
    path = tmp_path / "r.html"
    page = report(model, X, TERMS, doc_ids=ids, title="t\ud800", path=path)
    written = path.read_bytes().decode("utf-8")  # (strict: the file is UTF-8)
    assert "doc\ufffd" in written and "t\ufffd" in written  # (the representative documents, by their ids)
    assert page.replace("\udcff", "\ufffd").replace("\ud800", "\ufffd") == written


@pytest.mark.skipif(sys.platform != "linux", reason="file names of arbitrary bytes (Linux)")
def test_the_command_line_reports_and_infers_a_folder_named_with_bytes_that_were_not_utf8(tmp_path, monkeypatch):
    folder = os.fsencode(tmp_path) + b"/texts\xff"
    os.mkdir(folder)
    for i in range(8):
        with open(folder + b"/f\xfe%d.txt" % i, "w", encoding="utf-8") as fh:
            fh.write("apple banana cherry durian elder fig " * (i % 3 + 1))
    monkeypatch.chdir(tmp_path)
    texts = os.fsdecode(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["fit", texts, "-k", "2", "--max-iter", "3", "--min-df", "1", "--max-df", "1.0", "-o", "m"]) == 0
        assert main(["report", "m.npz", texts, "-o", "r.html"]) == 0
        assert main(["infer", "m.npz", texts, "-o", "theta.csv", "--show", "0"]) == 0
    page = (tmp_path / "r.html").read_bytes().decode("utf-8")
    assert "texts\ufffd" in page and "f\ufffd0.txt" in page
    rows = list(csv.reader(io.StringIO((tmp_path / "theta.csv").read_bytes().decode("utf-8"), newline="")))
    assert len(rows) == 9 and any("f\ufffd0.txt" in row[0] for row in rows[1:])
    # the ids printed to a strict UTF-8 stdout (as a UTF-8 locale's is): escaped, not an error (before: exit 1)
    import subprocess

    proc = subprocess.run([sys.executable, "-m", "topicvb", "infer", "m.npz", texts], capture_output=True,
                          cwd=tmp_path, env=dict(os.environ, PYTHONIOENCODING="utf-8:strict"), timeout=300)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    assert "f\\udcfe0.txt" in proc.stdout.decode("utf-8")


def test_a_csv_table_keeps_a_word_with_a_carriage_return_in_its_row(fitted, tmp_path):
    # (before, a bare "\r" in a word was written unquoted, and a CSV reader split the row in two there)
    model, X = fitted
    terms = ["a\rb", "c\udcff", "plain", "with,comma", 'with"quote', "fig"]
    table = summary(model, X, terms, n=6)
    buf = io.StringIO()
    table.to_csv(buf)
    rows = list(csv.reader(io.StringIO(buf.getvalue(), newline="")))
    assert len(rows) == 1 + 2 * 6 and all(len(row) == len(rows[0]) for row in rows)
    assert sorted(row[2] for row in rows[1:7]) == sorted(["a\rb", "c\ufffd", "plain", "with,comma", 'with"quote', "fig"])
    table.to_csv(tmp_path / "t.csv")  # (a path: written as UTF-8, the surrogate replaced)
    assert (tmp_path / "t.csv").read_bytes().decode("utf-8") == buf.getvalue()


def test_saving_a_term_that_ends_in_nul_is_refused_not_truncated(fitted, tmp_path):
    # (before, "b\x00" came back as "b": a duplicate term, its column indistinguishable, without a word)
    model, _ = fitted
    with pytest.raises(ValueError, match=r"save: vocabulary holds 'b\\x00', which ends in a NUL character"):
        save(model, tmp_path / "m.npz", vocabulary=["a", "b\x00", "b", "c", "d", "e"])
    assert not (tmp_path / "m.npz").exists()
    inner = ["a\x00b", "b", "c", "d", "e", "\x00f"]  # (NULs elsewhere are kept)
    assert list(persistence.read(save(model, tmp_path / "ok.npz", vocabulary=inner)).vocabulary) == inner


def test_words_with_dollar_signs_are_drawn_as_text_not_mathematics(fitted):
    # (before, "$x^2$" was drawn as x squared, and "$\foo$" made savefig fail on an unknown symbol)
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from topicvb.plotting import plot_top_words

    model, _ = fitted
    terms = ["$x^2$", "$\\foo$", "cherry", "durian", "elder", "fig"]
    axes = plot_top_words(model, terms, n=6)
    fig = axes[0].figure
    try:
        fig.savefig(io.BytesIO(), format="png")
        drawn = {t.get_text() for ax in axes for t in ax.get_yticklabels()}
        assert {"$x^2$", "$\\foo$"} <= drawn
        assert not any(t.get_parse_math() for ax in axes for t in ax.get_yticklabels())
    finally:
        plt.close(fig)


def test_a_vocabulary_file_refuses_a_first_term_with_a_byte_order_mark(tmp_path):
    # (before, write_uci wrote it and read_uci gave the term back without its U+FEFF, taken as the file's mark)
    import scipy.sparse as sp

    from topicvb.datasets import read_uci, write_uci

    X = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 1]]))
    with pytest.raises(ValueError, match=r"the first term '\\ufeffa' starts with U\+FEFF"):
        write_uci(X, ["\ufeffa", "b", "c"], tmp_path / "docword.txt", tmp_path / "vocab.txt")
    assert not (tmp_path / "docword.txt").exists() and not (tmp_path / "vocab.txt").exists()
    write_uci(X, ["a\ufeff", "b", "c"], tmp_path / "docword.txt", tmp_path / "vocab.txt")  # (elsewhere: kept)
    assert read_uci(tmp_path / "docword.txt", tmp_path / "vocab.txt").vocabulary == ["a\ufeff", "b", "c"]


@pytest.mark.parametrize("name", ["vocab.txt", "vocab.json"])
def test_a_vocabulary_save_that_fails_leaves_the_file_already_there(tmp_path, name):
    """A hunt: Vocabulary.save wrote in place, so a term it could not encode (a lone surrogate, from a file name that
    is not UTF-8) left the earlier file cut short, and load gave back the first terms without an error."""
    from topicvb.text import Vocabulary

    path = tmp_path / name
    Vocabulary(["alpha", "beta", "gamma"]).save(path)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"Term 'delta\\udcff' cannot be written as UTF-8 .*not saved"):
        Vocabulary(["alpha", "beta", "delta\udcff"]).save(path)
    with pytest.raises(ValueError, match=r"contains a tab or newline"):
        Vocabulary(["alpha", "be\tta"]).save(tmp_path / "other.txt")
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert Vocabulary.load(path).terms == ["alpha", "beta", "gamma"]
