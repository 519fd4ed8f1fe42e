"""Bad input for topicvb.persistence: save and load of model files.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from bad_input_helpers import (
    PNG,
    PYTESTMARK,
    V3,
    VOCAB,
    X3,
    C,
    Raises,
    Works,
    _afile,
    _hang_guard,  # noqa: F401  (autouse fixture)
    _m,
    _write,
    run_case,
    train_matrix,
)
from sklearn.exceptions import NotFittedError

from topicvb import persistence
from topicvb.datasets import Corpus
from topicvb.models import BatchLDA

pytestmark = PYTESTMARK


# ============================================================================= persistence
_LOAD_MSG_BUG = ("persistence.load of a file that is not a .npz ({}) raises numpy's 'This file contains pickled "
                 "(object) data. If you trust the file you can load it unsafely ...' (misleading: nothing is "
                 "pickled, and the path is not named); expected ValueError \"'<path>' is not a readable topicvb "
                 "model file ...\"")


def _model_file(tmp, meta=None, **arrays):
    base = {"format": "topicvb-model", "version": 1, "class": "BatchLDA", "params": {"n_components": 2},
            "scalars": {"n_features_in_": 3}}
    if meta is not None:
        base = meta if not isinstance(meta, dict) or "format" not in meta else {**base, **meta}
    arrays.setdefault("attr__components_", np.ones((2, 3)))
    np.savez(tmp / "model.npz", meta=np.asarray(base if isinstance(base, str) else json.dumps(base)), **arrays)
    return tmp / "model.npz"


PERSISTENCE_CASES = [
    C("save-ok-roundtrip", lambda tmp: persistence.load(persistence.save(_m(), tmp / "m.npz", vocabulary=VOCAB)),
      Works(lambda m: np.allclose(m.transform(train_matrix()), _m().transform(train_matrix())))),
    C("save-unfitted", lambda tmp: persistence.save(BatchLDA(2), tmp / "m.npz"), Raises(NotFittedError, r"not fitted")),
    C("save-None", lambda tmp: persistence.save(None, tmp / "m.npz"), Raises(TypeError, r"save expects a topicvb model .*got NoneType")),
    C("save-sklearn-model", lambda tmp: persistence.save(__import__("sklearn.decomposition").decomposition.PCA(), tmp / "m.npz"),
      Raises(TypeError, r"save expects a topicvb model .*got PCA")),
    C("save-vocab-size", lambda tmp: persistence.save(_m(), tmp / "m.npz", vocabulary=["a"]), Raises(ValueError, r"vocabulary has 1 terms, but the model was fitted on 6")),
    C("save-path-None", lambda tmp: persistence.save(_m(), None), Raises(TypeError, r"path.*NoneType")),  # fixed
    C("save-under-a-file", lambda tmp: persistence.save(_m(), _afile(tmp) / "m.npz"), Raises(OSError, r"(?i)(not a (folder|directory)|cannot write).*afile")),  # fixed
    C("load-missing", lambda tmp: persistence.load(tmp / "none.npz"), Raises(FileNotFoundError, r"Model file .*none\.npz' does not exist")),
    C("load-None", lambda tmp: persistence.load(None), Raises(TypeError, r"path.*NoneType")),  # fixed
    C("load-folder", lambda tmp: persistence.load(tmp), Raises(ValueError, r"is not a readable topicvb model file")),
    C("load-truncated", lambda tmp: persistence.load(_write(tmp, "t.npz", persistence.save(_m(), tmp / "m.npz").read_bytes()[:300])),
      Raises(ValueError, r"t\.npz' is not a readable topicvb model file \(truncated or corrupt")),
    C("load-empty-file", lambda tmp: persistence.load(_write(tmp, "e.npz", b"")), Raises(ValueError, r"e\.npz' is not a readable topicvb model file")),
    C("load-png", lambda tmp: persistence.load(_write(tmp, "p.npz", PNG)), Raises(ValueError, r"p\.npz' is not a .*topicvb model file")),  # fixed
    C("load-json", lambda tmp: persistence.load(_write(tmp, "m.json", '{"a": 1}')), Raises(ValueError, r"m\.json' is not a .*topicvb model file")),  # fixed
    C("load-corpus-file", lambda tmp: (Corpus(X3, V3).save(tmp / "c.npz"), persistence.load(tmp / "c.npz"))[1],
      Raises(ValueError, r"c\.npz' is not a topicvb model file \(no metadata record\)")),
    C("load-meta-not-json", lambda tmp: persistence.load(_model_file(tmp, meta="not json")), Raises(ValueError, r"truncated or corrupt")),
    C("load-meta-list", lambda tmp: persistence.load(_model_file(tmp, meta="[1, 2]")), Raises(ValueError, r"is not a topicvb model file")),
    C("load-wrong-format", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "other"})), Raises(ValueError, r"is not a topicvb model file")),
    C("load-newer-version", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "version": 99})),
      Raises(ValueError, r"newer topicvb \(model format 99\)")),
    C("load-version-str", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "version": "1"})),
      Raises(ValueError, r"(?i)version.*'1'")),
    C("load-unknown-class", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "class": "Evil"})),
      Raises(ValueError, r"unknown model class 'Evil'")),
    C("load-params-list", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "params": [1]})),
      Raises(ValueError, r"model\.npz")),
    C("load-bad-param-value", lambda tmp: persistence.load(_model_file(tmp, meta={"format": "topicvb-model", "params": {"n_components": "two"}})),
      Raises(ValueError, r"inconsistent")),
    C("load-components-wrong-shape", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.ones((3, 3)))),
      Raises(ValueError, r"components_ does not match n_components x n_features_in_")),
    C("load-components-nan", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.array([[1, np.nan, 1], [1, 1, 1]]))),
      Raises(ValueError, r"inconsistent shapes or values")),
    C("load-components-str", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.array([["a", "b", "c"]] * 2))),
      Raises(ValueError, r"model\.npz.*components_")),
    C("load-components-negative", lambda tmp: persistence.load(_model_file(tmp, attr__components_=np.array([[1.0, -1.0, 1.0]] * 2),
                                                                             attr__doc_topic_prior_=np.full(2, 0.5))),
      Raises(ValueError, r"model\.npz.*components_")),
    C("load-missing-fitted-attributes", lambda tmp: persistence.load(_model_file(tmp)).transform(np.ones((1, 3))),
      Raises(ValueError, r"model\.npz.*doc_topic_prior_")),
    C("load-doc_topic_prior-shape", lambda tmp: persistence.load(_model_file(tmp, attr__doc_topic_prior_=np.ones(5))),
      Raises(ValueError, r"doc_topic_prior_ is \(5,\)")),
    C("load-vocab-size", lambda tmp: persistence.load(_model_file(tmp, vocabulary=np.array(["a"]))),
      Raises(ValueError, r"1 vocabulary terms for 3 features")),
]


@pytest.mark.parametrize("fn,expect", PERSISTENCE_CASES)
def test_persistence_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)
