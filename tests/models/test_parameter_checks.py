"""Parameters a careless user can hand an estimator (issue #19): non-finite reals, booleans and huge
integers where counts belong, unhashable choices, strings where a flag belongs. Each is refused at
fit with a message naming the parameter, and the fitted model is left as it was."""

import pickle

import numpy as np
import pytest

from topicvb import make_lda_corpus
from topicvb.models import PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA

ALL = [PLSA, BatchLDA, CollapsedLDA, OnlineLDA, StochasticCollapsedLDA]
NAN, INF = float("nan"), float("inf")

CASES = [  # (classes, parameter, value, exception, message)
    (ALL, "tol", NAN, ValueError, r"tol must be a finite number >= 0, got nan\."),
    (ALL, "max_iter", 10**30, ValueError, r"max_iter must be an int in \[1, 2147483647\], got 10{30}\."),
    (ALL, "max_iter", True, TypeError, r"max_iter must be an int in \[1, 2147483647\], got True \(a bool\)\."),
    (ALL, "n_components", np.True_, TypeError,
     r"n_components must be an int in \[1, 2147483647\], got True \(a bool\)\."),
    (ALL, "verbose", 2**40, ValueError, r"verbose must be an int in \[0, 2147483647\], got 1099511627776\."),
    (ALL, "n_jobs", 10**30, ValueError,
     r"n_jobs must be an int in \[1, 2147483647\], an int in \[-2147483647, -1\] or None, got 10{30}\."),
    (ALL, "random_state", "0", TypeError,
     r"random_state must be an int in \[0, 4294967295\], a numpy.random.RandomState or None, got '0'\."),
    ([OnlineLDA, StochasticCollapsedLDA], "learning_decay", NAN, ValueError,
     r"learning_decay must be a finite number in \(0.5, 1\], got nan\."),
    ([OnlineLDA, StochasticCollapsedLDA], "learning_offset", INF, ValueError,
     r"learning_offset must be a finite number >= 0, got inf\."),
    ([OnlineLDA, StochasticCollapsedLDA], "shuffle", "x", TypeError, r"shuffle must be True or False, got 'x'\."),
    ([OnlineLDA, StochasticCollapsedLDA], "batch_size", 10**12, ValueError,
     r"batch_size must be an int in \[1, 2147483647\], got 1000000000000\."),
    ([OnlineLDA], "total_samples", INF, ValueError,
     r"total_samples must be a finite number in \[1, 1e\+12\] or None, got inf\."),
    ([StochasticCollapsedLDA], "total_tokens", NAN, ValueError,
     r"total_tokens must be a finite number in \(0, 1e\+14\] or None, got nan\."),
    ([BatchLDA, OnlineLDA, CollapsedLDA, StochasticCollapsedLDA], "mean_change_tol", NAN, ValueError,
     r"mean_change_tol must be a finite number >= 0, got nan"),
    ([BatchLDA, OnlineLDA, PLSA], "init", ["random"], TypeError,
     r"init must be one of \{'random', 'seeded'\}, got \['random'\] \(a list\)\."),
    ([BatchLDA, OnlineLDA], "learn_priors", 1, TypeError,
     r"learn_priors must be one of \{False, True, 'doc_topic', 'topic_word'\} or None, got 1 \(an int\)\."),
    ([BatchLDA, OnlineLDA], "e_step_acceleration", ["squarem"], TypeError,
     r"e_step_acceleration must be 'squarem' or None, got \['squarem'\] \(a list\)\."),
    ([CollapsedLDA], "variant", "cvb1", ValueError, r"variant must be one of \{'cvb', 'cvb0'\}, got 'cvb1'"),
    ([PLSA], "beta", NAN, ValueError, r"beta must be a finite number in \(0, 1\], got nan\."),
    ([PLSA], "early_stopping", "yes", TypeError, r"early_stopping must be True or False, got 'yes'\."),
    ([PLSA, BatchLDA, OnlineLDA], "checkpoint_path", "", ValueError,
     r"checkpoint_path must be a non-empty path \(str or os.PathLike\) or None, got ''\."),
    ([BatchLDA, OnlineLDA], "restart_every", 2**31, ValueError,
     r"restart_every must be an int in \[1, 2147483647\], got 2147483648\."),
    (ALL, "doc_topic_prior", 1e308, ValueError,
     r"doc_topic_prior must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, or None, "
     r"got 1e\+308\."),
    (ALL, "topic_word_prior", 1e-320, ValueError,
     r"topic_word_prior must be a positive finite number in \[1e-12, 1e\+12\], an array of shape \(n_components, n_features\) or None, got 1e-320\."),
    (ALL, "doc_topic_prior", [0.1, 1e-300, 0.1], ValueError,
     r"doc_topic_prior must be a positive finite number in \[1e-12, 1e\+12\] or a vector of such numbers, or None, "
     r"got \[0.1, 1e-300, 0.1\]; entry 1 is 1e-300\."),
]


@pytest.fixture(scope="module")
def X():
    return make_lda_corpus(60, 30, 3, random_state=0).corpus.X


@pytest.mark.parametrize("classes, name, value, exc, match",
                         [pytest.param(*c, id=f"{c[1]}={c[2]!r}") for c in CASES])
def test_bad_parameter_is_refused_and_the_model_kept(X, classes, name, value, exc, match):
    for cls in classes:
        model = cls(3, max_iter=2, random_state=0).fit(X)
        before = pickle.dumps(model)
        with pytest.raises(exc, match=match):
            model.set_params(**{name: value}).fit(X)
        model.set_params(**{name: cls().get_params()[name]})
        restored = pickle.loads(before)
        for attr in ("components_", "bound_history_"):
            np.testing.assert_array_equal(getattr(model, attr), getattr(restored, attr))
