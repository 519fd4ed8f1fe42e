"""Files written atomically follow the umask (mode 0o666 & ~umask), not mkstemp's 0o600.

Every writer renames a temporary file into place; the temporary file is made by
``topicvb.datasets._files.create_temp_file`` with mode 0o666, which the kernel reduces by the umask,
so a saved model, corpus, checkpoint, report or CLI output gets the mode ``open(path, "w")`` would
give it. The umask is process-wide: each test sets it in try/finally.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import threading

import numpy as np
import pytest

from topicvb import persistence
from topicvb.datasets import make_lda_corpus, write_ldac, write_uci
from topicvb.datasets._files import atomic_paths, create_temp_file
from topicvb.models import BatchLDA

pytestmark = [
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits"),
]

UMASKS = [0o022, 0o077, 0o002, 0o027]


@contextlib.contextmanager
def umask(value):
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture(scope="module")
def corpus():
    return make_lda_corpus(20, 10, 2, random_state=0).corpus


@pytest.fixture(scope="module")
def model(corpus):
    return BatchLDA(2, max_iter=2, random_state=0).fit(corpus.X)


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_create_temp_file_follows_the_umask(tmp_path, mask):
    with umask(mask):
        fd, tmp = create_temp_file(tmp_path / "out.npz")
    os.close(fd)
    assert tmp.parent == tmp_path and tmp.name.startswith(".out.npz.") and tmp.name.endswith(".tmp")
    assert mode(tmp) == 0o666 & ~mask


def test_create_temp_file_never_reuses_a_name(tmp_path):
    names = set()
    for _ in range(200):
        fd, tmp = create_temp_file(tmp_path / "x")
        os.close(fd)
        names.add(tmp)
    assert len(names) == 200


def test_create_temp_file_needs_the_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        create_temp_file(tmp_path / "missing" / "x")


@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_corpus_save_follows_the_umask(tmp_path, corpus, mask):
    with umask(mask):
        corpus.save(tmp_path / "c.npz")
    assert mode(tmp_path / "c.npz") == 0o666 & ~mask


@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_model_save_follows_the_umask(tmp_path, model, corpus, mask):
    with umask(mask):
        path = persistence.save(model, tmp_path / "m.npz", vocabulary=corpus.vocabulary)
    assert mode(path) == 0o666 & ~mask
    assert persistence.load(path).n_components == 2


def test_saving_over_a_private_file_gives_the_umask_mode(tmp_path, model):
    """The new file replaces the old one, so it gets a new file's mode (as any atomic save does)."""
    target = tmp_path / "m.npz"
    target.write_bytes(b"old")
    target.chmod(0o600)
    with umask(0o022):
        persistence.save(model, target)
    assert mode(target) == 0o644


@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_bag_of_words_writers_follow_the_umask(tmp_path, corpus, mask):
    with umask(mask):
        write_uci(corpus, docword_path=tmp_path / "docword.txt", vocab_path=tmp_path / "vocab.txt")
        write_ldac(corpus, path=tmp_path / "c.ldac", vocab_path=tmp_path / "v.txt")
    for name in ("docword.txt", "vocab.txt", "c.ldac", "v.txt"):
        assert mode(tmp_path / name) == 0o666 & ~mask, name


@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_checkpoints_follow_the_umask(tmp_path, corpus, mask):
    path = tmp_path / "ck.npz"
    with umask(mask):
        BatchLDA(2, max_iter=2, random_state=0, checkpoint_path=path).fit(corpus.X)
    assert mode(path) == 0o666 & ~mask


@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_report_follows_the_umask(tmp_path, model, corpus, mask):
    from topicvb.report import report

    with umask(mask):
        report(model, corpus.X, corpus.vocabulary, n_words=5, path=tmp_path / "r.html")
    assert mode(tmp_path / "r.html") == 0o666 & ~mask


@pytest.mark.parametrize("mask", [0o022, 0o077], ids=oct)
def test_cli_outputs_follow_the_umask(tmp_path, corpus, monkeypatch, capsys, mask):
    from topicvb.cli import main

    monkeypatch.chdir(tmp_path)
    corpus.save(tmp_path / "c.npz")
    with umask(mask):
        assert main(["vectorize", "c.npz", "-o", "c2.npz"]) == 0
        assert main(["fit", "c.npz", "-k", "2", "--max-iter", "2", "-o", "m.npz"]) == 0
        assert main(["topics", "m.npz", "--html", "t.html", "--csv", "t.csv"]) == 0
        assert main(["infer", "m.npz", "c.npz", "-o", "doc_topics.csv", "--show", "0"]) == 0
        assert main(["report", "m.npz", "c.npz", "-o", "r.html", "--n", "5"]) == 0
        assert main(["select-k", "c.npz", "--k", "2", "--max-iter", "2", "--json", "k.json"]) == 0
    for name in ("c2.npz", "m.npz", "t.html", "t.csv", "doc_topics.csv", "r.html", "k.json"):
        assert mode(tmp_path / name) == 0o666 & ~mask, name
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_atomic_paths_in_threads_get_the_umask_mode(tmp_path):
    """No process-wide umask round trip: concurrent writers all get 0o666 & ~umask."""
    errors = []

    def write(i):
        try:
            with atomic_paths([tmp_path / f"f{i}.txt"]) as (tmp,):
                tmp.write_text(str(i))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    with umask(0o027):
        threads = [threading.Thread(target=write, args=(i,)) for i in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    assert {mode(tmp_path / f"f{i}.txt") for i in range(32)} == {0o640}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"f{i}.txt" for i in range(32))


def test_a_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError, match="boom"), atomic_paths([tmp_path / "a.txt"]) as (tmp,):
        tmp.write_text("partial")
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_the_umask_is_read_in_a_fresh_process(tmp_path):
    """A subprocess started with umask 0o077 writes private files; one with 0o022 readable ones."""
    import subprocess

    code = ("import os, sys; os.umask(int(sys.argv[2], 8)); "
            "from topicvb.datasets import make_lda_corpus; "
            "make_lda_corpus(5, 4, 2, random_state=0).corpus.save(sys.argv[1])")
    for mask in ("077", "022"):
        out = tmp_path / f"c{mask}.npz"
        subprocess.run([sys.executable, "-c", code, str(out), mask], check=True, timeout=120,
                       cwd=tmp_path)  # (cwd: python -c imports the installed topicvb, not ./topicvb)
        assert mode(out) == 0o666 & ~int(mask, 8)
    assert np.load(tmp_path / "c022.npz")["X_shape"].tolist() == [5, 4]
