"""Numeric options of `topicvb fit` a careless user can give (issue #19): each is refused with one line
on stderr that names the parameter, a non-zero exit status, and no model file written."""

import numpy as np
import pytest
import scipy.sparse as sp

from topicvb.cli import main

CASES = [  # (arguments, the parameter named in the message)
    (["-k", "0"], "n_components == 0, must be >= 1"),
    (["-k", "100000000000000000000"], "n_components == 100000000000000000000, must be <= 2147483647"),
    (["-k", "3", "--max-iter", "-1"], "max_iter == -1, must be >= 1"),
    (["-k", "3", "--tol", "nan"], "tol must be a finite number >= 0, got nan"),
    (["-k", "3", "--tol", "inf"], "tol must be a finite number >= 0, got inf"),
    (["-k", "3", "--doc-topic-prior", "-1"], "doc_topic_prior must be a positive finite number"),
    (["-k", "3", "--topic-word-prior", "nan"], "topic_word_prior must be a positive finite number"),
    (["-k", "3", "--topic-word-prior", "1e308"], "topic_word_prior must lie in [1e-12, 1e+12]"),
    (["-k", "3", "--model", "online", "--batch-size", "99999999999999"], "batch_size == 99999999999999"),
    (["-k", "3", "--model", "scvb0", "--batch-size", "0"], "batch_size == 0, must be >= 1"),
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
