"""Output paths of the command line, checked before any work; plain SciPy ``.npz`` matrices as input.

Every command that writes refuses, before it reads an input or fits anything, an output that is one
of its inputs (the same path, a hard or symbolic link to it, or the name ``fit`` or ``vectorize`` turns
into it by appending ``.npz``), an empty path, a folder, a device, a missing or unwritable folder, or two
outputs with one name: one line on stderr naming the option and the path, exit status 1, and every
file left as it was.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb import load, persistence
from topicvb.cli import main
from topicvb.datasets import make_lda_corpus
from topicvb.datasets._npz import read_npz
from topicvb.models import BatchLDA

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

N_DOCS, N_TERMS = 20, 10


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(N_DOCS, N_TERMS, 2, random_state=0).corpus


@pytest.fixture(scope="module")
def model(corpus):
    return BatchLDA(2, max_iter=2, random_state=0).fit(corpus.X)


@pytest.fixture
def ws(tmp_path, monkeypatch, corpus, model):
    """A working folder with a corpus, a plain matrix, a model, a text folder, a vocabulary file, a file, a folder."""
    monkeypatch.chdir(tmp_path)
    corpus.save(tmp_path / "c.npz")
    sp.save_npz(tmp_path / "plain.npz", corpus.X)
    persistence.save(model, tmp_path / "model.npz", vocabulary=corpus.vocabulary)
    (tmp_path / "texts").mkdir()
    (tmp_path / "texts" / "a.txt").write_text("apple pear plum apple")
    (tmp_path / "texts" / "b.txt").write_text("taxi street bridge taxi")
    (tmp_path / "vocab.txt").write_text("".join(f"{t}\n" for t in corpus.vocabulary))
    (tmp_path / "afile").write_text("x")
    (tmp_path / "sub").mkdir()
    os.link(tmp_path / "c.npz", tmp_path / "hardlink.npz")
    os.symlink(tmp_path / "c.npz", tmp_path / "symlink.npz")
    return tmp_path


def _snapshot(folder):
    """Every file under ``folder`` (links not followed) with a digest of its bytes."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[p] = hashlib.sha256(f.read()).hexdigest()
            else:
                out[p] = "dir"
    return out


@pytest.fixture
def no_work(monkeypatch):
    """Make reading any input or model fail loudly, so a refusal is proven to come before any work."""
    import topicvb._cli_commands as commands  # the commands look their helpers up there

    def fail(*args, **kwargs):
        raise AssertionError("the command started work before checking its output paths")

    monkeypatch.setattr(commands, "_read_corpus", fail)
    monkeypatch.setattr(commands, "_load_model", fail)


def _run(argv, capsys):
    try:
        rc = main(list(argv))
    except SystemExit as exc:  # pragma: no cover - a usage error would be a test bug
        rc = exc.code
    captured = capsys.readouterr()
    return rc, captured.err


ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# (id, argv, option named in the message, path named in the message, what the message says)
PATH_CASES = [
    # the output is an input
    ("fit-o-corpus", ["fit", "c.npz", "-k", "2", "-o", "c.npz"], "-o/--output", "c.npz", "it is the corpus"),
    ("fit-o-corpus-stem", ["fit", "c.npz", "-k", "2", "-o", "c"], "-o/--output", "c", r"written as 'c\.npz'.*corpus"),
    ("fit-o-plain-matrix", ["fit", "plain.npz", "-k", "2", "-o", "plain.npz"], "-o/--output", "plain.npz",
     "it is the corpus"),
    ("fit-o-absolute-path", ["fit", "c.npz", "-k", "2", "-o", "{ws}/c.npz"], "-o/--output", "{ws}/c.npz",
     "it is the corpus"),
    ("fit-o-dot-path", ["fit", "c.npz", "-k", "2", "-o", "sub/../c.npz"], "-o/--output", "sub/../c.npz",
     "it is the corpus"),
    ("fit-o-hard-link", ["fit", "c.npz", "-k", "2", "-o", "hardlink.npz"], "-o/--output", "hardlink.npz",
     "it is the corpus"),
    ("fit-o-symlink", ["fit", "c.npz", "-k", "2", "-o", "symlink.npz"], "-o/--output", "symlink.npz",
     "it is the corpus"),
    ("fit-o-textdir", ["fit", "texts", "-k", "2", "-o", "texts"], "-o/--output", "texts", "folder"),
    ("vectorize-o-input-stem", ["vectorize", "plain.npz", "-o", "plain"], "-o/--output", "plain",
     r"written as 'plain\.npz'.*it is the input"),
    ("report-o-document-of-input-folder", ["report", "model.npz", "texts", "-o", "texts/b.txt"], "-o/--output",
     "texts/b.txt", "it is a file inside the corpus 'texts'"),
    # (a hunt: a new file inside an input folder was written, and the next run read it as a document)
    ("fit-o-new-file-in-input-folder", ["fit", "texts", "-k", "2", "-o", "texts/model.npz"], "-o/--output",
     "texts/model.npz", "it is inside the corpus 'texts', whose files are read as documents"),
    ("vectorize-o-new-file-in-input-subfolder", ["vectorize", "texts", "-o", "texts/sub/c.npz"], "-o/--output",
     "texts/sub/c.npz", "it is inside the input 'texts', whose files are read as documents"),
    ("vectorize-o-input", ["vectorize", "plain.npz", "-o", "plain.npz"], "-o/--output", "plain.npz", "it is the input"),
    ("vectorize-o-vocab", ["vectorize", "texts", "--vocab", "c.npz", "-o", "c.npz"], "-o/--output",
     "c.npz", "it is the --vocab file"),
    ("report-o-model", ["report", "model.npz", "c.npz", "-o", "model.npz"], "-o/--output", "model.npz",
     "it is the model"),
    ("report-o-corpus", ["report", "model.npz", "c.npz", "-o", "c.npz"], "-o/--output", "c.npz", "it is the corpus"),
    ("infer-o-model", ["infer", "model.npz", "c.npz", "-o", "model.npz"], "-o/--output", "model.npz", "it is the model"),
    ("infer-o-input", ["infer", "model.npz", "c.npz", "-o", "c.npz"], "-o/--output", "c.npz", "it is the input"),
    ("topics-html-model", ["topics", "model.npz", "--html", "model.npz"], "--html", "model.npz", "it is the model"),
    ("topics-csv-corpus", ["topics", "model.npz", "--corpus", "c.npz", "--csv", "c.npz"], "--csv", "c.npz",
     "it is the --corpus input"),
    ("select-k-json-corpus", ["select-k", "c.npz", "--k", "2", "--json", "c.npz"], "--json", "c.npz",
     "it is the corpus"),
    ("select-k-plot-corpus-stem", ["select-k", "plain.npz", "--k", "2", "--plot", "c", "--json", "c.png"],
     "--json", "c.png", "--plot writes the same file"),
    # two outputs with one name
    ("topics-html-csv-same", ["topics", "model.npz", "--html", "t.txt", "--csv", "t.txt"], "--csv", "t.txt",
     "--html writes the same file"),
    ("select-k-plot-json-same", ["select-k", "c.npz", "--k", "2", "--plot", "k.png", "--json", "k.png"], "--json",
     "k.png", "--plot writes the same file"),
    # empty paths
    ("fit-o-empty", ["fit", "c.npz", "-k", "2", "-o", ""], "-o/--output", "", "empty"),
    ("fit-o-blank", ["fit", "c.npz", "-k", "2", "-o", "  "], "-o/--output", "  ", "empty"),
    ("report-o-empty", ["report", "model.npz", "c.npz", "-o", ""], "-o/--output", "", "empty"),
    ("infer-o-empty", ["infer", "model.npz", "c.npz", "-o", ""], "-o/--output", "", "empty"),
    ("topics-html-empty", ["topics", "model.npz", "--html", ""], "--html", "", "empty"),
    ("topics-csv-empty", ["topics", "model.npz", "--csv", ""], "--csv", "", "empty"),
    ("select-k-plot-empty", ["select-k", "c.npz", "--k", "2", "--plot", ""], "--plot", "", "empty"),
    ("select-k-json-empty", ["select-k", "c.npz", "--k", "2", "--json", ""], "--json", "", "empty"),
    ("vectorize-o-empty", ["vectorize", "texts", "-o", ""], "-o/--output", "", "empty"),
    # folders
    ("fit-o-root", ["fit", "c.npz", "-k", "2", "-o", "/"], "-o/--output", "/", "folder"),
    ("fit-o-dot", ["fit", "c.npz", "-k", "2", "-o", "."], "-o/--output", ".", "folder"),
    ("fit-o-subfolder", ["fit", "c.npz", "-k", "2", "-o", "sub"], "-o/--output", "sub", "folder"),
    ("fit-o-trailing-separator", ["fit", "c.npz", "-k", "2", "-o", "new.npz/"], "-o/--output", "new.npz/", "folder"),
    ("vectorize-o-folder", ["vectorize", "texts", "-o", "sub"], "-o/--output", "sub", "folder"),
    ("report-o-folder", ["report", "model.npz", "c.npz", "-o", "{ws}"], "-o/--output", "{ws}", "folder"),
    ("infer-o-folder", ["infer", "model.npz", "c.npz", "-o", "sub"], "-o/--output", "sub", "folder"),
    ("topics-html-folder", ["topics", "model.npz", "--html", "sub"], "--html", "sub", "folder"),
    ("topics-csv-folder", ["topics", "model.npz", "--csv", "."], "--csv", ".", "folder"),
    ("select-k-plot-folder", ["select-k", "c.npz", "--k", "2", "--plot", "sub/"], "--plot", "sub/", "folder"),
    ("select-k-json-folder", ["select-k", "c.npz", "--k", "2", "--json", "sub"], "--json", "sub", "folder"),
    # places that cannot be written
    ("fit-o-missing-folder", ["fit", "c.npz", "-k", "2", "-o", "nope/m.npz"], "-o/--output", "nope/m.npz",
     "folder 'nope' does not exist"),
    ("fit-o-under-file", ["fit", "c.npz", "-k", "2", "-o", "afile/m.npz"], "-o/--output", "afile/m.npz",
     "'afile' is not a folder"),
    ("vectorize-o-missing-folder", ["vectorize", "texts", "-o", "nope/c.npz"], "-o/--output", "nope/c.npz",
     "does not exist"),
    ("report-o-missing-folder", ["report", "model.npz", "c.npz", "-o", "nope/r.html"], "-o/--output",
     "nope/r.html", "does not exist"),
    ("infer-o-under-file", ["infer", "model.npz", "c.npz", "-o", "afile/t.csv"], "-o/--output", "afile/t.csv",
     "not a folder"),
    ("topics-csv-missing-folder", ["topics", "model.npz", "--csv", "nope/t.csv"], "--csv", "nope/t.csv",
     "does not exist"),
    ("select-k-json-missing-folder", ["select-k", "c.npz", "--k", "2", "--json", "nope/k.json"], "--json",
     "nope/k.json", "does not exist"),
    ("report-o-device", ["report", "model.npz", "c.npz", "-o", os.devnull], "-o/--output", os.devnull,
     "not a regular file"),
    ("fit-o-proc", ["fit", "c.npz", "-k", "2", "-o", "/proc/m.npz"], "-o/--output", "/proc/m.npz",
     "no file can be created in the folder '/proc'"),
    ("select-k-plot-unknown-format", ["select-k", "c.npz", "--k", "2", "--plot", "k.xyz"], "--plot", "k.xyz",
     "cannot write '.xyz' images"),
]


def _fill(value, ws):
    return value.replace("{ws}", str(ws))


_NO_MATPLOTLIB = importlib.util.find_spec("matplotlib") is None


@pytest.mark.parametrize("argv,option,path,says", [
    pytest.param(*case[1:], id=case[0],
                 # (--plot needs matplotlib, which the command line checks before the output paths)
                 marks=[pytest.mark.skipif(_NO_MATPLOTLIB, reason="--plot needs matplotlib")] if "--plot" in case[1]
                 else [])
    for case in PATH_CASES])
def test_a_bad_output_path_is_refused_before_any_work(ws, no_work, capsys, argv, option, path, says):
    if path.startswith("/proc/") and not os.path.isdir("/proc"):
        pytest.skip("no /proc on this system")
    argv, path = [_fill(a, ws) for a in argv], _fill(path, ws)
    before = _snapshot(ws)
    rc, err = _run(argv, capsys)
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith(f"topicvb: error: Cannot write {option} {path!r}"), line
    assert re.search(says, line), line
    assert _snapshot(ws) == before  # inputs untouched, nothing written (the probe file is gone too)


def test_the_issue_examples_fail_at_once_with_the_input_intact(ws, capsys):
    """``fit corpus.npz -o corpus.npz`` and ``report model.npz corpus.npz -o model.npz``, without stubs."""
    before = _snapshot(ws)
    rc, err = _run(["fit", "c.npz", "-k", "20", "-o", "c.npz"], capsys)
    assert rc == 1 and "Cannot write -o/--output 'c.npz': it is the corpus 'c.npz'" in err
    rc, err = _run(["report", "model.npz", "c.npz", "-o", "model.npz"], capsys)
    assert rc == 1 and "Cannot write -o/--output 'model.npz': it is the model 'model.npz'" in err
    assert _snapshot(ws) == before


@pytest.mark.skipif(ROOT or not hasattr(os, "geteuid"), reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused(ws, no_work, capsys):
    ro = ws / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        rc, err = _run(["fit", "c.npz", "-k", "2", "-o", "ro/m.npz"], capsys)
    finally:
        ro.chmod(0o700)
    assert rc == 1 and "Cannot write -o/--output 'ro/m.npz'" in err and "permission denied" in err


def test_a_folder_where_no_file_can_be_created_is_refused(ws, no_work, capsys, monkeypatch):
    """The probe file decides (os.access trusts root and ignores read-only file systems)."""
    import topicvb.datasets._files as files

    def refuse(final, prefix="."):
        raise PermissionError(13, "Read-only file system")

    monkeypatch.setattr(files, "create_temp_file", refuse)
    rc, err = _run(["report", "model.npz", "c.npz", "-o", "sub/r.html"], capsys)
    assert rc == 1
    assert err.strip() == ("topicvb: error: Cannot write -o/--output 'sub/r.html': no file can be created in the "
                           "folder 'sub' (Read-only file system).")


def test_good_output_paths_still_work(ws, capsys):
    """The check lets ordinary outputs through: a new name, an existing output file, a name fit extends."""
    assert main(["fit", "c.npz", "-k", "2", "--max-iter", "2", "-o", "sub/m"]) == 0
    assert (ws / "sub" / "m.npz").is_file()
    (ws / "t.csv").write_text("old")
    assert main(["topics", "sub/m.npz", "--csv", "t.csv", "--html", "sub/t.html"]) == 0
    assert (ws / "t.csv").read_text().startswith("topic,rank,word,weight")
    assert (ws / "sub" / "t.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main(["infer", "sub/m.npz", "c.npz", "-o", "theta.csv", "--show", "0"]) == 0
    assert (ws / "theta.csv").read_text().splitlines()[0] == "document,topic_0,topic_1"
    # a hidden file in an input folder: the folder's reader skips it, so it is no document of a later run (a review)
    assert main(["vectorize", "texts", "--min-df", "1", "--max-df", "1.0", "-o", "texts/.corpus.npz"]) == 0
    assert main(["vectorize", "texts", "--min-df", "1", "--max-df", "1.0", "-o", "again.npz"]) == 0
    from topicvb.datasets import Corpus

    assert Corpus.load(ws / "texts" / ".corpus.npz").n_docs == Corpus.load(ws / "again.npz").n_docs == 2
    names = {p.name for p in ws.rglob("*")}
    assert not any(n.endswith(".tmp") for n in names), names  # no probe or temporary file left


def test_a_hidden_output_in_an_input_folder_is_replaced_on_a_rerun(ws, capsys):
    """The first run wrote it and the second refused it as "a file inside the input", though it is no document."""
    args = ["vectorize", "texts", "--min-df", "1", "--max-df", "1.0", "-o", "texts/.corpus.npz"]
    assert main(args) == 0
    assert main(args) == 0
    assert "'texts/.corpus.npz' exists and will be replaced" in capsys.readouterr().err


def test_an_output_in_a_folder_an_input_folder_links_to_is_refused(ws, capsys):
    """The reader follows links to folders: an output written through one was read as a document next time."""
    (ws / "shared").mkdir()
    (ws / "texts" / "shared").symlink_to("../shared", target_is_directory=True)
    for name in ("shared/corpus.npz", "shared/deeper/corpus.npz"):
        rc, err = _run(["vectorize", "texts", "--min-df", "1", "--max-df", "1.0", "-o", name], capsys)
        assert rc == 1 and not (ws / name).exists()
        assert (f"Cannot write -o/--output '{name}': it is inside the input 'texts' (through its link "
                "'texts/shared'), whose files are read as documents") in err
    (ws / "shared" / "old.npz").write_text("x")  # an existing file there is a document: not overwritten
    rc, err = _run(["vectorize", "texts", "--min-df", "1", "--max-df", "1.0", "-o", "shared/old.npz"], capsys)
    assert rc == 1 and "it is a file inside the input 'texts' (through its link 'texts/shared')" in err
    assert main(["vectorize", "texts", "--min-df", "1", "--max-df", "1.0", "-o", "shared/.hidden.npz"]) == 0
    assert main(["vectorize", "texts", "--min-df", "1", "--max-df", "1.0", "-o", "elsewhere.npz"]) == 0


def test_replacing_an_earlier_output_is_said_before_any_work(ws, capsys):
    assert main(["fit", "c.npz", "-k", "2", "--max-iter", "2", "-o", "m.npz"]) == 0
    first = (ws / "m.npz").stat().st_mtime_ns
    assert "will be replaced" not in capsys.readouterr().err  # a new file: nothing to say
    assert main(["fit", "c.npz", "-k", "3", "--max-iter", "2", "-o", "m.npz", "-q"]) == 0
    err = capsys.readouterr().err
    assert "warning: -o/--output 'm.npz' exists and will be replaced." in err  # said, even with -q
    assert (ws / "m.npz").stat().st_mtime_ns >= first and load(ws / "m.npz").n_components == 3


def test_select_k_plot_without_extension_is_png(ws, capsys):
    pytest.importorskip("matplotlib")
    assert main(["select-k", "c.npz", "--k", "2", "--max-iter", "2", "--plot", "curve", "--json", "k.json"]) == 0
    assert (ws / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "plot written to curve.png" in capsys.readouterr().out


def test_the_check_runs_in_a_fresh_process(ws):
    """``python -m topicvb`` takes the same path (no stubs): one line, exit 1, corpus intact."""
    import subprocess

    before = _snapshot(ws)
    proc = subprocess.run([sys.executable, "-m", "topicvb", "fit", "c.npz", "-k", "2", "-o", "c"],
                          capture_output=True, text=True, timeout=120, cwd=ws)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "topicvb: error: Cannot write -o/--output 'c' (written as 'c.npz'): it is the corpus 'c.npz', which would "
        "be overwritten; choose another output name."]
    assert _snapshot(ws) == before


# ----------------------------------------------------------------------------- plain SciPy matrices
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "dia"])
def test_fit_reads_a_plain_scipy_matrix_with_numbered_terms(ws, corpus, capsys, fmt):
    X = corpus.X.asformat(fmt)
    sp.save_npz(ws / f"{fmt}.npz", X, compressed=fmt != "coo")
    assert main(["fit", f"{fmt}.npz", "-k", "2", "--max-iter", "2", "-o", "m.npz"]) == 0
    record = persistence.read(ws / "m.npz")
    assert list(record.vocabulary) == [str(j) for j in range(N_TERMS)]
    assert record.model.n_features_in_ == N_TERMS
    got = read_npz(ws / f"{fmt}.npz")
    assert got.vocabulary == [str(j) for j in range(N_TERMS)]
    assert (got.X != corpus.X).nnz == 0 and got.name == f"{fmt}.npz"


def test_fit_reads_a_plain_scipy_array_with_vocab(ws, corpus, capsys):
    sp.save_npz(ws / "arr.npz", sp.csr_array(corpus.X.astype(np.int32)))
    assert main(["fit", "arr.npz", "--vocab", "vocab.txt", "-k", "2", "--max-iter", "2", "-o", "m.npz"]) == 0
    assert list(persistence.read(ws / "m.npz").vocabulary) == corpus.vocabulary
    assert main(["topics", "m.npz", "--n", "3"]) == 0
    # vectorize turns the matrix into a topicvb corpus with those terms
    assert main(["vectorize", "arr.npz", "--vocab", "vocab.txt", "-o", "converted.npz"]) == 0
    from topicvb.datasets import Corpus

    converted = Corpus.load(ws / "converted.npz")
    assert converted.vocabulary == corpus.vocabulary and (converted.X != corpus.X).nnz == 0


def test_a_model_on_numbered_terms_reads_more_plain_matrices(ws, corpus, capsys):
    assert main(["fit", "plain.npz", "-k", "2", "--max-iter", "2", "-o", "m.npz"]) == 0
    capsys.readouterr()
    assert main(["infer", "m.npz", "plain.npz", "--show", "1"]) == 0
    assert main(["evaluate", "m.npz", "plain.npz"]) == 0
    # a model with real terms takes a plain matrix of its width (columns in its order)
    assert main(["infer", "model.npz", "plain.npz", "--show", "1"]) == 0
    np.testing.assert_allclose(load(ws / "model.npz").transform(corpus.X)[0],
                               load(ws / "model.npz").transform(read_npz(ws / "plain.npz").X)[0])


def test_vocab_of_the_wrong_length_is_a_clear_error(ws, capsys):
    (ws / "short.txt").write_text("a\nb\nc\n")
    before = _snapshot(ws)
    rc, err = _run(["fit", "plain.npz", "--vocab", "short.txt", "-k", "2", "-o", "m.npz"], capsys)
    assert rc == 1 and len(err.strip().splitlines()) == 1
    assert ("--vocab 'short.txt' has 3 terms, but the matrix in 'plain.npz' has 10 columns; give one term per "
            "line, one line per column.") in err  # (the reader's vocab_path, named as the option)
    assert _snapshot(ws) == before


def test_vocab_as_long_as_the_rows_suggests_a_transposed_matrix(ws):
    (ws / "rows.txt").write_text("".join(f"d{i}\n" for i in range(N_DOCS)))
    with pytest.raises(ValueError, match=r"has 20 terms, but the matrix .* has 10 columns.*saved transposed"):
        read_npz(ws / "plain.npz", ws / "rows.txt")


def test_vocab_with_a_topicvb_corpus_is_refused(ws, capsys):
    rc, err = _run(["fit", "c.npz", "--vocab", "vocab.txt", "-k", "2", "-o", "m.npz"], capsys)
    assert rc == 1 and "'c.npz' is a topicvb corpus with its own vocabulary" in err
    assert not (ws / "m.npz").exists()


@pytest.mark.parametrize("make, match", [
    (lambda p: np.savez(p, a=np.ones(3)),
     r"neither a topicvb corpus .* nor a SciPy sparse matrix \(scipy\.sparse\.save_npz\); its entries are 'a'"),
    (lambda p: sp.save_npz(p, sp.csr_matrix(np.array([[1.0, -2.0]]))), r"not a document-term count matrix.*negative"),
    (lambda p: sp.save_npz(p, sp.csr_matrix(np.array([[1.0, np.nan]]))), r"not a document-term count matrix.*finite"),
    (lambda p: sp.save_npz(p, sp.csr_matrix(np.array([[1 + 1j, 0]]))), r"not a document-term count matrix.*real"),
    (lambda p: np.savez(p, format=np.array("csc"), shape=np.array([2, 3]), data=np.ones(2), indices=np.array([0, 99]),
                        indptr=np.array([0, 1, 2, 2])), r"invalid SciPy sparse matrix"),
    (lambda p: np.savez(p, format=np.array("xyz"), shape=np.array([2, 3])), r"not a readable SciPy sparse matrix"),
], ids=["not-a-matrix", "negative", "nan", "complex", "bad-indices", "unknown-format"])
def test_bad_npz_files_are_refused_with_their_name(ws, capsys, make, match):
    make(ws / "bad.npz")
    with pytest.raises((TypeError, ValueError), match=match):
        read_npz(ws / "bad.npz")
    rc, err = _run(["fit", "bad.npz", "-k", "2", "-o", "m.npz"], capsys)
    assert rc == 1 and len(err.strip().splitlines()) == 1 and "bad.npz" in err


def test_corpus_load_stays_strict(ws):
    from topicvb.datasets import Corpus

    with pytest.raises(ValueError, match=r"not a topicvb corpus \(no 'meta_json' entry\)"):
        Corpus.load(ws / "plain.npz")
