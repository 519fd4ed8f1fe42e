"""The command line's models: which estimator a command fits, with which options, and the checks of
its numeric options (the estimators' own constraint tables, :mod:`topicvb._constraints`)."""

from __future__ import annotations

import logging
from numbers import Integral

logger = logging.getLogger("topicvb.cli")

# the estimator the package recommends (topicvb.models._registry.RECOMMENDED, with its RECOMMENDED_PARAMS)
DEFAULT_MODEL = "collapsed"
# Model options of the command line, by their constructor parameter; each is passed to the
# estimators that have that parameter (the others ignore it, with a warning).
MODEL_OPTIONS = ("max_iter", "tol", "doc_topic_prior", "topic_word_prior", "batch_size", "variant")


def option_constraints() -> dict:
    """The other numeric options, by their argparse dest, and what they accept (None: not given).

    A function, so that importing the command line does not import scikit-learn (a Ctrl-C at start-up
    then reaches :func:`topicvb.cli.main`, which says so in one line).
    """
    from numbers import Real

    from ._constraints import N_JOBS_CONSTRAINT, RANDOM_SEED_MAX, Interval
    from ._validation import MAX_INT

    return {
        "n": [Interval(Integral, 1, MAX_INT)],  # words (terms) per topic
        "docs": [Interval(Integral, 1, MAX_INT)],  # example documents per topic in a report
        "top": [Interval(Integral, 1, MAX_INT)],  # topics shown per document
        "show": [Interval(Integral, 0, MAX_INT)],  # documents printed
        "max_features": [Interval(Integral, 1, MAX_INT), None],
        "seed": [Interval(Integral, 0, RANDOM_SEED_MAX)],  # a model's random_state, or a split's
        "n_jobs": N_JOBS_CONSTRAINT,
        "seed_confidence": [Interval(Real, 0, 1, closed="neither")],  # fit --seed-confidence (topicvb.guided)
    }


def _check_df_options(args) -> None:
    """``--min-df`` and ``--max-df`` (with the command line's defaults) before any input is read, named as options:
    each a count or a fraction in [0, 1], and, both given as counts or both as fractions, min not above max (the
    Vectorizer checks the same, defaults included, where it prunes, naming its parameters)."""
    if not (hasattr(args, "min_df") or hasattr(args, "max_df")):
        return
    from ._cli_inputs import TEXT_DEFAULTS
    from .text.vocabulary import check_df

    values = {}
    for dest in ("min_df", "max_df"):
        given = getattr(args, dest, None)
        values[dest] = TEXT_DEFAULTS[dest] if given is None else given
        check_df(values[dest], _flag(dest))
    low, high = getattr(args, "min_df", None), getattr(args, "max_df", None)
    # (both given: one given against the other's default may be an option that does not apply, ignored with a warning)
    if low is not None and high is not None and isinstance(low, Integral) == isinstance(high, Integral) and low > high:
        raise ValueError(f"--min-df {low!r} must not be above --max-df {high!r}; lower --min-df or raise --max-df.")


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_numeric_options(args) -> None:
    """Check the numeric options (and ``--encoding``) of a parsed command line before any work.

    The options that set a model parameter (``--k`` and :data:`MODEL_OPTIONS`) are checked against
    the chosen estimator's ``_parameter_constraints`` and named ``parameter (--option)``; the others
    against :func:`option_constraints`. Raises ``TypeError`` or ``ValueError`` (one line, see
    :func:`main`).
    """
    from ._constraints import check_param

    def check(value, label, constraint):  # None is an option not given, never a value to offer
        check_param(value, label, [c for c in constraint if c is not None])

    for dest, constraint in option_constraints().items():
        if getattr(args, dest, None) is not None:
            check(getattr(args, dest), _flag(dest), constraint)
    _check_df_options(args)
    if getattr(args, "encoding", None) is not None:  # (else a reader's bare "unknown encoding: foo", after work)
        from ._validation import check_encoding

        check_encoding(args.encoding, "--encoding")
    if not hasattr(args, "k"):  # a command without model options (its "model" is a file)
        return
    name = args.model
    from topicvb.models._registry import entry

    table = entry(name).cls._all_parameter_constraints()
    ks = getattr(args, "k", None)
    k_param = "n_components" if "n_components" in table else "max_components"  # (HDP: --k is its truncation)
    for k in ks if isinstance(ks, list) else [] if ks is None else [ks]:
        check(k, f"{k_param} (--k)", table[k_param])
    from ._constraints import PriorMatrix

    for option in MODEL_OPTIONS:
        value = getattr(args, option, None)
        if value is not None and option in table:  # an option is a number: a matrix prior is no choice here
            check(value, f"{option} ({_flag(option)})", [c for c in table[option] if not isinstance(c, PriorMatrix)])


def has_fixed_k(name: str) -> bool:
    """Whether the estimator ``name`` (a registry name) is fitted with a given number of topics (an
    ``n_components`` parameter); HDP infers its own (``--k`` is its truncation level)."""
    from topicvb.models._registry import entry

    return "n_components" in entry(name).cls().get_params(deep=False)


def _model_names(fixed_k: bool = False) -> list[str]:
    """The command-line names of the estimators, from the estimator registry; with ``fixed_k``, only those
    fitted with a given number of topics (what ``select-k`` compares)."""
    from topicvb.models._registry import cli_names

    return [name for name in cli_names() if not fixed_k or has_fixed_k(name)]


def _model_help(fixed_k: bool = False) -> str:
    from topicvb.models._registry import ENTRIES

    offered = _model_names(fixed_k)
    names = "; ".join(f"{e.cli_name}: {e.summary}" for e in ENTRIES if e.cli_name in offered)
    left_out = [e.cli_name for e in ENTRIES if e.cli_name not in offered]
    note = (f" ({', '.join(left_out)} infers its own number of topics: fit it with 'topicvb fit --model "
            f"{left_out[0]}')" if left_out else "")
    return (f"algorithm (default: {DEFAULT_MODEL}, the recommended one, with learned priors). {names}{note}"
            .replace("%", "%%"))  # argparse formats help with %


def _model(name, k, args):
    """The estimator ``name`` (a registry name) with ``k`` topics and the options given on the command line."""
    from topicvb.models._registry import entry

    from topicvb.models._registry import RECOMMENDED, RECOMMENDED_PARAMS

    cls = entry(name).cls
    accepted = cls().get_params()
    # verbose=0: the command line shows progress itself, from the per-iteration debug records (_cli_progress)
    params = {"random_state": args.seed, "verbose": 0, "n_jobs": args.n_jobs}
    if entry(name).cli_name == RECOMMENDED:  # the recommended configuration, not only the class
        params.update(RECOMMENDED_PARAMS)
    for option in MODEL_OPTIONS:
        value = getattr(args, option, None)
        if value is None:
            continue
        if option in accepted:
            params[option] = value
        else:
            logger.warning("--%s does not apply to --model %s (%s); ignored.", option.replace("_", "-"), name,
                           cls.__name__)
    return cls(k, **params)


def model_defaults(option: str, exclude=()) -> str:
    """The estimators' defaults of a model option, for --help: ``"100 for plsa, batch, collapsed; 10 for online"``
    (the models named in ``exclude``, which the command does not offer, left out)."""
    from topicvb.models._registry import ENTRIES, RECOMMENDED, RECOMMENDED_PARAMS

    by_value: dict = {}
    for e in ENTRIES:
        if e.cli_name in exclude:
            continue
        params = e.cls().get_params()
        if e.cli_name == RECOMMENDED:
            params.update(RECOMMENDED_PARAMS)
        if option in params:
            by_value.setdefault(repr(params[option]) if isinstance(params[option], str) else params[option],
                                []).append(e.cli_name)
    if len(by_value) == 1:
        return str(next(iter(by_value)))
    return "; ".join(f"{value} for {', '.join(names)}" for value, names in by_value.items())
