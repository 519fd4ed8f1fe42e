"""Numeric options of `topicvb fit` a careless user can give (issue #19): each is refused with one line
on stderr that names the parameter, a non-zero exit status, and no model file written."""

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb.cli import main

INT1 = "an int in [1, 2147483647]"
PRIOR = "a positive finite number in [1e-12, 1e+12]"
CASES = [  # (arguments, the message: the parameter, its option, what it accepts and what arrived)
    (["-k", "0"], f"n_components (--k) must be {INT1}, got 0."),
    (["-k", "100000000000000000000"], f"n_components (--k) must be {INT1}, got 100000000000000000000."),
    (["-k", "3", "--max-iter", "-1"], f"max_iter (--max-iter) must be {INT1}, got -1."),
    (["-k", "3", "--tol", "nan"], "tol (--tol) must be a finite number >= 0, got nan."),
    (["-k", "3", "--tol", "inf"], "tol (--tol) must be a finite number >= 0, got inf."),
    (["-k", "3", "--doc-topic-prior", "-1"], f"doc_topic_prior (--doc-topic-prior) must be {PRIOR} or a vector of "
                                             "such numbers, got -1.0."),
    (["-k", "3", "--topic-word-prior", "nan"], f"topic_word_prior (--topic-word-prior) must be {PRIOR}, got nan."),
    (["-k", "3", "--topic-word-prior", "1e308"], f"topic_word_prior (--topic-word-prior) must be {PRIOR}, got 1e+308."),
    (["-k", "3", "--model", "online", "--batch-size", "99999999999999"],
     f"batch_size (--batch-size) must be {INT1}, got 99999999999999."),
    (["-k", "3", "--model", "scvb0", "--batch-size", "0"], f"batch_size (--batch-size) must be {INT1}, got 0."),
    (["-k", "3", "--model", "collapsed", "--tol", "-1"], "tol (--tol) must be a finite number >= 0, got -1.0."),
    (["-k", "3", "--seed", "-1"], "--seed must be an int in [0, 4294967295], got -1."),
    (["-k", "3", "--n-jobs", "0"], "--n-jobs must be an int in [1, 2147483647] or an int in [-2147483647, -1], got 0."),
    (["-k", "3", "--n-jobs", "100000000000000000000"],
     "--n-jobs must be an int in [1, 2147483647] or an int in [-2147483647, -1], got 100000000000000000000."),
    (["-k", "3", "--max-features", "0"], f"--max-features must be {INT1}, got 0."),
]


@pytest.fixture
def matrix(tmp_path):
    X = sp.random(60, 40, density=0.2, format="csr", random_state=0)
    X.data = np.ceil(X.data * 5)
    path = tmp_path / "m.npz"
    sp.save_npz(path, X)
    return path


@pytest.mark.parametrize("args, named", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_numeric_option_is_one_line_naming_the_parameter(matrix, capsys, args, named):
    out = matrix.parent / "model.npz"
    status = main(["fit", str(matrix), *args, "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status != 0
    assert len(err) == 1 and err[0].startswith("topicvb: error: ") and named in err[0]
    assert not out.exists()


OTHER_COMMANDS = [  # (argv, message); the inputs do not exist: options are checked before anything is read
    (["topics", "no-model.npz", "--n", "0"], "--n must be an int in [1, 2147483647], got 0."),
    (["infer", "no-model.npz", "no-input", "--top", "0"], "--top must be an int in [1, 2147483647], got 0."),
    (["infer", "no-model.npz", "no-input", "--show", "-1"], "--show must be an int in [0, 2147483647], got -1."),
    (["report", "no-model.npz", "no-corpus.npz", "-o", "r.html", "--docs", "0"],
     "--docs must be an int in [1, 2147483647], got 0."),
    (["evaluate", "no-model.npz", "no-corpus.npz", "--seed", "4294967296"],
     "--seed must be an int in [0, 4294967295], got 4294967296."),
    (["select-k", "no-corpus.npz", "--k", "2", "0"], "n_components (--k) must be an int in [1, 2147483647], got 0."),
    (["select-k", "no-corpus.npz", "--k", "2", "--max-iter", "0"],
     "max_iter (--max-iter) must be an int in [1, 2147483647], got 0."),
    (["vectorize", "no-input", "-o", "c.npz", "--n-jobs", "0"],
     "--n-jobs must be an int in [1, 2147483647] or an int in [-2147483647, -1], got 0."),
    (["demo", "--k", "0"], "n_components (--k) must be an int in [1, 2147483647], got 0."),
    # (a hunt: the CSV reader said "unknown encoding: foo", after the work before it)
    (["vectorize", "no-input", "-o", "c.npz", "--encoding", "foo"], "--encoding must be a known codec name, got 'foo'."),
    # (a codec that is no text encoding failed in the reader, exit 1, with Python's advice to use codecs.open())
    (["vectorize", "no-input", "-o", "c.npz", "--encoding", "bz2"],
     "--encoding must be a text encoding such as utf-8 or latin-1, got 'bz2', which is not one (compressed .gz, .bz2 "
     "and .xz files are recognised by their content)."),
]


@pytest.mark.parametrize("argv, message", OTHER_COMMANDS, ids=[" ".join(a) for a, _ in OTHER_COMMANDS])
def test_numeric_options_of_every_command_are_checked_first(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    status = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2  # a usage error, as argparse's for a value of the wrong type (a hunt: it was 1)
    assert err == [f"topicvb: error: {message}"]
    assert list(tmp_path.iterdir()) == []
