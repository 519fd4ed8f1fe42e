"""The command line's inputs (issue #24): --encoding everywhere text is read, the text column guessed
when it is obvious, a held-out path (``vectorize --vocab MODEL|CORPUS``), clear messages for a folder
or a file of the wrong kind, and no option ignored silently."""

from __future__ import annotations

import csv
import gzip
import json
import re

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb import load, persistence
from topicvb.cli import main
from topicvb.datasets import Corpus, make_lda_corpus

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

FRUIT = "apples pears plums fruit salad orchard harvest juice sweet ripe".split()
CITY = "subway taxi traffic street bridge tower downtown crowd noise city".split()
LOOSE = ["-q", "--min-df", "1", "--max-df", "1.0"]  # keep every term of the small corpora


def _texts(rng, n, extra=""):
    return [" ".join(rng.choice(FRUIT if i % 2 == 0 else CITY, size=25)) + extra for i in range(n)]


def _run(argv, capsys):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def _one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topicvb: error: "), err
    return lines[0][len("topicvb: error: "):]


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    for name, n in (("train", 40), ("test", 12)):
        (tmp_path / name).mkdir()
        for i, text in enumerate(_texts(rng, n)):
            (tmp_path / name / f"doc{i:03d}.txt").write_text(text, encoding="utf-8")
    return tmp_path


# ----------------------------------------------------------------------------- --encoding
def _latin1_rows(rng, n=20):
    return [{"id": i, "label": "fruit" if i % 2 == 0 else "city", "body": t}
            for i, t in enumerate(_texts(rng, n, extra=" café crème"))]


def test_encoding_for_csv(ws, capsys):
    rows = _latin1_rows(np.random.default_rng(1))
    with open("docs.csv", "w", newline="", encoding="latin-1") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "label", "body"])
        writer.writeheader()
        writer.writerows(rows)
    rc, out, err = _run(["vectorize", "docs.csv", *LOOSE, "-o", "c.npz"], capsys)
    assert rc == 1
    assert "'docs.csv' is not valid utf-8 text" in _one_error(err) and "pass the right --encoding" in err
    rc, out, err = _run(["vectorize", "docs.csv", *LOOSE, "--encoding", "latin-1", "-o", "c.npz"], capsys)
    assert rc == 0, err
    assert {"café", "crème"} <= set(Corpus.load("c.npz").vocabulary)


def test_encoding_for_jsonl_text_folders_and_vocabulary_files(ws, capsys):
    rows = _latin1_rows(np.random.default_rng(2))
    with open("docs.jsonl", "wb") as f:
        for row in rows:
            f.write((json.dumps(row, ensure_ascii=False) + "\n").encode("latin-1"))
    assert _run(["vectorize", "docs.jsonl", *LOOSE, "--encoding", "latin-1", "-o", "j.npz"], capsys)[0] == 0
    assert "café" in Corpus.load("j.npz").vocabulary
    (ws / "latin").mkdir()
    for i, row in enumerate(rows):
        (ws / "latin" / f"{i}.txt").write_bytes(row["body"].encode("latin-1"))
    assert _run(["vectorize", "latin", *LOOSE, "--encoding", "latin-1", "-o", "d.npz"], capsys)[0] == 0
    assert "crème" in Corpus.load("d.npz").vocabulary
    # a vocabulary file (here naming the columns of a plain matrix)
    sp.save_npz("plain.npz", sp.csr_matrix(np.ones((3, 2))))
    with gzip.open("vocab.txt.gz", "wb") as f:
        f.write("café\ncrème\n".encode("latin-1"))
    assert _run(["vectorize", "plain.npz", "--vocab", "vocab.txt.gz", "--encoding", "latin-1", "-q",
                 "-o", "p.npz"], capsys)[0] == 0
    assert Corpus.load("p.npz").vocabulary == ["café", "crème"]


def test_encoding_that_does_not_apply_is_a_warning(ws, capsys):
    make_lda_corpus(20, 8, 2, random_state=0).corpus.save("c.npz")
    rc, out, err = _run(["fit", "c.npz", "-k", "2", "--max-iter", "3", "--encoding", "latin-1", "-o", "m.npz"], capsys)
    assert rc == 0
    assert "topicvb: warning: --encoding does not apply here (nothing in this input is read as text); ignored." \
        in err.splitlines()


# ----------------------------------------------------------------------------- the text column
def _write_csv(path, header, rows, delimiter=","):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)


def test_a_text_column_needs_no_option(ws, capsys):
    texts = _texts(np.random.default_rng(3), 20)
    _write_csv("a.csv", ["id", "text", "label"], [[i, t, "x y"] for i, t in enumerate(texts)])
    rc, out, err = _run(["vectorize", "a.csv", *LOOSE, "-o", "a.npz"], capsys)
    assert rc == 0 and err == ""  # 'text' is obvious: no note
    assert set(Corpus.load("a.npz").vocabulary) <= set(FRUIT + CITY)
    _write_csv("b.csv", ["Text", "n"], [[t, i] for i, t in enumerate(texts)])  # any case
    assert _run(["vectorize", "b.csv", *LOOSE, "-o", "b.npz"], capsys)[0] == 0


@pytest.mark.parametrize("name, delimiter", [("c.csv", ","), ("c.tsv", "\t")])
def test_the_only_column_of_text_is_read_and_named(ws, capsys, name, delimiter):
    texts = _texts(np.random.default_rng(4), 20)
    # an id (numbers), a label (strings without spaces) and the text
    _write_csv(name, ["id", "label", "body"], [[i, "fruit" if i % 2 == 0 else "city", t]
                                               for i, t in enumerate(texts)], delimiter)
    rc, out, err = _run(["vectorize", name, "--min-df", "1", "--max-df", "1.0", "-o", "c.npz"], capsys)
    assert rc == 0, err
    assert err.splitlines() == [f"topicvb: reading the text from the column 'body' of '{name}' "
                                "(choose another with --text-column)"]
    corpus = Corpus.load("c.npz")
    assert corpus.texts == texts
    with open("c.jsonl", "w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"n": i, "tag": "a", "review": t}) + "\n")
    assert _run(["vectorize", "c.jsonl", *LOOSE, "-o", "j.npz"], capsys)[0] == 0
    assert Corpus.load("j.npz").texts == texts


def test_no_obvious_text_column_lists_the_columns(ws, capsys):
    texts = _texts(np.random.default_rng(5), 10)
    with open("two.jsonl", "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"title": t[:30], "body": t}) + "\n")
    rc, out, err = _run(["vectorize", "two.jsonl", "-o", "t.npz"], capsys)
    assert rc == 1
    assert _one_error(err) == ("--text-column is required: cannot tell which field of 'two.jsonl' holds the text; its "
                               "fields are 'title', 'body' ('title', 'body' hold text). Pass --text-column NAME.")
    assert _run(["vectorize", "two.jsonl", *LOOSE, "--text-column", "body", "-o", "t.npz"], capsys)[0] == 0
    _write_csv("nums.csv", ["a", "b"], [[1, 2], [3, 4]])
    rc, out, err = _run(["vectorize", "nums.csv", "-o", "n.npz"], capsys)
    assert rc == 1 and "its columns are 'a', 'b'. Pass --text-column NAME." in _one_error(err)


# ----------------------------------------------------------------------------- the held-out path
def test_vectorize_vocab_model_gives_a_held_out_corpus_for_evaluate(ws, capsys):
    """The issue's walk: a model fitted on a .npz corpus; a test set vectorised on its own is refused
    with the fix in the message; ``vectorize --vocab model.npz`` makes one that evaluates."""
    assert _run(["vectorize", "train", *LOOSE, "--min-df", "3", "-o", "train.npz"], capsys)[0] == 0
    assert _run(["fit", "train.npz", "-k", "2", "--max-iter", "30", "-q", "-o", "m.npz"], capsys)[0] == 0
    (ws / "test" / "extra.txt").write_text("zebra lion tiger apples taxi", encoding="utf-8")  # terms the model lacks
    assert _run(["vectorize", "test", *LOOSE, "-o", "own.npz"], capsys)[0] == 0
    rc, out, err = _run(["evaluate", "m.npz", "own.npz"], capsys)
    assert rc == 1
    assert _one_error(err).endswith("count it over the model's terms with 'topicvb vectorize own.npz --vocab m.npz "
                                    "-o heldout.npz' and pass heldout.npz.")
    assert "has a different vocabulary from the model's" in err
    rc, out, err = _run(["vectorize", "test", "--vocab", "m.npz", "-o", "heldout.npz"], capsys)
    assert rc == 0 and err == "" and "over the vocabulary of m.npz" in out
    vocabulary = persistence.read("m.npz").vocabulary
    heldout = Corpus.load("heldout.npz")
    assert heldout.vocabulary == list(vocabulary) and heldout.n_docs == 13
    assert _run(["evaluate", "m.npz", "heldout.npz"], capsys)[0] == 0
    # the separately vectorised corpus, matched column by column, gives the same counts
    assert _run(["vectorize", "own.npz", "--vocab", "m.npz", "-q", "-o", "matched.npz"], capsys)[0] == 0
    assert (Corpus.load("matched.npz").X != heldout.X).nnz == 0


def test_vocab_of_a_model_with_a_vectorizer_counts_as_the_model_does(ws, capsys):
    assert _run(["fit", "train", "-k", "2", "--max-iter", "20", "--stem", "porter", *LOOSE, "-o", "tm.npz"],
                capsys)[0] == 0
    pipe = load("tm.npz")
    texts = [p.read_text(encoding="utf-8") for p in sorted((ws / "test").iterdir())]
    rc, out, err = _run(["vectorize", "test", "--vocab", "tm.npz", "-q", "-o", "h.npz"], capsys)
    assert rc == 0 and err == ""
    heldout = Corpus.load("h.npz")
    assert heldout.vocabulary == list(pipe.vectorizer.get_feature_names_out())
    assert (heldout.X != pipe.vectorizer.transform(texts)).nnz == 0  # stemmed as in training
    # the same from a corpus that kept its texts (vectorised on its own, without stemming)
    assert _run(["vectorize", "test", *LOOSE, "-o", "own.npz"], capsys)[0] == 0
    assert _run(["vectorize", "own.npz", "--vocab", "tm.npz", "-q", "-o", "h2.npz"], capsys)[0] == 0
    assert (Corpus.load("h2.npz").X != heldout.X).nnz == 0
    # text options cannot change how the model's vectorizer counts: said, not ignored silently
    rc, out, err = _run(["vectorize", "test", "--vocab", "tm.npz", "--stem", "snowball", "--min-df", "2", "-q",
                         "-o", "h3.npz"], capsys)
    assert rc == 0 and err.splitlines() == [
        "topicvb: warning: --stem does not apply here (the text is counted with the model's saved vectorizer, with "
        "its own settings); ignored.",
        "topicvb: warning: --min-df does not apply here (the text is counted with the model's saved vectorizer, "
        "with its own settings); ignored."]


def test_vocab_of_a_corpus_fixes_the_vocabulary(ws, capsys):
    assert _run(["vectorize", "train", *LOOSE, "--max-features", "6", "-o", "small.npz"], capsys)[0] == 0
    terms = Corpus.load("small.npz").vocabulary
    rc, out, err = _run(["vectorize", "test", "--vocab", "small.npz", "--min-df", "3", "-q", "-o", "t.npz"], capsys)
    assert rc == 0
    assert err.splitlines() == ["topicvb: warning: --min-df does not apply here (the vocabulary is fixed by --vocab, "
                                "so nothing is pruned); ignored."]
    test = Corpus.load("t.npz")
    assert test.vocabulary == terms
    counts = {t: sum(text.split().count(t) for text in test.texts) for t in terms}
    assert test.X.sum(axis=0).A1.tolist() == [counts[t] for t in terms]
    # a vocabulary file does the same for raw text
    (ws / "terms.txt").write_text("".join(t + "\n" for t in terms), encoding="utf-8")
    assert _run(["vectorize", "test", "--vocab", "terms.txt", "-q", "-o", "t2.npz"], capsys)[0] == 0
    assert (Corpus.load("t2.npz").X != test.X).nnz == 0


def test_a_vocabulary_these_options_cannot_count_is_said_and_none_at_all_refused(ws, capsys):
    # terms the tokenizer can never produce (a capital letter, a stop word, a space, an empty line) were silently
    # columns of 0, and a vocabulary of none of the texts' tokens gave a corpus of 0 tokens, exit status 0
    (ws / "terms.txt").write_text("\ufeffapples\nPears\nthe\n\nsweet ripe\ncity\n", encoding="utf-8")
    rc, out, err = _run(["vectorize", "test", "--vocab", "terms.txt", "-q", "-o", "t.npz"], capsys)
    assert rc == 0
    assert err.splitlines() == ["topicvb: warning: 4 of the 6 terms of --vocab 'terms.txt' can never be counted with "
                                "these text options (the tokenizer makes 'Pears' -> ['pears'], 'the' -> [], '' -> [], "
                                "'sweet ripe' -> ['sweet', 'ripe']): their columns stay 0."]
    X = Corpus.load("t.npz").X
    assert X[:, 0].sum() > 0 and X[:, 5].sum() > 0  # ('apples', its byte-order mark not part of it, and 'city')
    (ws / "other.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    rc, out, err = _run(["vectorize", "test", "--vocab", "other.txt", "-q", "-o", "t2.npz"], capsys)
    assert rc != 0 and _one_error(err).startswith("no token of these texts is a term of --vocab 'other.txt': was its "
                                                  "vocabulary made with other text options (--stem")


def test_texts_counted_over_a_corpus_with_other_text_options_are_warned(ws, capsys):
    # (before, a corpus made with --stem porter and texts counted over it without --stem lost most tokens
    # silently: a corpus did not record its text options)
    for folder in ("train", "test"):  # (words whose stems are not words: "apples" -> "appl", "plums" -> "plum")
        for path in (ws / folder).iterdir():
            path.write_text(path.read_text(encoding="utf-8") + " ripening harvests", encoding="utf-8")
    assert _run(["vectorize", "train", *LOOSE, "--stem", "porter", "-o", "stem.npz"], capsys)[0] == 0
    assert Corpus.load("stem.npz").text_options == {"stop_words": "english", "stem": "porter", "phrases": False,
                                                    "clean_email": False}
    rc, out, err = _run(["vectorize", "test", "--vocab", "stem.npz", "-q", "-o", "t.npz"], capsys)
    assert rc == 0
    assert err.splitlines() == ["topicvb: warning: the corpus 'stem.npz' was counted with --stem porter, these texts "
                                "with --stem none: its terms may not be the tokens these options make (tokens of no "
                                "term are dropped); give the same text options."]
    assert Corpus.load("t.npz").text_options["stem"] == "none"
    rc, out, err = _run(["vectorize", "test", "--vocab", "stem.npz", "--stem", "porter", "-q", "-o", "t2.npz"], capsys)
    assert rc == 0 and err == ""
    assert Corpus.load("t2.npz").n_tokens > Corpus.load("t.npz").n_tokens


def test_matching_a_corpus_to_a_vocabulary_moves_the_columns(ws, capsys):
    rng = np.random.default_rng(6)
    X = sp.csr_matrix(rng.integers(0, 4, size=(15, 5)))
    Corpus(X=X, vocabulary=["a", "b", "c", "d", "e"]).save("src.npz")
    Corpus(X=sp.csr_matrix(np.ones((2, 4))), vocabulary=["d", "x", "b", "a"]).save("target.npz")
    rc, out, err = _run(["vectorize", "src.npz", "--vocab", "target.npz", "-v", "-o", "out.npz"], capsys)
    assert rc == 0
    got = Corpus.load("out.npz")
    assert got.vocabulary == ["d", "x", "b", "a"]
    expected = np.column_stack([X[:, 3].toarray(), np.zeros((15, 1)), X[:, 1].toarray(), X[:, 0].toarray()])
    np.testing.assert_array_equal(got.X.toarray(), expected)
    dropped = int(X[:, [2, 4]].sum())
    assert f"{dropped} tokens of other terms dropped" in err


@pytest.mark.parametrize("make, vocab, message", [
    (lambda: sp.save_npz("plain.npz", sp.csr_matrix(np.ones((2, 3)))), "plain.npz",
     "--vocab 'plain.npz' is a plain SciPy matrix, which has no terms"),
    (lambda: None, "missing.npz", "--vocab 'missing.npz' does not exist"),
    (lambda: (__import__("os").mkdir("vdir")), "vdir", "--vocab 'vdir' is a folder; give a file."),
], ids=["plain-matrix", "missing", "folder"])
def test_bad_vocab_files_are_one_clear_line(ws, capsys, make, vocab, message):
    make()
    rc, out, err = _run(["vectorize", "test", "--vocab", vocab, "-o", "t.npz"], capsys)
    assert rc == 1 and message in _one_error(err)


def test_a_count_file_without_terms_is_told_the_two_steps(ws, capsys):
    make_lda_corpus(10, 6, 2, random_state=0).corpus.save("c.npz")
    assert _run(["fit", "c.npz", "-k", "2", "--max-iter", "3", "-q", "-o", "m.npz"], capsys)[0] == 0
    with open("docword.x.txt", "w") as f:
        f.write("2\n3\n3\n1 1 2\n1 2 1\n2 3 4\n")
    rc, out, err = _run(["vectorize", "docword.x.txt", "--vocab", "m.npz", "-o", "t.npz"], capsys)
    assert rc == 1
    assert _one_error(err) == (
        "'docword.x.txt' has no terms of its own to match with the model 'm.npz'; give it its vocabulary first "
        "('topicvb vectorize docword.x.txt --vocab VOCAB.txt -o with_terms.npz'), then match that corpus ('topicvb "
        "vectorize with_terms.npz --vocab m.npz -o matched.npz').")


# ----------------------------------------------------------------------------- folders and files of the wrong kind
@pytest.fixture
def fitted_ws(ws, capsys):
    make_lda_corpus(20, 8, 2, random_state=0).corpus.save(ws / "c.npz")
    assert main(["fit", "c.npz", "-k", "2", "--max-iter", "3", "-q", "-o", "m.npz"]) == 0
    (ws / "afolder").mkdir()
    capsys.readouterr()
    return ws


@pytest.mark.parametrize("argv, message", [
    (["topics", "afolder"], "the model 'afolder' is a folder; give a model file written by 'topicvb fit' (.npz)."),
    (["topics", "afolder/"], "the model 'afolder/' is a folder; give a model file written by 'topicvb fit' (.npz)."),
    (["evaluate", "afolder", "c.npz"], "the model 'afolder' is a folder"),
    (["infer", "afolder", "c.npz"], "the model 'afolder' is a folder"),
    (["report", "afolder", "c.npz", "-o", "r.html"], "the model 'afolder' is a folder"),
    (["fit", "c.npz", "--vocab", "afolder", "-k", "2", "-o", "x.npz"], "--vocab 'afolder' is a folder; give a file."),
    (["fit", "c.npz", "--format", "textdir", "-k", "2", "-o", "x.npz"],
     "'c.npz' is not a folder; --format textdir reads a folder of text files (a file with one document per line is "
     "--format lines)."),
    (["topics", "c.npz"], "'c.npz' is not a topicvb model file but a corpus (a document-term matrix); fit a model "
                          "on it first: topicvb fit c.npz -k 20 -o model.npz."),
    (["evaluate", "m.npz", "m.npz"], "'m.npz' is a model file (written by 'topicvb fit'), not a corpus"),
    (["fit", "m.npz", "-k", "2", "-o", "x.npz"], "'m.npz' is a model file (written by 'topicvb fit'), not a corpus"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_a_folder_or_wrong_file_is_one_clear_line(fitted_ws, capsys, argv, message):
    rc, out, err = _run(argv, capsys)
    assert rc == 1
    text = _one_error(err)
    assert message in text and "Is a directory" not in text and "corrupt" not in text


# ----------------------------------------------------------------------------- no option ignored silently
@pytest.mark.parametrize("argv, warning", [
    (["fit", "c.npz", "-k", "2", "--max-iter", "3", "--min-df", "2", "-o", "x.npz"],
     "--min-df does not apply here ('c.npz' is a count matrix, already counted); ignored."),
    (["fit", "c.npz", "-k", "2", "--max-iter", "3", "--stop-words", "none", "-o", "x.npz"],
     "--stop-words does not apply here ('c.npz' is a count matrix, already counted); ignored."),
    (["fit", "c.npz", "-k", "2", "--max-iter", "3", "--text-column", "body", "-o", "x.npz"],
     "--text-column does not apply here (only CSV and JSON lines have columns); ignored."),
    (["fit", "c.npz", "-k", "2", "--max-iter", "3", "--subset", "test", "-o", "x.npz"],
     "--subset does not apply here (only for the 20 Newsgroups input '20ng'); ignored."),
    (["vectorize", "test", "--label-column", "y", *LOOSE, "-o", "x.npz"],
     "--label-column does not apply here (only CSV and JSON lines have columns); ignored."),
])
def test_an_option_that_does_not_apply_is_a_warning(fitted_ws, capsys, argv, warning):
    rc, out, err = _run(argv, capsys)
    assert rc == 0, err
    assert f"topicvb: warning: {warning}" in err.splitlines()


def test_options_that_apply_give_no_warning(fitted_ws, capsys):
    rc, out, err = _run(["vectorize", "test", "--min-df", "2", "--max-df", "0.9", "--stem", "porter", "--phrases",
                         "--encoding", "utf-8", "-q", "-o", "x.npz"], capsys)
    assert rc == 0 and err == ""


def test_phrase_terms_of_a_fixed_vocabulary_are_not_called_uncountable(caplog):
    # (phrase terms are joined after tokenizing: the tokenizer alone never makes 'new_york', the counts do)
    import logging
    import types

    from topicvb._cli_inputs import check_fixed_counts
    from topicvb.text import Tokenizer, Vectorizer

    texts = ["I moved to new york last year, new york is big"] * 30 + ["paris and london"] * 30
    terms = Vectorizer(tokenizer=Tokenizer(stop_words="english"), phrases=True).fit(texts).get_feature_names_out()
    assert any("_" in t for t in terms)
    fixed = Vectorizer(tokenizer=Tokenizer(stop_words="english"), phrases=True, vocabulary=list(terms))
    X = fixed.fit_transform(texts)
    with caplog.at_level(logging.WARNING):
        check_fixed_counts(types.SimpleNamespace(X=X, texts=texts), fixed, "--vocab 'v.txt'")
    assert "can never be counted" not in caplog.text


@pytest.mark.parametrize("options, message", [
    (["--max-df", "2.5"], "--max-df must be in [0, 1] when given as a fraction (float), got 2.5."),
    (["--min-df", "-1"], "--min-df must be >= 0 when given as a document count, got -1."),
    (["--min-df", "3", "--max-df", "2"], "--min-df 3 must not be above --max-df 2; lower --min-df or raise --max-df."),
    (["--min-df", "0.6", "--max-df", "0.5"], "--min-df 0.6 must not be above --max-df 0.5; lower --min-df or raise "
                                             "--max-df."),
])
def test_document_frequency_options_are_checked_before_any_input_is_read(capsys, options, message):
    # (they were checked by the Vectorizer, after the whole input was read, naming its parameters)
    rc, out, err = _run(["vectorize", "no-such-folder", "-o", "x.npz", *options], capsys)
    assert rc != 0 and _one_error(err) == message  # (the missing input is never reached)


@pytest.mark.parametrize("options, message", [
    ([], "--min-df 5 (the default) asks for more documents than --max-df 0.5 (the default) allows (5 > 1.5 of 3 "
         "documents). Lower --min-df or raise --max-df."),
    (["--min-df", "0.5", "--max-df", "1"], "--min-df 0.5 asks for more documents than --max-df 1 allows (1.5 > 1 of 3 "
                                           "documents). Lower --min-df or raise --max-df."),
])
def test_document_frequency_bounds_a_small_corpus_cannot_meet_are_named_as_options(ws, capsys, options, message):
    """A hunt: a folder of 3 texts failed with the Vectorizer's message, naming min_df and max_df (parameters the
    user never gave) and not saying they were the command line's defaults."""
    (ws / "few").mkdir()
    for i in range(3):
        (ws / "few" / f"d{i}.txt").write_text(f"space orbit rocket launch {i}", encoding="utf-8")
    rc, out, err = _run(["vectorize", "few", "-o", "x.npz", *options], capsys)
    assert rc == 1 and _one_error(err) == message


@pytest.mark.parametrize("name, content, message", [
    ("arr.json", json.dumps([{"text": "space orbit", "id": 1}] * 3, indent=2),
     "'arr.json' is not JSON lines: it starts with '[' (a JSON array?). topicvb reads one JSON object per line; "
     "convert the file, for example with jq -c '.[]' FILE > FILE.jsonl."),
    ("bad.jsonl", '{"text": "space orbit",}\n{"text": "a b"}\n',
     "'bad.jsonl': its first record is not valid JSON (Expecting property name enclosed in double quotes); topicvb "
     'reads JSON lines, one object per line (for example {"text": "..."}).'),
    ("str.jsonl", '"space orbit"\n', "'str.jsonl': its first record is a JSON string, not an object; topicvb reads "
                                      'JSON lines, one object per line (for example {"text": "..."}).'),
])
def test_json_lines_whose_first_record_cannot_be_read_say_why(ws, capsys, name, content, message):
    """A hunt: a JSON array in a .json file, or a first line that is not a JSON object, failed with "--text-column is
    required ... its fields are none"."""
    (ws / name).write_text(content, encoding="utf-8")
    rc, out, err = _run(["vectorize", name, "-o", "x.npz"], capsys)
    assert rc == 1 and _one_error(err) == message


# ---------------------------------------------------------------------------------- found by an edge-case hunt
def test_a_plain_matrix_of_the_model_width_is_read_in_the_model_terms(fitted_ws, capsys):
    # (before, its numbered columns matched none of the model's top words: coherence 0.0000, exit status 0)
    c = Corpus.load("c.npz")
    sp.save_npz("plain.npz", c.X)
    named = _run(["evaluate", "m.npz", "c.npz"], capsys)
    plain = _run(["evaluate", "m.npz", "plain.npz"], capsys)
    assert named[0] == plain[0] == 0
    lines = lambda out: [line.split()[-1] for line in out.splitlines() if line.startswith("coherence")]
    assert lines(plain[1]) == lines(named[1]) and len(lines(named[1])) == 2
    assert any(float(v) != 0.0 for v in lines(named[1]))


def test_uci_ldac_and_matrix_market_without_terms_are_read_in_the_model_terms_as_a_plain_matrix(fitted_ws, capsys):
    """A hunt: a UCI, LDA-C or MatrixMarket file of the model's width, read without --vocab (placeholder names
    w00, w01, ...), was refused as "a different vocabulary (0 shared)" with advice to run vectorize --vocab, which
    then refused it too; a plain .npz of the same numbers was accepted by position."""
    import scipy.io

    from topicvb.datasets import write_ldac, write_uci

    c = Corpus.load("c.npz")
    named = _run(["evaluate", "m.npz", "c.npz"], capsys)
    write_uci(c.X, None, "docword.plain.txt")
    write_ldac(c.X, None, "plain.ldac")
    scipy.io.mmwrite("plain.mtx", sp.csr_matrix(c.X).astype(np.int64))
    lines = lambda out: [line.split()[-1] for line in out.splitlines() if line.startswith("coherence")]
    for name in ("docword.plain.txt", "plain.ldac", "plain.mtx"):
        rc, out, err = _run(["evaluate", "m.npz", name], capsys)
        assert rc == 0, err
        assert lines(out) == lines(named[1])
    scipy.io.mmwrite("narrow.mtx", sp.csr_matrix(c.X)[:, :-1].astype(np.int64))
    rc, out, err = _run(["evaluate", "m.npz", "narrow.mtx"], capsys)
    assert rc == 1 and (f"has {c.n_terms - 1} columns without terms of their own, but the model has {c.n_terms} "
                        "terms; give the corpus its vocabulary (--vocab VOCAB.txt") in err


def test_evaluate_on_documents_too_short_for_the_split_says_so_in_its_terms(fitted_ws, capsys):
    """A hunt: the message named heldout_perplexity's parameters, X_test and observed_fraction (no option)."""
    # (four one-token documents: the split of --seed 0 observes every token)
    Corpus(X=sp.csr_matrix(np.eye(4, 8)), vocabulary=Corpus.load("c.npz").vocabulary).save("one.npz")
    rc, out, err = _run(["evaluate", "m.npz", "one.npz"], capsys)
    assert rc == 1 and _one_error(err) == (
        "'one.npz' is too short for the held-out perplexity: half of each document's tokens are held out, and its "
        "documents leave none (too few tokens); evaluate on longer documents.")


def test_a_corpus_without_documents_is_named(fitted_ws, capsys):
    # (before: "heldout_perplexity: X_test is not a valid count matrix: Found array with 0 sample(s)")
    Corpus(X=sp.csr_matrix((0, 8)), vocabulary=Corpus.load("c.npz").vocabulary).save("none.npz")
    for argv in (["evaluate", "m.npz", "none.npz"], ["fit", "none.npz", "-k", "2", "-o", "x.npz"],
                 ["topics", "m.npz", "--corpus", "none.npz"], ["select-k", "none.npz", "--k", "2", "3"]):
        rc, out, err = _run(argv, capsys)
        assert rc == 1 and _one_error(err) == "the corpus 'none.npz' has no documents.", argv


def test_select_k_on_one_document_names_its_own_options(fitted_ws, capsys):
    # (before: "select_n_topics cannot hold out documents from only 1; pass X_test", an option it does not have)
    c = Corpus.load("c.npz")
    Corpus(X=c.X[:1], vocabulary=c.vocabulary).save("one.npz")
    rc, out, err = _run(["select-k", "one.npz", "--k", "2", "3"], capsys)
    assert rc == 1 and _one_error(err).startswith("--criterion heldout holds out some of the documents to score each "
                                                  "K, but the corpus 'one.npz' has only 1; give more documents, or "
                                                  "--criterion elbo or coherence.")


def test_a_k_beyond_the_memory_is_refused_and_out_of_memory_is_said(fitted_ws, capsys, monkeypatch):
    import os

    real_sysconf = os.sysconf
    monkeypatch.setattr(os, "sysconf", lambda name: {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 2 ** 20}[name])  # (4 GiB)
    k = 2 * 2 ** 32 // (8 * (8 + 20)) + 1  # (c.npz: 8 terms, 20 documents; within -k's own range on any machine)
    rc, out, err = _run(["fit", "c.npz", "-k", k, "-o", "x.npz"], capsys)  # (before: it filled the memory)
    assert rc == 1 and re.fullmatch(rf"-k {k} needs at least [0-9.]+ GiB for its topics and document proportions "
                                    r"alone .* more than this machine's [0-9.]+ GiB; use fewer topics\.", _one_error(err))
    from topicvb.models.batch_lda import BatchLDA

    def no_memory(self, X, y=None, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(os, "sysconf", real_sysconf)
    monkeypatch.setattr(BatchLDA, "fit", no_memory)
    rc, out, err = _run(["fit", "c.npz", "--model", "batch", "-k", "2", "-o", "x.npz"], capsys)
    assert rc == 1 and _one_error(err).startswith("out of memory; use fewer topics (-k)")  # (before: "MemoryError: ")
    monkeypatch.setattr(os, "sysconf", lambda name: -1)  # (indeterminate: the check is skipped, the fit runs)
    rc, out, err = _run(["fit", "c.npz", "--model", "batch", "-k", "2", "-o", "x.npz"], capsys)
    assert rc == 1 and _one_error(err).startswith("out of memory")  # (the patched fit's, not the check's refusal)


def test_a_txt_file_is_read_one_document_per_line(ws, capsys):
    """A newcomer's hunt: `topicvb fit lines.txt` said it could not tell the format and offered formats none of which
    reads a document per line; --format csv took the first document as a header (399 of 400 documents)."""
    texts = [" ".join(d.split()) for d in _texts(np.random.default_rng(1), 30)]
    (ws / "lines.txt").write_text("\n".join(texts) + "\n\n", encoding="utf-8")
    rc, out, err = _run(["vectorize", "lines.txt", "-o", "lines.npz", "--min-df", "1", "--max-df", "1.0"], capsys)
    assert rc == 0, err
    corpus = Corpus.load("lines.npz")
    assert corpus.n_docs == 30 and corpus.doc_ids == [str(i) for i in range(1, 31)]
    rc, out, err = _run(["vectorize", "lines.txt", "--format", "textdir", "-o", "x.npz"], capsys)
    assert rc == 1 and _one_error(err) == ("'lines.txt' is not a folder; --format textdir reads a folder of text files "
                                           "(a file with one document per line is --format lines).")
    rc, out, err = _run(["vectorize", "train", "--format", "lines", "-o", "x.npz"], capsys)
    assert rc == 1 and "'train' is a folder; --format lines reads one text file" in _one_error(err)


def test_topics_without_a_corpus_says_its_input_options_are_ignored(fitted_ws, capsys):
    """A hunt: the README's "ignored with a warning, never silently" did not hold for topics without --corpus."""
    rc, out, err = _run(["topics", "m.npz", "-n", "2", "--vocab", "nonexistent.txt", "--format", "csv",
                         "--text-column", "x", "--min-df", "3"], capsys)
    assert rc == 0
    for option in ("--vocab", "--format", "--text-column", "--min-df"):
        assert f"warning: {option} does not apply here (there is no --corpus to read); ignored." in err
    rc, out, err = _run(["topics", "m.npz", "-n", "2"], capsys)
    assert rc == 0 and "warning" not in err
