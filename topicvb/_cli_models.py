"""The command line's models: which estimator a command fits, with which options, and the checks of
its numeric options (the estimators' own constraint tables, :mod:`topicvb._constraints`)."""

from __future__ import annotations

import logging
from numbers import Integral

from ._constraints import N_JOBS_CONSTRAINT, RANDOM_SEED_MAX, Interval, check_param
from ._validation import MAX_INT

logger = logging.getLogger("topicvb.cli")

# the estimator the package recommends (topicvb.models._registry.RECOMMENDED, with its RECOMMENDED_PARAMS)
DEFAULT_MODEL = "collapsed"
# Model options of the command line, by their constructor parameter; each is passed to the
# estimators that have that parameter (the others ignore it, with a warning).
MODEL_OPTIONS = ("max_iter", "tol", "doc_topic_prior", "topic_word_prior", "batch_size", "variant")

# The other numeric options, by their argparse dest, and what they accept (None: not given).
OPTION_CONSTRAINTS = {
    "n": [Interval(Integral, 1, MAX_INT)],  # words (terms) per topic
    "docs": [Interval(Integral, 1, MAX_INT)],  # example documents per topic in a report
    "top": [Interval(Integral, 1, MAX_INT)],  # topics shown per document
    "show": [Interval(Integral, 0, MAX_INT)],  # documents printed
    "max_features": [Interval(Integral, 1, MAX_INT), None],
    "seed": [Interval(Integral, 0, RANDOM_SEED_MAX)],  # a model's random_state, or a split's
    "n_jobs": N_JOBS_CONSTRAINT,
}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def check_numeric_options(args) -> None:
    """Check the numeric options of a parsed command line before any work.

    The options that set a model parameter (``--k`` and :data:`MODEL_OPTIONS`) are checked against
    the chosen estimator's ``_parameter_constraints`` and named ``parameter (--option)``; the others
    against :data:`OPTION_CONSTRAINTS`. Raises ``TypeError`` or ``ValueError`` (one line, see
    :func:`main`).
    """
    def check(value, label, constraint):  # None is an option not given, never a value to offer
        check_param(value, label, [c for c in constraint if c is not None])

    for dest, constraint in OPTION_CONSTRAINTS.items():
        if getattr(args, dest, None) is not None:
            check(getattr(args, dest), _flag(dest), constraint)
    if not hasattr(args, "k"):  # a command without model options (its "model" is a file)
        return
    name = args.model
    from topicvb.models._registry import entry

    table = entry(name).cls._all_parameter_constraints()
    ks = getattr(args, "k", None)
    for k in ks if isinstance(ks, list) else [] if ks is None else [ks]:
        check(k, "n_components (--k)", table["n_components"])
    for option in MODEL_OPTIONS:
        value = getattr(args, option, None)
        if value is not None and option in table:
            check(value, f"{option} ({_flag(option)})", table[option])


def _model_names() -> list[str]:
    """The command-line names of the estimators, from the estimator registry."""
    from topicvb.models._registry import cli_names

    return cli_names()


def _model_help() -> str:
    from topicvb.models._registry import ENTRIES

    names = "; ".join(f"{e.cli_name}: {e.summary}" for e in ENTRIES)
    return (f"algorithm (default: {DEFAULT_MODEL}, the recommended one, with learned priors). {names}"
            .replace("%", "%%"))  # argparse formats help with %


def _model(name, k, args):
    """The estimator ``name`` (a registry name) with ``k`` topics and the options given on the command line."""
    from topicvb.models._registry import entry

    from topicvb.models._registry import RECOMMENDED, RECOMMENDED_PARAMS

    cls = entry(name).cls
    accepted = cls().get_params()
    params = {"random_state": args.seed, "verbose": int(args.verbose), "n_jobs": args.n_jobs}
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
