"""The work of each ``topicvb`` command: ``cmd_NAME(args)`` runs the command ``NAME`` on its parsed arguments.

:func:`topicvb.cli.main` calls it after the checks that need no input (numbers, optional
dependencies, output paths) and turns what it raises into one line on stderr; it returns the exit
status. The parser that fills ``args`` is :mod:`topicvb._cli_parser`. The helpers here are what
several commands share: reading an input with a status line, loading a model file with clear errors,
and refusing a corpus whose columns are not the model's terms.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import logging
import re
import time
import warnings
from pathlib import Path

from ._cli_inputs import TextCounter, new_vectorizer, npz_kind, read_corpus, text_option, text_options_of
from ._cli_seeds import read_seed_topics
from ._cli_models import _model, has_fixed_k
from ._cli_output import npz_file, plot_file, write_bytes, write_text
from ._cli_progress import Progress
from .datasets._builtin import DOCSTRING_STOP_WORDS

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
USAGE_ERROR = 2  # as argparse exits for a command line it cannot parse

logger = logging.getLogger("topicvb.cli")


def _progress(args) -> Progress:
    progress = getattr(args, "progress", None)
    if progress is None:
        progress = args.progress = Progress(getattr(args, "quiet", False), getattr(args, "verbose", 0))
    return progress


def _read_corpus(path: str, args, vectorizer=None, *, documents: bool = True):
    """Read any supported input (see :func:`topicvb._cli_inputs.read_corpus`), with a status line; with
    ``documents``, one without documents is refused, naming it (a model command has nothing to do with it)."""
    corpus = read_corpus(path, args, vectorizer, progress=_progress(args))
    if documents and corpus.n_docs == 0:
        raise ValueError(f"the corpus {str(path)!r} has no documents.")
    return corpus


def _load_model(path):
    """(model, vocabulary, vectorizer or None) from a model file, with a clear error for a folder or a corpus."""
    from topicvb.persistence import read

    if Path(path).is_dir():  # persistence would say "truncated or corrupt: Is a directory"
        raise ValueError(f"the model {str(path)!r} is a folder; give a model file written by 'topicvb fit' (.npz).")
    try:
        return tuple(read(path))
    except ValueError:
        kind = npz_kind(path)
        if kind in ("corpus", "matrix"):
            raise ValueError(f"{str(path)!r} is not a topicvb model file but a corpus (a document-term matrix); fit "
                             f"a model on it first: topicvb fit {path} -k 20 -o model.npz.") from None
        raise


def _check_fits_in_memory(k: int, corpus) -> None:
    """Refuse a ``-k`` whose topic and document-topic arrays alone (8 bytes a number) exceed the machine's memory:
    such a fit would fill it for minutes before failing."""
    try:
        page, pages = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # (no sysconf: not checked)
        return
    if page <= 0 or pages <= 0:  # (-1: indeterminate)
        return
    total = page * pages
    need = 8 * k * (corpus.n_terms + corpus.n_docs)
    if need > total:
        raise ValueError(f"-k {k} needs at least {need / 2**30:.1f} GiB for its topics and document proportions alone "
                         f"({k} x ({corpus.n_terms} terms + {corpus.n_docs} documents) x 8 bytes), more than this "
                         f"machine's {total / 2**30:.1f} GiB; use fewer topics.")


def _check_same_terms(vocabulary, corpus, what, model_path):
    """``corpus`` in the model's terms: refused when its columns are not the model's terms, saying how to count it
    over them; a matrix without terms of its own (a plain .npz's numbered columns, or the placeholder names of a UCI,
    LDA-C or MatrixMarket file read without --vocab) of the model's width takes the model's terms."""
    from ._cli_inputs import _has_own_terms

    if vocabulary is not None and len(vocabulary) == corpus.n_terms and not _has_own_terms(corpus):
        # its columns have numbers, not terms; trust the order, and name them with the model's terms (the coherence
        # of the model's top words is counted in them: none would match)
        return dataclasses.replace(corpus, vocabulary=list(vocabulary))
    if vocabulary is not None and list(vocabulary) != list(corpus.vocabulary):
        shared = len(set(vocabulary) & set(corpus.vocabulary))
        if not _has_own_terms(corpus):  # (vectorize could not match terms it does not have: say what can)
            raise ValueError(
                f"the corpus {what!r} has {corpus.n_terms} columns without terms of their own, but the model has "
                f"{len(vocabulary)} terms; give the corpus its vocabulary (--vocab VOCAB.txt, the terms of its "
                "columns), or a matrix of the model's width in the model's term order.")
        raise ValueError(
            f"the corpus {what!r} has a different vocabulary from the model's ({corpus.n_terms} terms against "
            f"{len(vocabulary)}, {shared} shared); count it over the model's terms with 'topicvb vectorize "
            f"{what} --vocab {model_path} -o heldout.npz' and pass heldout.npz.")
    return corpus


def _model_and_corpus(args, path):
    """(model, vocabulary, corpus): the model file ``args.model`` and the input ``path`` read in its terms
    (raw text counted with the model's saved vectorizer), refused when its columns are not the model's terms."""
    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _check_same_terms(vocabulary, _read_corpus(path, args, vectorizer=vectorizer), path, args.model)
    return model, vocabulary, corpus


def _names(model, n_topics):
    """Each topic's name for a display: its own (a guided topic's label) after its number, else nothing."""
    from topicvb._inspection_words import custom_labels, model_labels

    names = custom_labels(model_labels(model, n_topics)) or [f"topic_{k}" for k in range(n_topics)]
    return [f" {name}" if name != f"topic_{k}" else "" for k, name in enumerate(names)]


def _topics_text(model, vocabulary, n, X=None):
    """One line per topic: its number, its name (a guided topic's), its share of the tokens of ``X`` when given
    (:func:`topicvb.inspection.topic_prevalence`, the prevalence every other display shows; the rows of
    ``components_`` are no measure of it: probabilities for PLSA, pseudo-counts with the prior for the others) and
    its ``n`` top words."""
    from topicvb.inspection import topic_prevalence

    lines = []
    prevalence = None if X is None else topic_prevalence(model, X)
    words = model.top_words(n, vocabulary)
    names = _names(model, len(words))
    for k, topic in enumerate(words):
        share = "" if prevalence is None else f" ({100 * prevalence[k]:4.1f}%)"
        lines.append(f"topic {k:3d}{names[k]}{share}: " + " ".join(term for term, _ in topic))
    return "\n".join(lines)


def _fitted_topics(model, k) -> str:
    """"N topics" of a fitted model: the number it holds (HDP infers it, up to its truncation level ``--k``)."""
    n = model.components_.shape[0]
    text = f"{n} topic{'' if n == 1 else 's'}"
    if "n_components" not in model.get_params(deep=False):
        text += f" (of at most {k}, the truncation level --k)"
    return text


def _removed_words(args) -> str:
    """What the demo's vectorizer drops (see :func:`topicvb._cli_inputs.new_vectorizer`): the docstring
    boilerplate words always, the English stop words unless ``--stop-words none``."""
    if text_option(args, "stop_words") == "none":
        return "docstring boilerplate words removed, English stop words kept"
    return "English and docstring boilerplate words removed"


# Advice in an estimator's warning that names a Python parameter the command line has no option for (HDP's
# merges=False and refit_kept=False, CollapsedLDA's moves=False), and what the command line says instead.
_CLI_ADVICE = (
    (re.compile(r"raise max_iter, or pass (\w+=\w+)\."),
     r"raise --max-iter (or, in Python, pass \1; the command line has no option for it)."),
    (re.compile(r"raise max_iter or tol \(or pass (\w+=\w+)\)\."),
     r"raise --max-iter or --tol (or, in Python, pass \1; the command line has no option for it)."),
    (re.compile(r"raise max_iter or tol\."), "raise --max-iter or --tol."),
)


@contextlib.contextmanager
def _cli_advice():
    """Within the block: the warnings shown (by the command line's :class:`Progress`) with the advice of
    :data:`_CLI_ADVICE` in the command line's terms."""
    show = warnings.showwarning

    def cli_show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        for python, cli in _CLI_ADVICE:
            text = python.sub(cli, text)
        if text != str(message):
            message = category(text)
        show(message, category, filename, lineno, file, line)

    warnings.showwarning = cli_show
    try:
        yield
    finally:
        warnings.showwarning = show


def cmd_demo(args):
    from topicvb.datasets import load_builtin_corpus

    progress = _progress(args)
    progress.abort_on_interrupt = True  # nothing to keep from a partial demo fit
    t0 = time.perf_counter()
    with progress.stage("building the built-in corpus") as end_status:
        vectorizer = new_vectorizer(args, DOCSTRING_STOP_WORDS, verbose=progress.vectorizer_verbose)
        corpus = load_builtin_corpus(vectorizer=TextCounter(vectorizer, fitted=False, before=end_status))
    t1 = time.perf_counter()
    print(f"Built-in corpus (docstrings of the standard library and installed scientific packages; "
          f"{_removed_words(args)}):")
    print(f"  {corpus.n_docs} documents, {corpus.n_terms} terms, {corpus.n_tokens} tokens, read and vectorised "
          f"in {t1 - t0:.1f} s")
    model = _model(args.model, args.k, args)
    with progress.fitting(model) as timer, _cli_advice():
        model.fit(corpus.X)
    print(f"{type(model).__name__} with {_fitted_topics(model, args.k)}: {timer.describe(model.n_iter_)} "
          f"(final bound {model.bound_history_[-1]:.6g}, document-completion perplexity of the training documents "
          f"{model.perplexity(corpus.X):.1f})")
    print()
    print(_topics_text(model, corpus.vocabulary, args.n, corpus.X))
    return 0


def cmd_vectorize(args):
    t0 = time.perf_counter()
    corpus = _read_corpus(args.input, args, documents=False)
    if getattr(args, "fitted_vectorizer", None) is not None:  # (counted from text: say how, for --vocab CORPUS)
        corpus = dataclasses.replace(corpus, text_options=text_options_of(args.fitted_vectorizer))
    out = npz_file(args.output)  # as 'fit -o' names a model: the next command knows the file by its name
    corpus.save(out)
    over = ""
    if args.vocab is not None and str(args.vocab).lower().endswith(".npz"):
        over = f" over the vocabulary of {args.vocab}"
    _progress(args).status(f"{corpus.n_docs} documents x {corpus.n_terms} terms ({corpus.n_tokens} tokens){over} "
                           f"written to {out} in {time.perf_counter() - t0:.1f} s")
    return 0


def _seeded_prior(args, seeds, corpus, model):
    """The topic-word prior of ``fit --seed-topics``: the seed words over the corpus's terms (raw text: a seed
    word is also looked up as the vectorizer's tokenizer writes it), the model's prior as the base."""
    from topicvb.guided import DEFAULT_SEED_CONFIDENCE, seed_topic_prior

    vec = args.fitted_vectorizer
    tokenizer = None
    if vec is not None:
        from topicvb.text import Tokenizer

        tokenizer = vec.tokenizer if vec.tokenizer is not None else Tokenizer()
    base = model.get_params().get("topic_word_prior")  # --topic-word-prior, else None (1/k)
    confidence = DEFAULT_SEED_CONFIDENCE if args.seed_confidence is None else args.seed_confidence
    try:
        prior = seed_topic_prior(corpus.vocabulary, seeds, args.k, seed_confidence=confidence, base_prior=base,
                                 tokenizer=tokenizer)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"--seed-topics {args.seed_topics}: {exc}") from None
    _progress(args).status("guided topics: " + ", ".join(
        f"{label} ({' '.join(words)})" for label, words in prior.seed_topics.items())
        + f"; seed_confidence {confidence:g}")
    return prior


def cmd_fit(args):
    from topicvb.persistence import save

    progress = _progress(args)
    seeds = None
    if getattr(args, "seed_topics", None) is not None:  # checked before the corpus is read
        from topicvb.models._registry import entry

        if not has_fixed_k(args.model):
            cls = entry(args.model).cls
            raise ValueError(f"--seed-topics needs a model with a fixed number of topics; --model {args.model} "
                             f"({cls.__name__}) chooses its own. Use --model collapsed (or batch, online, scvb0, plsa).")
        seeds = read_seed_topics(args.seed_topics, args)
        if len(seeds) > args.k:
            raise ValueError(f"--seed-topics {args.seed_topics} names {len(seeds)} topics, more than --k {args.k}; "
                             f"use -k {len(seeds)} or more.")
    elif getattr(args, "seed_confidence", None) is not None:
        logger.warning("--seed-confidence applies only with --seed-topics; ignored.")
    corpus = _read_corpus(args.corpus, args)
    _check_fits_in_memory(args.k, corpus)
    model = _model(args.model, args.k, args)
    if seeds is not None:
        model.set_params(topic_word_prior=_seeded_prior(args, seeds, corpus, model))
    with progress.fitting(model) as timer, _cli_advice():
        model.fit(corpus.X)
    vec = args.fitted_vectorizer
    if vec is not None:  # raw text: keep the vectorizer, so the saved model reads new text
        vec.set_params(verbose=0)  # its progress bar was this command's; a saved model stays quiet
        path = save(model, args.output, vectorizer=vec)
    else:
        path = save(model, args.output, vocabulary=corpus.vocabulary)
    if progress.interrupted:
        progress.write(f"topicvb: interrupted (Ctrl-C) after iteration {model.n_iter_} of {model.max_iter}; the "
                       f"model of that iteration was saved to {path}.")
        return INTERRUPTED
    progress.status(f"{type(model).__name__} with {_fitted_topics(model, args.k)} on {corpus.n_docs} documents: "
                    f"{timer.describe(model.n_iter_)}; saved to {path}"
                    + (" (with its vectorizer)" if vec is not None else ""))
    return 0


def cmd_infer(args):
    import csv

    import numpy as np

    progress = _progress(args)
    model, _, corpus = _model_and_corpus(args, args.input)
    with progress.stage(f"inferring the topics of {corpus.n_docs} documents"):
        theta = model.transform(corpus.X)
    ids = corpus.doc_ids or [str(i) for i in range(corpus.n_docs)]
    if args.output:
        import io

        buf = io.StringIO()
        writer = csv.writer(buf)
        from topicvb._inspection_words import model_labels

        writer.writerow(["document"] + (model_labels(model, theta.shape[1])
                                        or [f"topic_{k}" for k in range(theta.shape[1])]))
        for doc, row in zip(ids, theta):
            writer.writerow([doc] + [f"{v:.6g}" for v in row])
        write_text(args.output, buf.getvalue())
        progress.status(f"document-topic proportions of {corpus.n_docs} documents written to {args.output}")
    shown = min(corpus.n_docs, args.show)
    names = _names(model, theta.shape[1])
    for doc, row in zip(ids[:shown], theta[:shown]):
        top = np.argsort(-row, kind="stable")[: args.top]
        print(f"{doc}: " + ", ".join(f"topic {k}{names[k]} {100 * row[k]:.0f}%" for k in top))
    if shown < corpus.n_docs:
        print(f"... {corpus.n_docs - shown} more (--show N, or --output FILE for all)")
    return 0


def cmd_topics(args):
    from topicvb.inspection import summary

    progress = _progress(args)
    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.corpus, args, vectorizer=vectorizer) if args.corpus else None
    if corpus is not None:
        corpus = _check_same_terms(vocabulary, corpus, args.corpus, args.model)
    else:  # (the input options read the corpus: without one, each given is said to be ignored, never silently)
        from ._cli_inputs import flag, given, warn_unused

        reason = "there is no --corpus to read"
        warn_unused(args, set(), {}, reason)
        for dest, unset in (("format", "auto"), ("vocab", None)):
            if given(args, dest) and getattr(args, dest) != unset:
                logger.warning("%s does not apply here (%s); ignored.", flag(dest), reason)
    with progress.stage("summarising the topics"):
        table = summary(model, X=None if corpus is None else corpus.X, vocabulary=vocabulary, n=args.n,
                        coherence=corpus)
    print(table)
    if args.html:
        write_text(args.html, "<!DOCTYPE html><meta charset='utf-8'><title>topicvb topics</title>\n"
                   + table._repr_html_())
        progress.status(f"HTML table written to {args.html}")
    if args.csv:
        import io

        buf = io.StringIO()
        table.to_csv(buf)
        write_text(args.csv, buf.getvalue())
        progress.status(f"CSV table written to {args.csv}")
    return 0


def cmd_evaluate(args):
    from topicvb.evaluation import coherence, heldout_perplexity, per_word_bound, topic_diversity
    from topicvb.inspection import top_words

    progress = _progress(args)
    model, vocabulary, corpus = _model_and_corpus(args, args.corpus)
    rows = [("documents", f"{corpus.n_docs}"), ("tokens", f"{corpus.n_tokens}")]
    with_bound = type(model).__name__ in ("BatchLDA", "OnlineLDA")
    with progress.steps("evaluate", 4 + with_bound) as steps:
        with steps.step("held-out perplexity"):
            try:
                perplexity = heldout_perplexity(model, corpus.X, random_state=args.seed)
            except ValueError as exc:  # (its message names the Python parameters X_test and observed_fraction)
                if "found no held-out token" not in str(exc):
                    raise
                raise ValueError(f"{args.corpus!r} is too short for the held-out perplexity: half of each "
                                 "document's tokens are held out, and its documents leave none (too few tokens); "
                                 "evaluate on longer documents.") from None
            rows.append(("held-out perplexity (document completion, half the tokens observed)", f"{perplexity:.2f}"))
        if with_bound:
            with steps.step("per-word ELBO"):
                rows.append(("per-word ELBO", f"{per_word_bound(model, corpus.X):.4f}"))
        words = top_words(model, vocabulary or corpus.vocabulary, args.n)
        for measure in ("c_npmi", "u_mass"):
            with steps.step(f"coherence {measure}"):
                rows.append((f"coherence {measure} (top {args.n} words, mean over topics)",
                             f"{coherence(words, corpus, measure=measure).mean:.4f}"))
        with steps.step("topic diversity"):
            rows.append((f"topic diversity (top {args.n} words)", f"{topic_diversity(words):.3f}"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


def cmd_report(args):
    from topicvb.report import report

    progress = _progress(args)
    model, vocabulary, corpus = _model_and_corpus(args, args.corpus)
    with progress.stage("writing the report"):
        report(model, corpus, vocabulary=vocabulary, n_words=args.n, n_docs=args.docs,
               coherence_reference=corpus if args.coherence else None,
               title=args.title or f"{type(model).__name__} on {corpus.name or Path(args.corpus).name}",
               path=args.output)
    progress.status(f"report written to {args.output}")
    return 0


def cmd_select_k(args):
    import json

    from topicvb.evaluation import select_n_topics

    progress = _progress(args)
    progress.abort_on_interrupt = True  # a table of some of the candidates would mislead
    corpus = _read_corpus(args.corpus, args)
    params = {"verbose": 0}
    if args.max_iter is not None:
        params["max_iter"] = args.max_iter
    from topicvb.models._registry import RECOMMENDED

    if args.criterion == "heldout" and corpus.n_docs < 2:  # (the library would ask for an X_test, no option here)
        raise ValueError(f"--criterion heldout holds out some of the documents to score each K, but the corpus "
                         f"{args.corpus!r} has only {corpus.n_docs}; give more documents, or --criterion elbo or "
                         "coherence.")
    model = None if args.model == RECOMMENDED else args.model  # None: the recommended configuration
    prototype = _model(args.model, args.k[0], args)  # what the bars show (the class, its max_iter)
    with progress.fitting(prototype, fits=len(set(args.k)), label="candidates"), _cli_advice():
        result = select_n_topics(corpus.X, args.k, model=model, criterion=args.criterion, reference=corpus,
                                 vocabulary=corpus.vocabulary, random_state=args.seed, n_jobs=args.n_jobs, **params)
    print(result)
    if args.json:
        write_text(args.json, json.dumps(result.to_dict(), indent=2))
        progress.status(f"table written to {args.json}")
    if args.plot:
        import io

        import matplotlib

        matplotlib.use("Agg")
        from topicvb.plotting import plot_selection

        path, fmt = plot_file(args.plot)
        buf = io.BytesIO()
        plot_selection(result).figure.savefig(buf, format=fmt, dpi=120, bbox_inches="tight")
        write_bytes(path, buf.getvalue())
        progress.status(f"plot written to {path}")
    return 0
