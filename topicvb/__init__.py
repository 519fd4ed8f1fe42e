"""topicvb: topic models by variational inference, with numba kernels and a scikit-learn API.

The public names are imported lazily (on first attribute access), so ``import topicvb`` stays
fast and does not pull in numba, scikit-learn or NLTK until a model or the text pipeline is used.
"""

from importlib import import_module

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {
    # text pipeline
    "Tokenizer": "topicvb.text",
    "Vectorizer": "topicvb.text",
    "Vocabulary": "topicvb.text",
    "PhraseDetector": "topicvb.text",
    "iter_batches": "topicvb.text",
    # data
    "Corpus": "topicvb.datasets",
    "make_lda_corpus": "topicvb.datasets",
    "load_builtin_corpus": "topicvb.datasets",
    "load_20newsgroups": "topicvb.datasets",
    # models
    "PLSA": "topicvb.models",
    "BatchLDA": "topicvb.models",
    "CollapsedLDA": "topicvb.models",
    "OnlineLDA": "topicvb.models",
    "StochasticCollapsedLDA": "topicvb.models",
    "HDP": "topicvb.models",
    # evaluation and inspection
    "heldout_perplexity": "topicvb.evaluation",
    "coherence": "topicvb.evaluation",
    "select_n_topics": "topicvb.evaluation",
    "topic_diversity": "topicvb.evaluation",
    "summary": "topicvb.inspection",
    "top_words": "topicvb.inspection",
    "to_pyldavis": "topicvb.inspection",
    "TopicTable": "topicvb.inspection",
    # raw texts to topics
    "TopicPipeline": "topicvb.pipeline",
    "make_topic_pipeline": "topicvb.pipeline",
    "document_topics": "topicvb.pipeline",
    # guided topics: seed words and topic names (a matrix topic_word_prior)
    "SeededPrior": "topicvb.guided",
    "seed_topic_prior": "topicvb.guided",
    # saving and loading (a model, or a pipeline with its vectorizer)
    "save": "topicvb.pipeline",
    "load": "topicvb.pipeline",
    # the one-time compilation of the kernels, ahead of the first fit
    "precompile": "topicvb._jit",
}

# the public submodules, also imported on first attribute access (``topicvb.datasets.load_builtin_corpus()`` after a
# bare ``import topicvb``, as with NumPy's and SciPy's submodules)
_SUBMODULES = ("cli", "datasets", "distributed", "evaluation", "exceptions", "guided", "inspection", "models",
               "persistence", "pipeline", "plotting", "report", "text")

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name):
    if name in _SUBMODULES:
        try:
            return import_module(f"topicvb.{name}")  # (the import sets the attribute: called once per submodule)
        except ImportError as exc:  # (an optional dependency: hasattr and inspect expect an AttributeError)
            raise AttributeError(f"topicvb.{name} cannot be imported: {exc}") from exc
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'topicvb' has no attribute {name!r}") from None
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__ + list(_SUBMODULES)
