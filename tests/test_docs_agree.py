"""What the documentation and the help say agrees with what the command line does.

Each test pins one place where the two once disagreed: the README's command-line sequence, the
choices ``topicvb select-k --model`` offers, the number of topics a fit of HDP reports, what the demo
says it removed, the corpus file ``vectorize -o`` writes, the option names in the errors of
``--vocab`` and ``--min-df`` / ``--max-df`` (and pruning options over a fixed vocabulary, which the
command line says it ignores), and a warning's advice in the command line's terms.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from topicvb import load
from topicvb.cli import build_parser, main

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

README = Path(__file__).resolve().parents[1] / "README.md"
FRUIT = "apples pears plums fruit salad orchard harvest juice sweet ripe"
CITY = "subway taxi traffic street bridge tower downtown crowd noise city"
LOOSE = ["--min-df", "1", "--max-df", "1.0"]  # tiny corpora: keep every term


def _texts(seed, n):
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice((FRUIT if i % 2 == 0 else CITY).split(), size=30)) for i in range(n)]


def _folder(path, texts):
    path.mkdir()
    for i, text in enumerate(texts):
        (path / f"doc{i:03d}.txt").write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(scope="module")
def count_corpus(tmp_path_factory):
    from topicvb.datasets import make_lda_corpus

    path = tmp_path_factory.mktemp("counts") / "c.npz"
    make_lda_corpus(40, 12, 2, separated=True, random_state=0).corpus.save(path)
    return path


# ----------------------------------------------------------------------------- the README's command line
def _readme_commands():
    """The lines of the README's command-line block, without comments and optional ``[...]`` parts."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"^## Command line\n+```\n(.*?)^```", text, re.S | re.M).group(1)
    lines = []
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line)
        line = re.sub(r"\s*\[[^\]]*\]", "", line).strip()
        if line:
            lines.append(line)
    return lines


def test_readme_command_sequence_runs_on_a_corpus_file(ws, capsys):
    """vectorize, fit on the corpus file, then held-out text and new documents as the README writes them."""
    _folder(ws / "train", _texts(0, 40))
    _folder(ws / "new", _texts(1, 6))
    lines = _readme_commands()
    wanted = ("topicvb vectorize INPUT", "topicvb fit corpus.npz", "topicvb vectorize TEST", "topicvb evaluate",
              "topicvb infer")
    chosen = [next(line for line in lines if line.startswith(start)) for start in wanted]
    for line in chosen:
        argv = [{"INPUT": "train", "TEST": "new", "NEW_TEXTS/": "new/"}.get(a, a) for a in shlex.split(line)[1:]]
        if argv[0] == "vectorize":
            argv += LOOSE
        if argv[0] == "fit":
            argv = [a if a != "20" else "2" for a in argv] + ["--max-iter", "5"]
        status = main(argv)
        captured = capsys.readouterr()
        assert status == 0, f"README line {line!r} failed: {captured.err}"
    assert "doc000.txt: topic" in captured.out  # the infer line printed each new document's topics


# ----------------------------------------------------------------------------- select-k and HDP
def test_select_k_does_not_offer_hdp(capsys):
    parser = build_parser()
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["select-k", "c.npz", "--k", "2", "3", "--model", "hdp"])
    assert exc.value.code == 2
    assert "invalid choice: 'hdp'" in capsys.readouterr().err
    sub = next(a for a in parser._actions if a.dest == "command").choices["select-k"]
    model = next(a for a in sub._actions if a.dest == "model")
    assert "hdp" not in model.choices and "collapsed" in model.choices
    assert "hdp:" not in model.help  # the help lists only the models it offers


def test_fit_of_hdp_reports_the_topics_it_found(count_corpus, ws, capsys):
    assert main(["fit", str(count_corpus), "--model", "hdp", "-k", "10", "--max-iter", "100", "-o", "h.npz"]) == 0
    out = capsys.readouterr().out
    found = load(ws / "h.npz").n_components_
    assert found < 10  # two true topics
    assert f"HDP with {found} topics" in out and "HDP with 10 topics" not in out
    assert "at most 10" in out


# ----------------------------------------------------------------------------- the demo's messages
@pytest.fixture
def small_builtin(monkeypatch):
    """The demo on 40 short texts instead of the whole built-in corpus (read with the demo's vectorizer)."""
    import topicvb.datasets
    from topicvb.datasets._text import build_text_corpus

    texts = _texts(2, 40)
    texts = [t + (" the and of" if i % 3 else " default parameters returns") for i, t in enumerate(texts)]

    def fake(vectorizer=None, **kwargs):
        return build_text_corpus(texts, vectorizer, name="builtin-docstrings")

    monkeypatch.setattr(topicvb.datasets, "load_builtin_corpus", fake)


@pytest.mark.parametrize("stop_words, english", [([], True), (["--stop-words", "english"], True),
                                                 (["--stop-words", "none"], False)])
def test_demo_says_which_words_it_removed(small_builtin, capsys, stop_words, english):
    assert main(["demo", "-k", "2", "--max-iter", "3", *LOOSE, *stop_words]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "docstring boilerplate words removed" in first  # always: the demo adds them to the stop words
    assert ("English and docstring boilerplate words removed" in first) == english
    assert ("English stop words kept" in first) == (not english)
    # the 20 words of the texts, with "the" and "and" where English stop words are kept; never "default" ...
    n_terms = int(re.search(r"(\d+) terms", out.splitlines()[1]).group(1))
    assert n_terms == 20 if english else n_terms > 20


def test_demo_of_hdp_reports_the_topics_it_found(small_builtin, capsys):
    assert main(["demo", "--model", "hdp", "-k", "8", "--max-iter", "100", *LOOSE]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("HDP with"))
    found = int(line.split()[2])
    assert found < 8 and "at most 8" in line


# ----------------------------------------------------------------------------- vectorize -o
def test_vectorize_appends_npz_to_an_output_without_it(ws, capsys):
    _folder(ws / "texts", _texts(3, 20))
    assert main(["vectorize", "texts", *LOOSE, "-o", "cc"]) == 0
    assert not (ws / "cc").exists() and (ws / "cc.npz").is_file()
    assert "written to cc.npz" in capsys.readouterr().out
    assert main(["fit", "cc.npz", "-k", "2", "--max-iter", "3", "-o", "m"]) == 0  # read back as a corpus
    assert (ws / "m.npz").is_file()


# ----------------------------------------------------------------------------- option names in errors
def test_a_vocabulary_file_with_a_corpus_is_named_as_the_option(count_corpus, ws, capsys):
    (ws / "terms.txt").write_text("a\nb\n", encoding="utf-8")
    assert main(["fit", str(count_corpus), "-k", "2", "-o", "m.npz"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "m.npz", str(count_corpus), "--vocab", "terms.txt"]) == 1
    err = capsys.readouterr().err
    assert "--vocab 'terms.txt' applies only to a plain SciPy matrix" in err and "vocab_path" not in err


@pytest.mark.parametrize("options, message", [
    (["--min-df", "1.0"], "--min-df 1.0 must not be above --max-df 0.5 (the default); lower --min-df or raise "
                          "--max-df."),
    (["--max-df", "2"], "--min-df 5 (the default) must not be above --max-df 2; lower --min-df or raise --max-df."),
])
def test_document_frequency_errors_name_the_options(ws, capsys, options, message):
    _folder(ws / "texts", _texts(4, 20))
    assert main(["vectorize", "texts", *options, "-o", "c.npz"]) == 1
    err = capsys.readouterr().err
    assert message in err and "min_df" not in err and "max_df" not in err
    assert not (ws / "c.npz").exists()


def test_pruning_options_with_a_fixed_vocabulary_are_only_ignored(ws, capsys):
    """Over a fixed vocabulary nothing is pruned: --min-df is ignored with a warning, never an error against the
    default --max-df."""
    _folder(ws / "texts", _texts(5, 20))
    (ws / "terms.txt").write_text("apples\nsubway\n", encoding="utf-8")
    assert main(["vectorize", "texts", "--vocab", "terms.txt", "--min-df", "1.0", "-o", "c.npz"]) == 0
    err = capsys.readouterr().err
    assert "--min-df does not apply here" in err and "must not be above" not in err


# ----------------------------------------------------------------------------- advice in the command line's terms
def test_hdp_unsettled_merges_warning_gives_the_command_line_advice(ws, capsys):
    """HDP's warning advises ``merges=False``, a Python parameter: the command line says that it has no option
    for it, and names --max-iter."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from topicvb.datasets import make_lda_corpus

    warnings.simplefilter("always", ConvergenceWarning)  # (this module ignores them; pytest restores the filters)
    make_lda_corpus(100, 20, 3, separated=True, random_state=0).corpus.save(ws / "c.npz")
    assert main(["fit", "c.npz", "--model", "hdp", "-k", "10", "--max-iter", "64", "-o", "h.npz"]) == 0
    err = capsys.readouterr().err
    line = next(line for line in err.splitlines() if "merges were still changing the fit" in line)
    assert line.endswith("raise --max-iter (or, in Python, pass merges=False; the command line has no option for "
                         "it).")
    assert "raise max_iter" not in err


def test_the_plain_not_converged_warning_names_the_options(ws, capsys):
    """A hunt: 'topicvb fit --model online' warned "raise max_iter or tol.", the Python parameters."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from topicvb.datasets import make_lda_corpus

    warnings.simplefilter("always", ConvergenceWarning)
    make_lda_corpus(100, 20, 3, random_state=0).corpus.save(ws / "c.npz")
    assert main(["fit", "c.npz", "--model", "online", "-k", "4", "--max-iter", "2", "-o", "o.npz"]) == 0
    err = capsys.readouterr().err
    assert "reached max_iter=2 before the relative change of the bound fell below" in err
    assert "raise --max-iter or --tol." in err and "raise max_iter or tol" not in err
