"""Bad input for topicvb.inspection: top_words and summary.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from bad_input_helpers import (
    N_TERMS,
    PYTESTMARK,
    VOCAB,
    C,
    Raises,
    Works,
    _hang_guard,  # noqa: F401  (autouse fixture)
    _m,
    run_case,
    train_matrix,
)
from sklearn.exceptions import NotFittedError

from topicvb.inspection import summary, top_words
from topicvb.models import BatchLDA

pytestmark = PYTESTMARK


# ============================================================================= inspection
INSPECTION_CASES = [
    # inspection.top_words
    C("top_words-unfitted", lambda tmp: top_words(BatchLDA(2), VOCAB, 3), Raises(NotFittedError, r"top_words needs a fitted model")),
    C("top_words-model-None", lambda tmp: top_words(None, VOCAB, 3), Raises(TypeError, r"top_words expects a fitted topic model .*got NoneType")),
    C("top_words-model-str", lambda tmp: top_words("m", VOCAB, 3), Raises(TypeError, r"got str")),
    C("top_words-vocab-size", lambda tmp: top_words(_m(), VOCAB[:2], 3), Raises(ValueError, r"vocabulary has 2 terms, but the model has 6")),
    C("top_words-vocab-str", lambda tmp: top_words(_m(), "abcdef", 3), Raises(TypeError, r"vocabulary must be a sequence of terms, got a single str")),
    C("top_words-n-0", lambda tmp: top_words(_m(), VOCAB, 0), Raises(ValueError, r"n must be a positive int, got 0")),
    C("top_words-n-float", lambda tmp: top_words(_m(), VOCAB, 2.5), Raises(TypeError, r"n must be a positive int, got float 2.5")),
    C("top_words-n-str", lambda tmp: top_words(_m(), VOCAB, "3"), Raises(TypeError, r"got str '3'")),
    C("top_words-n-huge", lambda tmp: top_words(_m(), VOCAB, 10**9), Works(lambda r: all(len(t) == N_TERMS for t in r))),
    C("top_words-relevance-2", lambda tmp: top_words(_m(), VOCAB, 3, relevance=2.0), Raises(ValueError, r"relevance must be a number in \[0, 1\]")),
    C("top_words-relevance-nan", lambda tmp: top_words(_m(), VOCAB, 3, relevance=np.nan), Raises(ValueError, r"got nan")),
    C("top_words-relevance-no-tf", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5), Raises(ValueError, r"needs the corpus term frequencies")),
    C("top_words-tf-negative", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=-np.ones(N_TERMS)), Raises(ValueError, r"term_frequency must be non-negative and finite")),
    C("top_words-tf-nan", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=np.full(N_TERMS, np.nan)), Raises(ValueError, r"non-negative and finite")),
    C("top_words-tf-length", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=np.ones(3)), Raises(ValueError, r"one entry per term \(6\), got shape \(3,\)")),
    C("top_words-tf-zeros", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, term_frequency=np.zeros(N_TERMS)), Raises(ValueError, r"term frequencies sum to 0")),
    C("top_words-X-all-empty", lambda tmp: top_words(_m(), VOCAB, 3, relevance=0.5, X=np.zeros((2, N_TERMS))), Raises(ValueError, r"term frequencies sum to 0")),
    # inspection.summary
    C("summary-ok", lambda tmp: summary(_m(), train_matrix(), VOCAB, n=3), Works(lambda t: t.n_topics == 2)),
    C("summary-no-X", lambda tmp: summary(_m(), None, VOCAB, n=3), Works(lambda t: t.n_topics == 2)),
    C("summary-unfitted", lambda tmp: summary(BatchLDA(2), train_matrix(), VOCAB), Raises(NotFittedError, r"summary needs a fitted model")),
    C("summary-model-None", lambda tmp: summary(None, train_matrix(), VOCAB), Raises(TypeError, r"summary expects a fitted topic model")),
    C("summary-X-wider", lambda tmp: summary(_m(), np.ones((2, 7)), VOCAB), Raises(ValueError, r"X has 7 terms \(columns\), but this BatchLDA was fitted on 6")),
    C("summary-X-nan", lambda tmp: summary(_m(), np.full((2, N_TERMS), np.nan), VOCAB), Raises(ValueError, r"X is not a valid count matrix: Input X contains NaN")),
    C("summary-X-all-empty", lambda tmp: summary(_m(), np.zeros((2, N_TERMS)), VOCAB), Raises(ValueError, r"at least one token in X")),
    C("summary-X-str", lambda tmp: summary(_m(), "abc", VOCAB), Raises(TypeError, r"summary expects a document-term count matrix X \(.*\), got str\.")),
    C("summary-vocab-size", lambda tmp: summary(_m(), train_matrix(), VOCAB[:2]), Raises(ValueError, r"vocabulary has 2 terms")),
    C("summary-n-0", lambda tmp: summary(_m(), train_matrix(), VOCAB, n=0), Raises(ValueError, r"n must be a positive int, got 0")),
    C("summary-coherence-str", lambda tmp: summary(_m(), train_matrix(), VOCAB, coherence="abc"), Raises(TypeError, r"reference must be a ReferenceCorpus")),
    C("summary-to-stringio", lambda tmp: summary(_m(), train_matrix(), VOCAB, n=3).to_csv(io.StringIO()), Works()),
]


@pytest.mark.parametrize("fn,expect", INSPECTION_CASES)
def test_inspection_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)
