"""Bad input for topicvb.evaluation: held-out perplexity, per-word bound, coherence, diversity, select_n_topics.

Part of the bad-input suite; the shared helpers and the case conventions are in ``tests/bad_input_helpers.py``.
"""

from __future__ import annotations

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
    fitted,
    run_case,
    train_matrix,
)
from sklearn.exceptions import NotFittedError

from topicvb.evaluation import coherence, heldout_perplexity, per_word_bound, select_n_topics, topic_diversity
from topicvb.models import BatchLDA

pytestmark = PYTESTMARK


# ============================================================================= evaluation
TOPICS = [["t0", "t1"], ["t2", "t3"]]
REF = (train_matrix(), VOCAB)

EVAL_BAD_X = [
    ("None", None, TypeError, r"needs {X}, a document-term count matrix; got None", None),
    ("str", "abc", TypeError, r"expects a document-term count matrix {X} \(.*\), got str\.", None),
    ("1d", np.ones(N_TERMS), ValueError, r"{X} is not a valid count matrix: Expected 2D array", None),
    ("wider", np.ones((2, N_TERMS + 1)), ValueError, r"{X} has 7 terms \(columns\), but this BatchLDA was fitted on 6", None),
    ("nan", np.full((2, N_TERMS), np.nan), ValueError, r"{X} is not a valid count matrix: Input {X} contains NaN", None),
    ("negative", -np.ones((2, N_TERMS)), ValueError, r"expects non-negative term counts; {X} has 12 negative", None),
    ("zero-docs", np.zeros((0, N_TERMS)), ValueError, r"{X} is not a valid count matrix: Found array with 0 sample", None),
]

EVAL_CASES = [
    *[C(f"heldout_perplexity-{i}", (lambda x: lambda tmp: heldout_perplexity(_m(), x))(x), Raises(e, m.format(X="X_test")), r)
      for i, x, e, m, r in EVAL_BAD_X],
    *[C(f"per_word_bound-{i}", (lambda x: lambda tmp: per_word_bound(_m(), x))(x), Raises(e, m.format(X="X")), r)
      for i, x, e, m, r in EVAL_BAD_X],
    C("heldout_perplexity-all-empty", lambda tmp: heldout_perplexity(_m(), np.zeros((3, N_TERMS))), Raises(ValueError, r"found no held-out token")),
    C("heldout_perplexity-fractional", lambda tmp: heldout_perplexity(_m(), np.full((2, N_TERMS), 0.3)),
      Raises(ValueError, r"non-integer counts. Split the documents yourself")),
    C("heldout_perplexity-fractional-with-X_heldout", lambda tmp: heldout_perplexity(_m(), np.full((2, N_TERMS), 0.3), X_heldout=np.full((2, N_TERMS), 0.7)),
      Works(lambda v: np.isfinite(v) and v > 0)),
    C("heldout_perplexity-huge", lambda tmp: heldout_perplexity(_m(), np.full((2, N_TERMS), 1e9)), Works(lambda v: np.isfinite(v) and v > 0)),
    C("heldout_perplexity-unfitted", lambda tmp: heldout_perplexity(BatchLDA(2), train_matrix()), Raises(NotFittedError, r"heldout_perplexity needs a fitted model")),
    C("heldout_perplexity-model-str", lambda tmp: heldout_perplexity("model", train_matrix()), Raises(TypeError, r"expects a topic model .*got str")),
    C("heldout_perplexity-model-None", lambda tmp: heldout_perplexity(None, train_matrix()), Raises(TypeError, r"got NoneType")),
    C("heldout_perplexity-fraction-1.5", lambda tmp: heldout_perplexity(_m(), train_matrix(), observed_fraction=1.5), Raises(ValueError, r"observed_fraction == 1.5")),
    C("heldout_perplexity-fraction-0", lambda tmp: heldout_perplexity(_m(), train_matrix(), observed_fraction=0), Raises(ValueError, r"observed_fraction == 0")),
    C("heldout_perplexity-fraction-nan", lambda tmp: heldout_perplexity(_m(), train_matrix(), observed_fraction=np.nan),
      Raises(ValueError, r"observed_fraction.*nan")),
    C("heldout_perplexity-X_heldout-rows", lambda tmp: heldout_perplexity(_m(), train_matrix(), X_heldout=np.ones((3, N_TERMS))),
      Raises(ValueError, r"X_test has 12 documents but X_heldout has 3")),
    C("per_word_bound-fractional", lambda tmp: per_word_bound(_m(), np.full((2, N_TERMS), 0.3)), Works(np.isfinite)),
    C("per_word_bound-all-empty", lambda tmp: per_word_bound(_m(), np.zeros((2, N_TERMS))), Raises(ValueError, r"at least one token in X")),
    C("per_word_bound-PLSA", lambda tmp: per_word_bound(fitted("PLSA"), train_matrix()),
      Raises(TypeError, r"per_word_bound needs a variational LDA model \(BatchLDA or OnlineLDA\), got PLSA")),
    C("per_word_bound-model-None", lambda tmp: per_word_bound(None, train_matrix()), Raises(TypeError, r"got NoneType")),
    # coherence
    C("coherence-ok", lambda tmp: coherence(TOPICS, REF), Works(lambda s: np.all(np.isfinite(s.per_topic)))),
    C("coherence-topics-None", lambda tmp: coherence(None, REF), Raises(TypeError, r"topics must be a list of lists of top words, got NoneType")),
    C("coherence-topics-str", lambda tmp: coherence("abc", REF), Raises(TypeError, r"got str")),
    C("coherence-topics-empty", lambda tmp: coherence([], REF), Raises(ValueError, r"topics is empty")),
    C("coherence-topic-ints", lambda tmp: coherence([[1, 2]], REF), Raises(TypeError, r"top words must be str; topic 0 has 1 of type int")),
    C("coherence-empty-topic", lambda tmp: coherence([[]], REF), Works(lambda s: np.all(np.isfinite(s.per_topic)))),
    C("coherence-unknown-words", lambda tmp: coherence([["zz", "yy"]], REF), Works(lambda s: np.all(np.isfinite(s.per_topic)))),
    C("coherence-ref-None", lambda tmp: coherence(TOPICS, None), Raises(TypeError, r"coherence needs a reference corpus; got None")),
    C("coherence-ref-str", lambda tmp: coherence(TOPICS, "abc"), Raises(TypeError, r"reference must be a ReferenceCorpus.*got str")),
    # empty documents are no units (as for the sliding windows): a reference of empty documents only has none
    C("coherence-ref-all-zero", lambda tmp: coherence(TOPICS, (np.zeros((3, N_TERMS)), VOCAB)), Raises(ValueError, r"reference corpus has no documents \(or only empty ones\)")),
    C("coherence-ref-nan", lambda tmp: coherence(TOPICS, (np.full((3, N_TERMS), np.nan), VOCAB)), Raises(ValueError, r"X has NaN or infinite counts")),
    C("coherence-ref-negative", lambda tmp: coherence(TOPICS, (-np.ones((3, N_TERMS)), VOCAB)), Raises(ValueError, r"negative")),
    C("coherence-ref-3d", lambda tmp: coherence(TOPICS, (np.ones((2, 2, 2)), VOCAB)), Raises(ValueError, r"2-D")),
    C("coherence-ref-vocab-size", lambda tmp: coherence(TOPICS, (train_matrix(), VOCAB[:3])), Raises(ValueError, r"vocabulary has 3 terms but X has 6 columns")),
    C("coherence-ref-no-docs", lambda tmp: coherence(TOPICS, []), Raises(ValueError, r"reference corpus has no documents")),
    C("coherence-ref-untokenised", lambda tmp: coherence(TOPICS, ["a b"]), Raises(TypeError, r"document 0 is a str. Tokenise it first")),
    C("coherence-measure", lambda tmp: coherence(TOPICS, REF, measure="xyz"), Raises(ValueError, r"measure must be one of .*got 'xyz'")),
    C("coherence-window-0", lambda tmp: coherence(TOPICS, [["t0", "t1"]], window_size=0), Raises(ValueError, r"window_size must be a positive int or None, got 0")),
    C("coherence-epsilon-nan", lambda tmp: coherence(TOPICS, REF, epsilon=np.nan), Raises(ValueError, r"epsilon must be a positive finite number, got nan")),
    C("coherence-c_v-needs-texts", lambda tmp: coherence(TOPICS, REF, measure="c_v"), Raises(ValueError, r"needs tokenised documents")),
    C("topic_diversity-empty", lambda tmp: topic_diversity([]), Raises(ValueError, r"topics is empty")),
    C("topic_diversity-None", lambda tmp: topic_diversity(None), Raises(TypeError, r"got NoneType")),
    C("topic_diversity-n-0", lambda tmp: topic_diversity(TOPICS, n=0), Raises(ValueError, r"n must be a positive int or None, got 0")),
    # select_n_topics
    C("select-ok-K>docs", lambda tmp: select_n_topics(train_matrix()[:3], [5], max_iter=3), Works(lambda r: r.best_k == 5)),
    C("select-all-empty", lambda tmp: select_n_topics(np.zeros((5, N_TERMS)), [2], max_iter=3), Works(lambda r: r.best_k == 2)),
    C("select-candidates-empty", lambda tmp: select_n_topics(train_matrix(), []), Raises(ValueError, r"candidates is empty")),
    C("select-candidates-0", lambda tmp: select_n_topics(train_matrix(), [0, 2]), Raises(ValueError, r"candidates must be positive ints, got 0")),
    C("select-candidates-neg", lambda tmp: select_n_topics(train_matrix(), [-1]), Raises(ValueError, r"got -1")),
    C("select-candidates-float", lambda tmp: select_n_topics(train_matrix(), [2.5]), Raises((TypeError, ValueError), r"candidates must be positive ints, got 2.5")),
    C("select-candidates-None", lambda tmp: select_n_topics(train_matrix(), None), Raises(TypeError, r"candidates must be a sequence of positive ints, got NoneType")),
    C("select-X-nan", lambda tmp: select_n_topics(np.full((4, N_TERMS), np.nan), [2]), Raises(ValueError, r"select_n_topics: X is not a valid count matrix: Input X contains NaN")),
    C("select-X-negative", lambda tmp: select_n_topics(-train_matrix(), [2]), Raises(ValueError, r"non-negative term counts; X has \d+ negative")),
    C("select-X-str", lambda tmp: select_n_topics("abc", [2]), Raises(TypeError, r"select_n_topics expects a document-term count matrix X \(.*\), got str\.")),
    C("select-model", lambda tmp: select_n_topics(train_matrix(), [2], model="xyz"), Raises(ValueError, r"model must be one of .*got 'xyz'")),
    C("select-criterion", lambda tmp: select_n_topics(train_matrix(), [2], criterion="xyz"), Raises(ValueError, r"criterion must be one of")),
    C("select-test_size", lambda tmp: select_n_topics(train_matrix(), [2], criterion="heldout", test_size=2.0), Raises(ValueError, r"test_size must be in \(0, 1\), got 2.0")),
    C("select-X_test-width", lambda tmp: select_n_topics(train_matrix(), [2], criterion="heldout", X_test=np.ones((2, 9)), max_iter=3),
      Raises(ValueError, r"X_test has 9 terms \(columns\), but X has 6")),
    C("select-coherence-no-ref", lambda tmp: select_n_topics(train_matrix(), [2], criterion="coherence", max_iter=3), Raises(ValueError, r"needs a reference corpus")),
    C("select-bad-model-param", lambda tmp: select_n_topics(train_matrix(), [2], bogus=1), Raises(TypeError, r"bogus")),
]


@pytest.mark.parametrize("fn,expect", EVAL_CASES)
def test_evaluation_bad_input(fn, expect, tmp_path):
    run_case(fn, expect, tmp_path)
