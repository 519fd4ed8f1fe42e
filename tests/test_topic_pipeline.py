"""TopicPipeline / document_topics, and saving a model together with its vectorizer."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from topicvb import (BatchLDA, OnlineLDA, PLSA, TopicPipeline, document_topics, load, make_lda_corpus, make_topic_pipeline,
                     save)
from topicvb import persistence
from topicvb.models._registry import ENTRIES
from topicvb.text import PhraseDetector, Tokenizer, Vectorizer

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

TRAIN = (
    ["New York has a big subway and many yellow taxis in the city."] * 4
    + ["Apples, pears and plums are fruit; a fruit salad needs apples and pears."] * 4
    + ["The New York pizza is famous; every New York borough has pizza places."] * 4
    + ["Plums and pears ripen in autumn; fruit trees need sun."] * 4
)
NEW = ["I ate a fruit salad with plums and pears", "New York has a big subway and yellow taxis", "zzz unknown words only", ""]


def _vectorizer(**kw):
    tok = Tokenizer(stop_words=frozenset({"a", "and", "the", "in", "has", "are", "with", "every", "i"}),
                    stemmer="porter", numbers="replace")
    return Vectorizer(tokenizer=tok, phrases=PhraseDetector(min_count=3), **kw)


@pytest.fixture(scope="module")
def fitted():
    return make_topic_pipeline(_vectorizer(), BatchLDA(2, max_iter=30, random_state=0)).fit(TRAIN)


def test_make_topic_pipeline_is_a_pipeline_with_named_steps(fitted):
    assert isinstance(fitted, Pipeline)
    assert [name for name, _ in fitted.steps] == ["vectorizer", "model"]
    assert fitted.vectorizer is fitted.named_steps["vectorizer"]
    assert fitted.model is fitted.named_steps["model"]
    assert "new_york" in fitted.vectorizer.vocabulary_  # the phrase was learned


def test_document_topics_equals_the_two_steps_by_hand(fitted):
    theta = fitted.document_topics(NEW)
    by_hand = fitted.model.transform(fitted.vectorizer.transform(NEW))
    np.testing.assert_array_equal(theta, by_hand)
    assert theta.shape == (len(NEW), 2)
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    # the fruit text and the city text land in different topics
    assert np.argmax(theta[0]) != np.argmax(theta[1])


def test_document_topics_on_a_plain_sklearn_pipeline():
    pipe = Pipeline([("vec", Vectorizer()), ("lda", PLSA(2, max_iter=20, random_state=0))]).fit(TRAIN)
    theta = document_topics(pipe, NEW[:2])
    np.testing.assert_array_equal(theta, pipe.transform(NEW[:2]))


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda p: p.document_topics("one text"), TypeError, r"single str.*\[text\]"),
        (lambda p: document_topics(object(), ["x"]), TypeError, r"expects a fitted scikit-learn Pipeline.*object"),
        (lambda p: document_topics(Pipeline([("v", Vectorizer()), ("m", Vectorizer())]), ["x"]), TypeError,
         r"last step .* topicvb model.*Vectorizer"),
        (lambda p: document_topics(Pipeline([("m", BatchLDA(2))]), ["x"]), TypeError, r"vectorizer step"),
        (lambda p: make_topic_pipeline(Vectorizer(), BatchLDA(2)).document_topics(["x"]), NotFittedError, r"not fitted"),
        (lambda p: make_topic_pipeline(Vectorizer(), Vectorizer()), TypeError, r"model must be a topicvb model"),
        (lambda p: make_topic_pipeline(object(), BatchLDA(2)), TypeError, r"vectorizer must have a transform"),
        (lambda p: p.summary("one text"), TypeError, r"single str"),
    ],
)
def test_bad_input(fitted, call, exc, match):
    with pytest.raises(exc, match=match):
        call(fitted)


def test_top_words_and_summary_use_the_vectorizer_terms(fitted):
    words = fitted.top_words(3)
    terms = set(fitted.vectorizer.get_feature_names_out())
    assert len(words) == 2 and all(len(t) == 3 and {w for w, _ in t} <= terms for t in words)
    rel = fitted.top_words(3, relevance=0.0)  # needs term frequencies: taken from the vectorizer's vocabulary
    assert len(rel) == 2
    table = fitted.summary(TRAIN, n=4)
    assert table.n_topics == 2
    np.testing.assert_allclose(table.prevalence.sum(), 1.0)
    np.testing.assert_allclose(table.prevalence, fitted.document_topics(TRAIN).sum(axis=0) / len(TRAIN), atol=0.2)


def test_grid_search_over_topics_on_raw_texts():
    pipe = make_topic_pipeline(Vectorizer(), BatchLDA(max_iter=10, random_state=0))
    search = GridSearchCV(pipe, {"model__n_components": [2, 3]}, cv=2).fit(TRAIN)
    assert search.best_params_["model__n_components"] in (2, 3)
    assert isinstance(search.best_estimator_, TopicPipeline)


def test_pickle_roundtrip(fitted):
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.document_topics(NEW), fitted.document_topics(NEW))


# ----------------------------------------------------------------------------- saving with the vectorizer
@pytest.mark.parametrize("model", [BatchLDA(2, max_iter=20, random_state=0), OnlineLDA(2, max_iter=5, random_state=0),
                                   PLSA(2, max_iter=20, random_state=0)], ids=lambda m: type(m).__name__)
def test_saved_pipeline_transforms_raw_text_after_loading(model, tmp_path):
    pipe = make_topic_pipeline(_vectorizer(min_df=2, max_features=40), model).fit(TRAIN)
    path = save(pipe, tmp_path / "pipe")
    assert path.suffix == ".npz"
    loaded, vocab = load(path, return_vocabulary=True)
    assert isinstance(loaded, TopicPipeline)
    assert vocab == list(pipe.vectorizer.get_feature_names_out())
    # the same counts (tokenizer settings, stop words, stemmer and phrases survived) and the same topics
    X_new, X_old = loaded.vectorizer.transform(NEW + TRAIN[:3]), pipe.vectorizer.transform(NEW + TRAIN[:3])
    assert (X_new != X_old).nnz == 0 and X_new.shape == X_old.shape
    np.testing.assert_allclose(loaded.document_topics(NEW), pipe.document_topics(NEW), rtol=1e-12, atol=1e-15)
    assert loaded.vectorizer.phrase_detector_.phrases_ == pipe.vectorizer.phrase_detector_.phrases_
    v0, v1 = pipe.vectorizer.vocab_, loaded.vectorizer.vocab_
    np.testing.assert_array_equal(v0.doc_freq, v1.doc_freq)
    np.testing.assert_array_equal(v0.term_freq, v1.term_freq)
    assert v0.n_docs == v1.n_docs and loaded.vectorizer.n_docs_ == pipe.vectorizer.n_docs_
    p0, p1 = pipe.vectorizer.get_params(deep=False), loaded.vectorizer.get_params(deep=False)
    assert {k: v for k, v in p0.items() if k not in ("tokenizer", "phrases")} == \
           {k: v for k, v in p1.items() if k not in ("tokenizer", "phrases")}
    assert loaded.vectorizer.phrases.get_params() == pipe.vectorizer.phrases.get_params()
    tok0, tok1 = pipe.vectorizer.tokenizer.get_params(), loaded.vectorizer.tokenizer.get_params()
    assert set(tok1.pop("stop_words")) == set(tok0.pop("stop_words"))
    assert tok0 == tok1


def test_loaded_pipeline_works_in_a_fresh_process(fitted, tmp_path):
    path = save(fitted, tmp_path / "m.npz")
    code = ("import json, sys, topicvb; p = topicvb.load(sys.argv[1]); "
            "print(json.dumps(p.document_topics(json.loads(sys.argv[2])).tolist()))")
    out = subprocess.run([sys.executable, "-c", code, str(path), json.dumps(NEW)], capture_output=True, text=True,
                         check=True, cwd=tmp_path)  # (cwd: python -c imports the installed topicvb, not ./topicvb)
    np.testing.assert_allclose(np.array(json.loads(out.stdout)), fitted.document_topics(NEW), rtol=1e-12)


def test_save_model_with_vectorizer_keyword_and_defaults(tmp_path):
    vec = Vectorizer(phrases=True, vocabulary=None)
    X = vec.fit_transform(TRAIN)
    model = BatchLDA(2, max_iter=10, random_state=0).fit(X)
    loaded = load(save(model, tmp_path / "m.npz", vectorizer=vec))
    assert loaded.vectorizer.tokenizer is None and loaded.vectorizer.phrases is True
    np.testing.assert_allclose(loaded.transform(NEW), model.transform(vec.transform(NEW)), rtol=1e-12)


def test_fixed_vocabulary_vectorizer_roundtrip(tmp_path):
    vec = Vectorizer(vocabulary=["fruit", "pizza", "york", "pears"])
    pipe = make_topic_pipeline(vec, BatchLDA(2, max_iter=10, random_state=0)).fit(TRAIN)
    loaded = load(save(pipe, tmp_path / "m.npz"))
    assert loaded.vectorizer.vocabulary == ["fruit", "pizza", "york", "pears"]
    np.testing.assert_allclose(loaded.transform(NEW), pipe.transform(NEW), rtol=1e-12)


def test_a_bare_model_still_loads_as_a_model_and_format_1_files_load(tmp_path):
    X = Vectorizer().fit_transform(TRAIN)
    model = BatchLDA(2, max_iter=5, random_state=0).fit(X)
    path = save(model, tmp_path / "m.npz")
    assert isinstance(load(path), BatchLDA)
    with np.load(path) as f:  # rewrite as a format-1 file (the layout before vectorizers were stored)
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["meta"][()]))
    meta["version"] = 1
    arrays["meta"] = np.asarray(json.dumps(meta))
    np.savez(tmp_path / "v1.npz", **arrays)
    np.testing.assert_array_equal(load(tmp_path / "v1.npz").components_, model.components_)


@pytest.mark.parametrize(
    "make, exc, match",
    [
        (lambda: make_topic_pipeline(Vectorizer(tokenizer=str.split), BatchLDA(2, max_iter=3)).fit(TRAIN),
         TypeError, r"tokenizer only when it is a topicvb.text.Tokenizer.*got method_descriptor"),
        (lambda: Pipeline([("v", Vectorizer()), ("x", Vectorizer()), ("m", BatchLDA(2, max_iter=3))]),
         TypeError, r"Pipeline of exactly \(Vectorizer, topic model\)"),
    ],
)
def test_save_refuses_what_a_file_cannot_hold(make, exc, match, tmp_path):
    obj = make()
    with pytest.raises(exc, match=match):
        save(obj, tmp_path / "m.npz")
    assert not (tmp_path / "m.npz").exists()


def test_save_checks_the_vectorizer_against_the_model(tmp_path):
    vec = Vectorizer().fit(TRAIN)
    other = BatchLDA(2, max_iter=3).fit(np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"vectorizer has \d+ terms, but the model was fitted on 4"):
        save(other, tmp_path / "m.npz", vectorizer=vec)
    with pytest.raises(NotFittedError):
        save(other, tmp_path / "m.npz", vectorizer=Vectorizer())
    with pytest.raises(TypeError, match=r"vectorizer must be a topicvb.text.Vectorizer"):
        save(other, tmp_path / "m.npz", vectorizer="vec")


def test_corrupt_vectorizer_record_is_refused_naming_the_file(fitted, tmp_path):
    path = save(fitted, tmp_path / "m.npz")
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["meta"][()]))
    meta["vectorizer"]["tokenizer"] = {"no_such_option": 1}
    arrays["meta"] = np.asarray(json.dumps(meta))
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=r"bad\.npz' has an invalid vectorizer record"):
        load(tmp_path / "bad.npz")


# ----------------------------------------------------------------------------- every registered estimator
@pytest.fixture(scope="module")
def counts():
    vec = _vectorizer(min_df=2)
    return vec, vec.fit_transform(TRAIN)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.cli_name)
def test_save_load_roundtrips_every_registered_estimator(entry, counts, tmp_path):
    vec, X = counts
    model = entry.cls(2, max_iter=3, random_state=0).fit(X)
    terms = list(vec.get_feature_names_out())
    loaded, vocab = load(save(model, tmp_path / "m.npz", vocabulary=terms), return_vocabulary=True)
    assert type(loaded) is entry.cls and vocab == terms
    assert loaded.get_params() == model.get_params()
    for name in ("components_", "n_features_in_", "n_iter_", "bound_history_") + entry.required_state:
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name), err_msg=name)
    np.testing.assert_allclose(loaded.transform(X), model.transform(X), rtol=1e-12, atol=1e-15)
    # with its vectorizer, the same model comes back inside a pipeline that reads raw text
    pipe = load(save(model, tmp_path / "p.npz", vectorizer=vec))
    assert isinstance(pipe, TopicPipeline) and type(pipe.model) is entry.cls
    np.testing.assert_allclose(pipe.document_topics(NEW), model.transform(vec.transform(NEW)), rtol=1e-12,
                               atol=1e-15)


# ----------------------------------------------------------------------------- the record layer underneath
def test_persistence_reads_records_and_never_builds_a_pipeline(fitted, tmp_path):
    path = fitted.save(tmp_path / "m.npz")
    record = persistence.read(path)
    assert isinstance(record, persistence.ModelRecord)
    assert type(record.model) is BatchLDA and isinstance(record.vectorizer, Vectorizer)
    assert record.vocabulary == list(fitted.vectorizer.get_feature_names_out())
    # the record-level load returns the model alone; topicvb.load wraps it with its vectorizer
    assert type(persistence.load(path)) is BatchLDA
    assert isinstance(load(path), TopicPipeline)
    with pytest.raises(TypeError, match=r"got TopicPipeline\. To save a pipeline with its vectorizer, use "
                                        r"topicvb\.save"):
        persistence.save(fitted, tmp_path / "x.npz")


def test_the_package_chooses_the_recommended_estimator():
    # make_topic_pipeline and select_n_topics default to CollapsedLDA with learned priors (issue #17)
    from topicvb.evaluation import select_n_topics
    from topicvb.models import CollapsedLDA

    model = make_topic_pipeline().named_steps["model"]
    assert type(model) is CollapsedLDA and model.learn_priors is True and model.moves is True
    assert model.acceleration == "squarem"  # (SQUAREM cycles where storage="auto" keeps only the counts: issue #18)
    X = make_lda_corpus(120, 40, 3, random_state=0).corpus.X
    result = select_n_topics(X, [2, 3], max_iter=5)
    assert result.model_name == "CollapsedLDA" and result.criterion == "heldout"
    assert result.best_model.learn_priors is True
    # every model's default is held-out perplexity, the measure of its score (issue #24: GridSearchCV agrees)
    assert select_n_topics(X, [2], model="batch", max_iter=5).criterion == "heldout"


# ---------------------------------------------------------------------------------- found by an edge-case hunt
_FRUIT_AND_VEHICLES = ["apples and pears are fruit", "pears and plums are fruit", "cars and trucks are vehicles",
                       "trucks and buses are vehicles"] * 3
_ANIMALS = ["dogs and cats are pets", "cats and mice are animals", "cows and goats are farm"] * 3  # (10 terms too)


def _seeded_pipeline():
    from topicvb import BatchLDA, make_topic_pipeline
    from topicvb.text import Vectorizer

    return make_topic_pipeline(Vectorizer(), BatchLDA(2, random_state=0, max_iter=5),
                               seed_topics={"fruit": ["apples", "pears"], "veh": ["trucks"]})


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("method", ["fit", "fit_transform"])
def test_a_failed_refit_leaves_every_step_as_it_was(method):
    # (before, a seeded refit on texts without the seed words failed after refitting the vectorizer: the old model
    # then read the new vectorizer's columns, and transform gave other topics without an error)
    pipe = _seeded_pipeline().fit(_FRUIT_AND_VEHICLES)
    before, terms = pipe.transform(_FRUIT_AND_VEHICLES), list(pipe.vectorizer.get_feature_names_out())
    prior, steps = pipe.seeded_prior_, list(pipe.steps)
    with pytest.raises(ValueError, match=r"seed_topics\['fruit'\]: none of its seed words is in the vocabulary"):
        getattr(pipe, method)(_ANIMALS)
    assert list(pipe.vectorizer.get_feature_names_out()) == terms and pipe.seeded_prior_ is prior
    assert [s for _, s in pipe.steps] == [s for _, s in steps] and pipe.model.topic_word_prior is prior
    np.testing.assert_array_equal(pipe.transform(_FRUIT_AND_VEHICLES), before)


@pytest.mark.filterwarnings("ignore")
def test_dropping_seed_topics_gives_the_model_its_own_prior_back():
    # (before, the SeededPrior of the old vocabulary stayed in the model: the new fit was "seeded" on unrelated
    # columns and labelled with the old seed labels, or failed on a prior shape the user never set)
    pipe = _seeded_pipeline().fit(_FRUIT_AND_VEHICLES)
    pipe.set_params(seed_topics=None).fit(_ANIMALS)
    assert pipe.model.topic_word_prior is None and not hasattr(pipe, "seeded_prior_")
    assert list(pipe.model.topic_labels_) == ["topic_0", "topic_1"]
    pipe.fit(_ANIMALS + ["ducks geese birds"])  # (another vocabulary width)
    assert pipe.model.components_.shape[1] == len(pipe.vectorizer.get_feature_names_out())


@pytest.mark.filterwarnings("ignore")
def test_a_prior_the_user_sets_after_a_seeded_fit_is_kept():
    # (a review of the fix above: the first version replaced any SeededPrior, also one the user set since)
    from topicvb.guided import seed_topic_prior

    pipe = _seeded_pipeline().fit(_FRUIT_AND_VEHICLES)
    terms = list(pipe.vectorizer.get_feature_names_out())
    mine = seed_topic_prior(terms, {"mine_a": ["plums"], "mine_b": ["buses"]}, 2)
    pipe.set_params(seed_topics=None, model__topic_word_prior=mine).fit(_FRUIT_AND_VEHICLES)
    assert pipe.model.topic_word_prior is mine and list(pipe.model.topic_labels_) == ["mine_a", "mine_b"]


@pytest.mark.filterwarnings("ignore")
def test_a_loaded_seeded_pipeline_can_drop_its_seed_topics(tmp_path):
    # (a review: a pipeline loaded from a file had no seeded_prior_, so its saved prior stayed in the model and a
    # refit with seed_topics=None on other texts failed on the old prior's shape)
    from topicvb import load, save

    pipe = _seeded_pipeline().fit(_FRUIT_AND_VEHICLES)
    loaded = load(save(pipe, tmp_path / "p.npz"))
    loaded.set_params(seed_topics=None).fit(_ANIMALS + ["ducks geese birds"])
    assert not hasattr(loaded, "seeded_prior_") and list(loaded.model.topic_labels_) == ["topic_0", "topic_1"]
    assert loaded.model.topic_word_prior is None  # the user's, as the unsaved pipeline's (before: 1 / K of the fit)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("base", [None, 0.3])
def test_a_loaded_seeded_pipeline_refits_as_the_saved_one(base, tmp_path):
    """A hunt: a loaded seeded pipeline refitted with another K took the saved fit's 1 / K as its base prior (0.5 for
    K = 2, where the unsaved pipeline takes 1 / 3), so the refits differed."""
    from topicvb import load, save

    pipe = _seeded_pipeline().set_params(model__topic_word_prior=base).fit(_FRUIT_AND_VEHICLES)
    loaded = load(save(pipe, tmp_path / "p.npz"))
    assert loaded.model.topic_word_prior.base_prior_default is (base is None)
    for p in (pipe, loaded):
        p.set_params(model__n_components=3).fit(_FRUIT_AND_VEHICLES)
    assert loaded.model.topic_word_prior.base_prior == pipe.model.topic_word_prior.base_prior == (base or 1 / 3)
    np.testing.assert_array_equal(loaded.model.components_, pipe.model.components_)
    for p in (pipe, loaded):
        p.set_params(seed_topics=None).fit(_FRUIT_AND_VEHICLES)
    assert loaded.model.topic_word_prior == pipe.model.topic_word_prior == base


def test_pandas_output_set_globally_leaves_the_counts_sparse_and_the_pipeline_working():
    # (before, with sklearn.set_config(transform_output="pandas") the Vectorizer refused to return its sparse
    # counts, so every text pipeline failed; CountVectorizer's counts pass through such a setting unwrapped)
    import sklearn

    from topicvb import BatchLDA, make_topic_pipeline
    from topicvb.text import Vectorizer

    plain = make_topic_pipeline(Vectorizer(), BatchLDA(2, random_state=0, max_iter=5)).fit(_ANIMALS)
    with sklearn.config_context(transform_output="pandas"):
        counts = Vectorizer().fit_transform(_ANIMALS)
        assert sp.issparse(counts) and counts.shape[0] == len(_ANIMALS)
        pipe = make_topic_pipeline(Vectorizer(), BatchLDA(2, random_state=0, max_iter=5)).fit(_ANIMALS)
        theta = pipe.transform(_ANIMALS)
        assert list(theta.columns) == list(pipe.model.get_feature_names_out())  # (the model's output is a frame)
    np.testing.assert_array_equal(np.asarray(theta), plain.transform(_ANIMALS))
    # the same asked of the pipeline itself (set_output reaches every step), and "default" (which scikit-learn's
    # own message suggested) still accepted by the Vectorizer
    vec = Vectorizer()
    assert vec.set_output(transform="default") is vec and vec.set_output(transform="pandas") is vec
    framed = make_topic_pipeline(Vectorizer(), BatchLDA(2, random_state=0, max_iter=5)).set_output(transform="pandas")
    assert list(framed.fit(_ANIMALS).transform(_ANIMALS).columns) == list(framed.model.get_feature_names_out())
    assert sp.issparse(framed.vectorizer.transform(_ANIMALS))


@pytest.mark.filterwarnings("ignore")
def test_a_clone_of_a_seeded_pipeline_has_the_users_prior_not_the_fitted_one():
    # (before, sklearn's clone kept the SeededPrior the fit had written into the model: a clone set to
    # seed_topics=None was still seeded, or failed on another vocabulary's width, and a GridSearchCV over
    # seed_topics scored NaN for None)
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    pipe = _seeded_pipeline().fit(_FRUIT_AND_VEHICLES)
    twin = clone(pipe)
    assert twin.model.topic_word_prior is None and twin.seed_topics == pipe.seed_topics
    twin.set_params(seed_topics=None).fit(_ANIMALS + ["ducks geese birds"])
    assert list(twin.model.topic_labels_) == ["topic_0", "topic_1"] and not hasattr(twin, "seeded_prior_")
    own = _seeded_pipeline().set_params(model__topic_word_prior=0.3).fit(_FRUIT_AND_VEHICLES)
    assert clone(own).model.topic_word_prior == 0.3 and own.model.topic_word_prior is own.seeded_prior_
    search = GridSearchCV(pipe, {"seed_topics": [None, pipe.seed_topics]}, cv=2, error_score="raise")
    scores = search.fit(_FRUIT_AND_VEHICLES).cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    assert pipe.model.topic_word_prior is pipe.seeded_prior_  # (the fitted pipeline itself is untouched)


@pytest.mark.filterwarnings("ignore")
def test_seed_topics_beside_a_seeded_prior_of_the_users_own_are_refused():
    # (before, the user's SeededPrior, its seeds, labels and exclusions, gave way to one built from seed_topics
    # without a word; an array prior beside seed_topics was refused already)
    from topicvb import BatchLDA, make_topic_pipeline
    from topicvb.guided import seed_topic_prior
    from topicvb.text import Vectorizer

    terms = list(Vectorizer().fit(_FRUIT_AND_VEHICLES).get_feature_names_out())
    mine = seed_topic_prior(terms, {"mine": ["plums"]}, 2)
    pipe = make_topic_pipeline(Vectorizer(), BatchLDA(2, topic_word_prior=mine, max_iter=5, random_state=0),
                               seed_topics={"fruit": ["apples"]})
    with pytest.raises(ValueError, match="topic_word_prior is a SeededPrior of its own, and seed_topics would "
                                         "replace it"):
        pipe.fit(_FRUIT_AND_VEHICLES)
    assert pipe.model.topic_word_prior is mine and not hasattr(pipe.model, "components_")
    pipe.set_params(seed_topics=None).fit(_FRUIT_AND_VEHICLES)  # (either one alone is fine)
    assert list(pipe.model.topic_labels_) == ["mine", "topic_1"]


def test_seed_topics_in_a_pipeline_built_directly_around_hdp_are_refused_clearly():
    # (before: HDP's AttributeError about n_components from inside the fit; make_topic_pipeline said it at once)
    from topicvb import HDP, TopicPipeline
    from topicvb.text import Vectorizer

    pipe = TopicPipeline([("vectorizer", Vectorizer()), ("model", HDP(max_components=4))],
                         seed_topics={"fruit": ["apples"]})
    with pytest.raises(ValueError, match=r"TopicPipeline.fit: seed_topics need a model with a fixed number of topics "
                                         r"\(n_components\); HDP chooses its own"):
        pipe.fit(_FRUIT_AND_VEHICLES)
    assert not hasattr(pipe.model, "components_")


def test_a_bool_topic_word_prior_is_named_as_a_bool_with_seed_topics():
    pipe = _seeded_pipeline()
    pipe.model.set_params(topic_word_prior=True)
    with pytest.raises(TypeError, match=r"topic_word_prior must be a positive float or None with seed_topics, got "
                                        r"True \(a bool\)"):
        pipe.fit(_FRUIT_AND_VEHICLES)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("part", ["tokenizer", "phrases"])
def test_a_pipeline_with_numpy_int_text_parameters_saves(part, tmp_path):
    """A hunt: a Tokenizer or PhraseDetector parameter given as a NumPy int fitted and transformed, but save failed
    with json's TypeError (Object of type int64 is not JSON serializable)."""
    from topicvb import BatchLDA, PhraseDetector, load, make_topic_pipeline, save
    from topicvb.text import Tokenizer, Vectorizer

    texts = ["new york city subway", "new york taxi", "subway taxi city", "new york bridge"] * 4
    vec = (Vectorizer(tokenizer=Tokenizer(min_length=np.int64(3))) if part == "tokenizer"
           else Vectorizer(phrases=PhraseDetector(min_count=np.int64(3), threshold=np.float32(0.1))))
    pipe = make_topic_pipeline(vec, BatchLDA(2, random_state=0, max_iter=5)).fit(texts)
    loaded = load(save(pipe, tmp_path / "p.npz"))
    assert list(loaded.vectorizer.get_feature_names_out()) == list(pipe.vectorizer.get_feature_names_out())
    np.testing.assert_array_equal(loaded.transform(texts), pipe.transform(texts))
