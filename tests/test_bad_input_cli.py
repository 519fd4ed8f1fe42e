"""Bad input for the command line: every failing command prints one clear line on stderr.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from bad_input_helpers import (
    NUMBA_WORDS,
    PNG,
    PYTESTMARK,
    VOCAB,
    _hang_guard,  # noqa: F401  (autouse fixture)
    bug,
    fitted,
)

from topicvb import persistence
from topicvb.cli import main as cli_main
from topicvb.datasets import make_lda_corpus

pytestmark = PYTESTMARK


# ============================================================================= command line
CLI_CASES = [
    # (id, argv, match on the one stderr line, bug reason or None)
    ("no-command", [], r"required: COMMAND", None),  # fixed: usage errors are one line too
    ("unknown-command", ["bogus"], r"invalid choice: 'bogus'", None),
    ("fit-missing-args", ["fit"], r"the following arguments are required", None),
    ("fit-k-not-int", ["fit", "c.npz", "-k", "x", "-o", "m.npz"], r"invalid int value: 'x'", None),
    ("fit-missing-corpus", ["fit", "nope.npz", "-k", "2", "-o", "m.npz"], r"nope\.npz' does not exist", None),
    ("fit-png", ["fit", "img.png", "-k", "2", "-o", "m.npz"], r"cannot tell the format of 'img\.png'", None),
    ("fit-png-as-uci", ["fit", "img.png", "--format", "uci", "-k", "2", "-o", "m.npz"], r"UCI file 'img\.png', line 1", None),
    ("fit-not-npz", ["fit", "bad.npz", "-k", "2", "-o", "m.npz"], r"bad\.npz", None),
    ("fit-k-0", ["fit", "c.npz", "-k", "0", "-o", "m.npz"], r"n_components \(--k\) must be an int in \[1, 2147483647\], got 0\.", None),
    ("fit-k-negative", ["fit", "c.npz", "-k", "-3", "-o", "m.npz"], r"n_components \(--k\) must be an int in \[1, 2147483647\], got -3\.", None),
    ("fit-tol-negative", ["fit", "c.npz", "-k", "2", "--tol", "-1", "-o", "m.npz"], r"tol \(--tol\) must be a finite number >= 0, got -1\.0\.", None),
    ("fit-alpha-nan", ["fit", "c.npz", "-k", "2", "--doc-topic-prior", "nan", "-o", "m.npz"], r"doc_topic_prior \(--doc-topic-prior\) must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, got nan\.", None),
    ("fit-max-iter-0", ["fit", "c.npz", "-k", "2", "--max-iter", "0", "-o", "m.npz"], r"max_iter \(--max-iter\) must be an int in \[1, 2147483647\], got 0\.", None),
    ("fit-output-under-file", ["fit", "c.npz", "-k", "2", "--max-iter", "2", "-o", "afile/m.npz"], r"afile", None),
    ("vectorize-empty-folder", ["vectorize", "empty_dir", "-o", "c2.npz"], r"found no files matching pattern", None),
    ("vectorize-missing-path", ["vectorize", "nope_dir", "-o", "c2.npz"], r"nope_dir' does not exist", None),
    ("vectorize-output-under-file", ["vectorize", "tdir", "--min-df", "1", "--max-df", "1.0", "-o", "afile/c.npz"], r"Cannot write .*afile", None),
    ("vectorize-pruned-all", ["vectorize", "tdir", "-o", "c3.npz", "--min-df", "5"], r"--min-df 5 asks for more documents than --max-df 0\.5 \(the default\)", None),
    ("vectorize-jsonl-no-column", ["vectorize", "wrong.jsonl", "-o", "c4.npz"], r"--text-column is required", None),
    ("vectorize-jsonl-wrong-keys", ["vectorize", "wrong.jsonl", "--text-column", "text", "-o", "c4.npz"], r"has no field 'text'", None),
    ("vectorize-all-empty-texts", ["vectorize", "emptytexts", "--min-df", "1", "--max-df", "1.0", "-o", "c5.npz"], r"found no terms", None),
    ("topics-missing", ["topics", "nope.npz"], r"Model file 'nope\.npz' does not exist", None),
    ("topics-not-npz", ["topics", "bad.npz"], r"bad\.npz' is not a topicvb model file", None),  # fixed
    ("topics-corpus-file", ["topics", "c.npz"], r"'c\.npz' is not a topicvb model file", None),
    ("topics-n-0", ["topics", "model.npz", "--n", "0"], r"--n must be an int in \[1, 2147483647\], got 0\.", None),
]


@pytest.fixture
def cli_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "img.png").write_bytes(PNG)
    (tmp_path / "bad.npz").write_bytes(b"hello, not a zip")
    (tmp_path / "afile").write_text("x")
    (tmp_path / "empty_dir").mkdir()
    (tmp_path / "tdir").mkdir()
    (tmp_path / "tdir" / "a.txt").write_text("hello world topic model")
    (tmp_path / "tdir" / "b.txt").write_text("world peace model")
    (tmp_path / "emptytexts").mkdir()
    (tmp_path / "emptytexts" / "a.txt").write_text("")
    (tmp_path / "wrong.jsonl").write_text('{"a": 1}\n')
    make_lda_corpus(20, 10, 2, random_state=0).corpus.save(tmp_path / "c.npz")
    persistence.save(fitted("BatchLDA"), tmp_path / "model.npz", vocabulary=VOCAB)
    return tmp_path


@pytest.mark.parametrize("argv,match", [
    pytest.param(argv, match, id=i, marks=[bug(r)] if r else []) for i, argv, match, r in CLI_CASES])
def test_cli_errors_are_one_line(cli_dir, capsys, argv, match):
    try:
        rc = cli_main(list(argv))
    except SystemExit as exc:
        rc = exc.code
    err = capsys.readouterr().err
    assert rc not in (0, None), "a failing command exited with status 0"
    assert "Traceback" not in err
    assert not any(w in err for w in NUMBA_WORDS)
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr, got {len(lines)}: {err!r}"
    assert lines[0].startswith("topicvb") and "error: " in lines[0]
    assert re.search(match, lines[0]), lines[0]


@pytest.mark.parametrize("data", [
    pytest.param(PNG, id="binary-mtx"),  # fixed with read_matrix_market
])
def test_cli_vectorize_binary_matrix_market_in_subprocess(tmp_path, data):
    (tmp_path / "garbage.mtx").write_bytes(data)
    proc = subprocess.run([sys.executable, "-m", "topicvb", "vectorize", "garbage.mtx", "-o", "c.npz"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1, f"rc={proc.returncode}: {proc.stderr[-300:]}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("topicvb: error:") and "garbage.mtx" in lines[0], proc.stderr


def test_cli_works_with_more_topics_than_documents(cli_dir, capsys):
    assert cli_main(["fit", "c.npz", "-k", "30", "--max-iter", "2", "-o", "m30.npz"]) == 0
    assert cli_main(["topics", "m30.npz", "--n", "3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"(?m)^\s*29\s", out), out
