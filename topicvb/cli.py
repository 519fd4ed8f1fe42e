"""The ``topicvb`` command: demo, vectorize, fit, topics, evaluate, report, infer, select-k.

Conventions (those of git, pip and scikit-learn tools):

- ``topicvb --version``; ``topicvb COMMAND --help`` describes the command and shows every default.
- Errors are one line on stderr with a non-zero exit status (1 for a failed command, 2 for a
  usage error), never a traceback; warnings are one line each (``topicvb: warning: ...``).
- Progress (:mod:`topicvb._cli_progress`): bars on stderr for every long stage when it is a
  terminal, none when it is not, none with ``-q`` (which also drops the status lines); ``-v`` adds
  log lines (one per fit iteration), ``-vv`` debug records.
- Ctrl-C: a first one during ``fit`` stops after the current iteration, saves that model, says
  what was saved where and exits with status 130; at any other point (or a second Ctrl-C) the
  command stops with status 130 and a line saying so.
- A closed pipe (``topicvb infer ... | head -1``) ends the command quietly with status 141
  (128 + SIGPIPE, what the shell reports for a command killed by it).

Every check that needs no input comes first, in this order: numeric options
(:func:`check_numeric_options`, with the constraint objects the estimators declare:
``n_components (--k) must be an int in [1, 2147483647], got 0.``), optional dependencies
(:func:`check_optional_dependencies`: ``select-k --plot`` without matplotlib fails at once), and
output paths (:func:`check_output_paths`): an empty name, a folder, a missing or read-only
folder, a device, two outputs with one name, or an output that is one of the command's inputs
is refused with one line naming the option and the path, so no input is ever overwritten and no
work is lost to a bad name. Files are written atomically (a temporary file renamed into place)
with the mode the umask gives.

Inputs (:mod:`topicvb._cli_inputs`): the format comes from the name; CSV and JSON lines need no
``--text-column`` when the text column is obvious; ``--encoding`` applies to everything read as
text; ``--vocab MODEL.npz|CORPUS.npz`` counts an input over a fitted model's or a corpus's
vocabulary (the held-out path: ``topicvb vectorize test/ --vocab model.npz -o test.npz``); an option
that does not apply to the input is ignored with a warning, never silently.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

from ._cli_deps import check_optional_dependencies
from ._cli_inputs import (
    DEFAULT_ENCODING,
    DEFAULT_SUBSET,
    FORMATS,
    TEXT_DEFAULTS,
    TextCounter,
    new_vectorizer,
    npz_kind,
    read_corpus,
)
from ._cli_models import (
    DEFAULT_MODEL,
    _model,
    _model_help,
    _model_names,
    check_numeric_options,
    model_defaults,
)
from ._cli_output import check_output_paths, model_file, plot_file, plot_file_name, write_bytes, write_text
from ._cli_progress import Progress
from .datasets._builtin import DOCSTRING_STOP_WORDS  # noqa: F401  (the demo's stop words; also public there)

logger = logging.getLogger(__name__)

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
BROKEN_PIPE = 141  # 128 + SIGPIPE


def _progress(args) -> Progress:
    progress = getattr(args, "progress", None)
    if progress is None:
        progress = args.progress = Progress(getattr(args, "quiet", False), getattr(args, "verbose", 0))
    return progress


def _read_corpus(path: str, args, vectorizer=None):
    """Read any supported input (see :func:`topicvb._cli_inputs.read_corpus`), with a status line."""
    return read_corpus(path, args, vectorizer, progress=_progress(args))


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


def _check_same_terms(vocabulary, corpus, what, model_path):
    """Refuse a corpus whose columns are not the model's terms, saying how to count it over them."""
    from topicvb.datasets._npz import numbered_vocabulary

    if vocabulary is not None and len(vocabulary) == corpus.n_terms \
            and list(corpus.vocabulary) == numbered_vocabulary(corpus.n_terms):
        return  # a plain matrix read without --vocab: its columns have numbers, not terms; trust the order
    if vocabulary is not None and list(vocabulary) != list(corpus.vocabulary):
        shared = len(set(vocabulary) & set(corpus.vocabulary))
        raise ValueError(
            f"the corpus {what!r} has a different vocabulary from the model's ({corpus.n_terms} terms against "
            f"{len(vocabulary)}, {shared} shared); count it over the model's terms with 'topicvb vectorize "
            f"{what} --vocab {model_path} -o heldout.npz' and pass heldout.npz.")


def _topics_text(model, vocabulary, n):
    lines = []
    prevalence = None
    if hasattr(model, "components_"):
        comp = model.components_.sum(axis=1)
        prevalence = comp / comp.sum()
    for k, topic in enumerate(model.top_words(n, vocabulary)):
        share = "" if prevalence is None else f" ({100 * prevalence[k]:4.1f}%)"
        lines.append(f"topic {k:3d}{share}: " + " ".join(term for term, _ in topic))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- commands
def cmd_demo(args):
    from topicvb.datasets import load_builtin_corpus

    progress = _progress(args)
    progress.abort_on_interrupt = True  # nothing to keep from a partial demo fit
    t0 = time.perf_counter()
    with progress.stage("building the built-in corpus") as end_status:
        vectorizer = new_vectorizer(args, DOCSTRING_STOP_WORDS, verbose=progress.vectorizer_verbose)
        corpus = load_builtin_corpus(vectorizer=TextCounter(vectorizer, fitted=False, before=end_status))
    t1 = time.perf_counter()
    print("Built-in corpus (docstrings of the standard library and installed scientific packages; English and "
          "docstring boilerplate words removed):")
    print(f"  {corpus.n_docs} documents, {corpus.n_terms} terms, {corpus.n_tokens} tokens, read and vectorised "
          f"in {t1 - t0:.1f} s")
    model = _model(args.model, args.k, args)
    with progress.fitting(model) as timer:
        model.fit(corpus.X)
    print(f"{type(model).__name__} with {args.k} topics: {timer.describe(model.n_iter_)} "
          f"(final bound {model.bound_history_[-1]:.6g}, perplexity {model.perplexity(corpus.X):.1f})")
    print()
    print(_topics_text(model, corpus.vocabulary, args.n))
    return 0


def cmd_vectorize(args):
    t0 = time.perf_counter()
    corpus = _read_corpus(args.input, args)
    out = corpus.save(args.output)
    over = ""
    if args.vocab is not None and str(args.vocab).lower().endswith(".npz"):
        over = f" over the vocabulary of {args.vocab}"
    _progress(args).status(f"{corpus.n_docs} documents x {corpus.n_terms} terms ({corpus.n_tokens} tokens){over} "
                           f"written to {out or args.output} in {time.perf_counter() - t0:.1f} s")
    return 0


def cmd_fit(args):
    from topicvb.persistence import save

    progress = _progress(args)
    corpus = _read_corpus(args.corpus, args)
    model = _model(args.model, args.k, args)
    with progress.fitting(model) as timer:
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
    progress.status(f"{type(model).__name__} with {args.k} topics on {corpus.n_docs} documents: "
                    f"{timer.describe(model.n_iter_)}; saved to {path}"
                    + (" (with its vectorizer)" if vec is not None else ""))
    return 0


def cmd_infer(args):
    import csv

    import numpy as np

    progress = _progress(args)
    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.input, args, vectorizer=vectorizer)
    _check_same_terms(vocabulary, corpus, args.input, args.model)
    with progress.stage(f"inferring the topics of {corpus.n_docs} documents"):
        theta = model.transform(corpus.X)
    ids = corpus.doc_ids or [str(i) for i in range(corpus.n_docs)]
    if args.output:
        import io

        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(["document"] + [f"topic_{k}" for k in range(theta.shape[1])])
        for doc, row in zip(ids, theta):
            writer.writerow([doc] + [f"{v:.6g}" for v in row])
        write_text(args.output, buf.getvalue())
        progress.status(f"document-topic proportions of {corpus.n_docs} documents written to {args.output}")
    shown = min(corpus.n_docs, args.show)
    for doc, row in zip(ids[:shown], theta[:shown]):
        top = np.argsort(-row, kind="stable")[: args.top]
        print(f"{doc}: " + ", ".join(f"topic {k} {100 * row[k]:.0f}%" for k in top))
    if shown < corpus.n_docs:
        print(f"... {corpus.n_docs - shown} more (--show N, or --output FILE for all)")
    return 0


def cmd_topics(args):
    from topicvb.inspection import summary

    progress = _progress(args)
    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.corpus, args, vectorizer=vectorizer) if args.corpus else None
    if corpus is not None:
        _check_same_terms(vocabulary, corpus, args.corpus, args.model)
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
    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.corpus, args, vectorizer=vectorizer)
    _check_same_terms(vocabulary, corpus, args.corpus, args.model)
    rows = [("documents", f"{corpus.n_docs}"), ("tokens", f"{corpus.n_tokens}")]
    with_bound = type(model).__name__ in ("BatchLDA", "OnlineLDA")
    with progress.steps("evaluate", 4 + with_bound) as steps:
        with steps.step("held-out perplexity"):
            rows.append(("held-out perplexity (document completion, half the tokens observed)",
                         f"{heldout_perplexity(model, corpus.X, random_state=args.seed):.2f}"))
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
    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.corpus, args, vectorizer=vectorizer)
    _check_same_terms(vocabulary, corpus, args.corpus, args.model)
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

    model = None if args.model == RECOMMENDED else args.model  # None: the recommended configuration
    prototype = _model(args.model, args.k[0], args)  # what the bars show (the class, its max_iter)
    with progress.fitting(prototype, fits=len(set(args.k)), label="candidates"):
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


# ----------------------------------------------------------------------------- the parser
def _df(value: str):
    """A document-frequency bound: an integer is a document count, a decimal a fraction."""
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a count or a fraction, got {value!r}") from None


class _HelpFormatter(argparse.HelpFormatter):
    """Paragraphs of descriptions wrapped, examples (indented lines) kept as written; every option's default shown.

    ``(default: X)`` is appended to an option's help unless the help already says what the
    default is (options whose default is None say it in words), the option is a flag or required.
    """

    def _fill_text(self, text, width, indent):
        import textwrap

        paragraphs = []
        for para in text.split("\n\n"):
            if para.startswith("  ") or "\n  " in para:  # examples: as written
                paragraphs.append("\n".join(indent + line for line in para.splitlines()))
            else:
                paragraphs.append(textwrap.fill(" ".join(para.split()), width, initial_indent=indent,
                                                subsequent_indent=indent))
        return "\n\n".join(paragraphs)

    def _get_help_string(self, action):
        text = action.help or ""
        if ("default" in text or not action.option_strings or action.required
                or action.default in (None, argparse.SUPPRESS) or action.nargs == 0):
            return text
        return text + " (default: %(default)s)"


def _add_output_options(p):
    g = p.add_argument_group("output options").add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bars and no status lines (results, warnings and errors are still shown)")
    g.add_argument("-v", "--verbose", action="count", default=0,
                   help="log lines on stderr too (one per fit iteration); -vv for debug records. Progress bars "
                   "are shown when stderr is a terminal, never otherwise")


TEXT_OPTIONS_NOTE = (
    "The command line's text defaults differ from the Python Vectorizer's "
    "(stop_words=None, min_df=1, max_df=1.0): English stop words are removed, and terms in fewer than 5 "
    "documents or in more than half of them are dropped. With a saved model's vectorizer (a model fitted on raw "
    "text) these options do not apply: its own settings do.")


def _add_text_options(p):
    d = TEXT_DEFAULTS
    g = p.add_argument_group("text options (raw-text inputs)", "How raw text is counted. " + TEXT_OPTIONS_NOTE)
    g.add_argument("--min-df", type=_df, default=None, metavar="N",
                   help=f"drop terms in fewer documents: a count, or a fraction below 1 (default: {d['min_df']}; "
                   "the Python Vectorizer's is 1)")
    g.add_argument("--max-df", type=_df, default=None, metavar="N",
                   help=f"drop terms in more documents: a fraction, or a count (default: {d['max_df']}, half the "
                   "documents; the Python Vectorizer's is 1.0)")
    g.add_argument("--max-features", type=int, default=None, metavar="N",
                   help="keep only the N most frequent terms (default: all)")
    g.add_argument("--stop-words", choices=["english", "none"], default=None,
                   help=f"stop words to remove (default: {d['stop_words']}; the Python Vectorizer's is none)")
    g.add_argument("--stem", choices=["porter", "snowball"], default=None,
                   help="stem tokens with NLTK's stemmer (default: no stemming)")
    g.add_argument("--phrases", action="store_true", help="join learned bigram collocations (new_york)")
    g.add_argument("--clean-email", action="store_true", help="drop mail/news headers, quotes and signatures (20ng input is cleaned by default)")


def _add_input_options(p):
    g = p.add_argument_group("input options")
    g.add_argument("--format", default="auto", choices=list(FORMATS),
                   help="input format (default: auto, from the name: .npz, .csv/.tsv, .jsonl/.json, .mtx, "
                   "docword.*, .dat/.ldac; a folder is textdir; '20ng' is 20 Newsgroups)")
    g.add_argument("--vocab", default=None, metavar="FILE",
                   help="a saved model or corpus (.npz): count the input over its vocabulary (a held-out corpus "
                   "for 'evaluate'; raw text is counted with a model's saved vectorizer when it has one). Or a "
                   "vocabulary file, one term per line: the terms of the columns of a UCI, LDA-C, MatrixMarket or "
                   "plain SciPy .npz input, or the fixed vocabulary of raw text (default: none; a plain matrix's "
                   "terms are then numbered '0', '1', ...)")
    g.add_argument("--text-column", default=None, metavar="NAME",
                   help="the CSV column (JSON lines field) holding the text (default: the column named 'text', or "
                   "the only column of text)")
    g.add_argument("--label-column", default=None, metavar="NAME",
                   help="the CSV column (JSON lines field) holding a label (default: none)")
    g.add_argument("--encoding", default=None, metavar="ENC",
                   help=f"encoding of text files, CSV, JSON lines and vocabulary files (default: {DEFAULT_ENCODING};"
                   " 20 Newsgroups is read as latin-1)")
    g.add_argument("--subset", default=None, choices=["train", "test", "all"],
                   help=f"20 Newsgroups split (default: {DEFAULT_SUBSET})")


def _add_model_options(p, k_default=None):
    g = p.add_argument_group("model options")
    g.add_argument("--model", choices=_model_names(), default=DEFAULT_MODEL, help=_model_help())
    g.add_argument("-k", "--k", type=int, default=k_default, required=k_default is None, help="number of topics")
    g.add_argument("--max-iter", type=int, default=None, metavar="N",
                   help=f"iterations (passes for online and scvb0) (default: {model_defaults('max_iter')})")
    g.add_argument("--tol", type=float, default=None,
                   help=f"relative change of the bound to stop at (default: {model_defaults('tol')})")
    g.add_argument("--doc-topic-prior", type=float, default=None, metavar="ALPHA",
                   help="alpha (default: 1/k, learned from there by the default collapsed model; none for plsa)")
    g.add_argument("--topic-word-prior", type=float, default=None, metavar="ETA",
                   help="eta (default: 1/k, learned from there by the default collapsed model; none for plsa)")
    g.add_argument("--batch-size", type=int, default=None, metavar="N",
                   help=f"mini-batch size of online and scvb0 (default: {model_defaults('batch_size')})")
    g.add_argument("--variant", choices=["cvb0", "cvb"], default=None,
                   help=f"collapsed variant (default: {model_defaults('variant').strip(chr(39))})")
    g.add_argument("--seed", type=int, default=0, help="random seed")
    g.add_argument("--n-jobs", type=int, default=None, metavar="N", help="threads (default: all cores)")


class _ArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr, like every other topicvb error.

    ``add_subparsers`` creates the sub-command parsers with the class of their parent, so they
    report ``topicvb fit: error: ...`` the same way. The exit status stays 2 (a usage error).
    """

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}; see '{self.prog} --help'.\n")


def _command(sub, name, summary, description, epilog=None):
    """A sub-command parser: ``summary`` in ``topicvb --help``, ``description`` in ``topicvb NAME --help``."""
    return sub.add_parser(name, help=summary, description=description, epilog=epilog,
                          formatter_class=_HelpFormatter)


def _add_demo(sub):
    p = _command(sub, "demo", "fit a topic model on the built-in corpus and print its topics",
                 "Build the built-in corpus (docstrings of the Python standard library and the installed scientific "
                 "packages; no download), fit a model and print the topics with timings.")
    _add_model_options(p, k_default=12)
    p.add_argument("--n", type=int, default=10, help="words per topic")
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_demo)


def _add_vectorize(sub):
    p = _command(sub, "vectorize", "count texts (or read a count file) into a corpus: a document-term .npz",
                 "Count the terms of raw text (a folder of text files, CSV, JSON lines, or '20ng') or read a "
                 "count matrix (UCI docword, LDA-C, MatrixMarket, a SciPy .npz), and write a corpus for 'fit', "
                 "'evaluate' and the other commands.\n\n"
                 f"{TEXT_OPTIONS_NOTE}\n\n"
                 "A held-out corpus for 'evaluate' must use the model's terms: --vocab MODEL.npz counts the input "
                 "over them (with the model's own vectorizer when it was fitted on raw text).",
                 epilog="examples:\n"
                 "  topicvb vectorize texts/ -o corpus.npz\n"
                 "  topicvb vectorize reviews.csv -o corpus.npz            # the 'text' column\n"
                 "  topicvb vectorize docword.kos.txt --vocab vocab.kos.txt -o kos.npz\n"
                 "  topicvb vectorize test_texts/ --vocab model.npz -o test.npz   # held out, the model's terms")
    p.add_argument("input", help="a text folder, CSV, JSON lines, UCI docword, LDA-C, MatrixMarket, .npz, or '20ng'")
    p.add_argument("-o", "--output", required=True, help="the corpus file to write (.npz)")
    p.add_argument("--n-jobs", type=int, default=None, metavar="N", help="processes for tokenising (default: 1)")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_vectorize, outputs=(("-o/--output", "output", None),),
                   inputs=(("the input", "input"), ("the --vocab file", "vocab")))


def _add_fit(sub):
    p = _command(sub, "fit", "fit a topic model on a corpus and save it",
                 "Fit a topic model on a corpus (from 'topicvb vectorize', or raw text counted on the way) and save "
                 "it. A model fitted on raw text keeps its vectorizer, so 'infer', 'evaluate', 'topics' and 'report' "
                 "read new text in its terms. A first Ctrl-C stops after the current iteration and saves that model "
                 "(exit status 130); a second one stops at once without saving.",
                 epilog="examples:\n"
                 "  topicvb fit corpus.npz -k 20 -o model.npz\n"
                 "  topicvb fit texts/ -k 20 -o model.npz --model batch --max-iter 200")
    p.add_argument("corpus", help="a corpus from 'topicvb vectorize' (.npz) or any input it reads")
    p.add_argument("-o", "--output", required=True, help="the model file to write (.npz is appended if missing)")
    _add_model_options(p)
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_fit, outputs=(("-o/--output", "output", model_file),),
                   inputs=(("the corpus", "corpus"), ("the --vocab file", "vocab")),
                   on_interrupt="no model was saved")


def _add_topics(sub):
    p = _command(sub, "topics", "print the top words of a saved model's topics",
                 "Print each topic's top words (with its share of the tokens); with --corpus, its prevalence and "
                 "coherence in that corpus. --html and --csv also write the table.")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("--n", type=int, default=10, help="words per topic")
    p.add_argument("--corpus", default=None, help="a corpus for prevalence and coherence (default: none)")
    p.add_argument("--html", default=None, help="also write the table as HTML to this file (default: none)")
    p.add_argument("--csv", default=None, help="also write the table as CSV to this file (default: none)")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_topics, outputs=(("--html", "html", None), ("--csv", "csv", None)),
                   inputs=(("the model", "model"), ("the --corpus input", "corpus"), ("the --vocab file", "vocab")))


def _add_evaluate(sub):
    p = _command(sub, "evaluate", "held-out perplexity, bound, coherence and diversity of a saved model",
                 "Measure a saved model on a corpus, usually held out: perplexity by document completion, the "
                 "per-word ELBO (batch and online LDA), coherence (NPMI and UMass) and topic diversity. The corpus "
                 "must use the model's terms: raw text is counted with the model's saved vectorizer; a corpus "
                 "vectorised separately is counted over the model's terms with 'topicvb vectorize TEST --vocab "
                 "MODEL -o test.npz'.",
                 epilog="examples:\n"
                 "  topicvb evaluate model.npz test_texts/          # a model fitted on raw text\n"
                 "  topicvb vectorize test_texts/ --vocab model.npz -o test.npz && topicvb evaluate model.npz test.npz")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("corpus", help="a test corpus over the model's vocabulary, or raw text")
    p.add_argument("--n", type=int, default=10, help="top words per topic for coherence")
    p.add_argument("--seed", type=int, default=0, help="seed of the observed/held-out token split")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_evaluate, inputs=(("the model", "model"), ("the corpus", "corpus"),
                                              ("the --vocab file", "vocab")))


def _add_report(sub):
    p = _command(sub, "report", "write a self-contained interactive HTML report of a saved model",
                 "Write one HTML file (no network needed to view it) with a map of the topics, their words, "
                 "representative documents and, with --coherence, NPMI coherence.")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("corpus", help="the corpus it describes (.npz from 'topicvb vectorize', or any input it reads)")
    p.add_argument("-o", "--output", required=True, help="the HTML file to write")
    p.add_argument("--n", type=int, default=30, help="terms per topic in the bars")
    p.add_argument("--docs", type=int, default=3, help="example documents per topic")
    p.add_argument("--coherence", action="store_true", help="show NPMI coherence against the corpus")
    p.add_argument("--title", default=None, help="page title (default: the model and corpus names)")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_report, outputs=(("-o/--output", "output", None),),
                   inputs=(("the model", "model"), ("the corpus", "corpus"), ("the --vocab file", "vocab")))


def _add_infer(sub):
    p = _command(sub, "infer", "topic proportions of new documents under a saved model",
                 "Count new documents with the model's own vectorizer (saved by 'topicvb fit' on raw text) or read "
                 "a count matrix over its vocabulary, and give each document's topics.")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("input", help="new documents: a text folder, CSV, JSON lines, or a corpus over the model's terms")
    p.add_argument("--top", type=int, default=3, help="topics shown per document")
    p.add_argument("--show", type=int, default=20, help="documents printed")
    p.add_argument("-o", "--output", default=None,
                   help="write every document's proportions to this CSV file (default: none)")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_infer, outputs=(("-o/--output", "output", None),),
                   inputs=(("the model", "model"), ("the input", "input"), ("the --vocab file", "vocab")))


def _add_select_k(sub):
    p = _command(sub, "select-k", "fit several numbers of topics and choose one",
                 "Fit a model for each candidate number of topics, measure each and choose one by the criterion. "
                 "--plot needs matplotlib.",
                 epilog="example:\n  topicvb select-k corpus.npz --k 10 20 50 --plot k.png")
    p.add_argument("corpus", help="a corpus (.npz from 'topicvb vectorize') or any input it reads")
    p.add_argument("--k", type=int, nargs="+", required=True, help="candidate numbers of topics")
    p.add_argument("--model", choices=_model_names(), default=DEFAULT_MODEL, help=_model_help())
    p.add_argument("--criterion", choices=["elbo", "heldout", "coherence"], default="heldout",
                   help="how to choose: largest final bound, smallest held-out perplexity, largest coherence "
                   "(default: heldout)")
    p.add_argument("--max-iter", type=int, default=None, metavar="N",
                   help=f"iterations per fit (default: {model_defaults('max_iter')})")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--n-jobs", type=int, default=None, metavar="N", help="threads (default: all cores)")
    p.add_argument("--plot", default=None, help="write the K-selection curve to this image file (needs matplotlib; "
                   "default: none)")
    p.add_argument("--json", default=None, help="write the table as JSON to this file (default: none)")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_select_k, outputs=(("--plot", "plot", plot_file_name), ("--json", "json", None)),
                   inputs=(("the corpus", "corpus"), ("the --vocab file", "vocab")))


_COMMANDS = (_add_demo, _add_vectorize, _add_fit, _add_topics, _add_evaluate, _add_report, _add_infer, _add_select_k)


def _version() -> str:
    import platform

    from topicvb import __version__

    where = str(Path(__file__).resolve().parent).replace("%", "%%")  # argparse formats the text with %
    return f"%(prog)s {__version__} from {where} (Python {platform.python_version()})"


class _VersionAction(argparse.Action):
    """``--version``: the line exactly as :func:`_version` writes it (argparse's own version action wraps it
    at the terminal's width, which splits a long installation path)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(_version().replace("%(prog)s", parser.prog).replace("%%", "%") + "\n")
        parser.exit()


def build_parser():
    parser = _ArgumentParser(
        prog="topicvb", formatter_class=_HelpFormatter,
        description="Topic models by variational inference: count a corpus, fit a model, inspect and evaluate it.",
        epilog="a first session:\n"
        "  topicvb demo                                   # no data needed\n"
        "  topicvb vectorize texts/ -o corpus.npz         # or CSV, JSON lines, UCI, LDA-C, MatrixMarket, 20ng\n"
        "  topicvb fit corpus.npz -k 20 -o model.npz\n"
        "  topicvb topics model.npz\n"
        "  topicvb vectorize test/ --vocab model.npz -o test.npz && topicvb evaluate model.npz test.npz\n\n"
        "Run 'topicvb COMMAND --help' for a command's options and their defaults.")
    parser.add_argument("-V", "--version", action=_VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for add_command in _COMMANDS:
        add_command(sub)
    return parser


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()


def _stdout_closed() -> int:
    """After a closed pipe: point stdout at the null device, so the final flush at exit cannot
    fail again, and return 141 (as the Python documentation on SIGPIPE recommends, without a message)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture): nothing to flush later
        pass
    return BROKEN_PIPE


def main(argv=None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader of stdout is gone (`topicvb infer ... | head -1`)
        return _stdout_closed()
    except KeyboardInterrupt:  # during start-up (imports, building the parser), before any work
        print("topicvb: interrupted (Ctrl-C).", file=sys.stderr)
        return INTERRUPTED


def _main(argv) -> int:
    if list(sys.argv[1:] if argv is None else argv) in (["--version"], ["-V"]):
        # at once: the full parser shows the estimators' defaults, which imports scikit-learn
        print(_version().replace("%(prog)s", "topicvb").replace("%%", "%"))
        _flush_stdout()
        raise SystemExit(0)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        _flush_stdout()  # --help or --version into a closed pipe fails here, not at exit
        raise
    progress = args.progress = Progress(args.quiet, args.verbose)
    with progress.session():
        try:
            check_numeric_options(args)
            check_optional_dependencies(args)  # an option that needs a missing package fails before any work
            check_output_paths(args)  # before any input is read or any model fitted
            status = args.func(args)
            _flush_stdout()
            return status
        except BrokenPipeError:
            raise
        except KeyboardInterrupt:
            note = getattr(args, "on_interrupt", None)
            print("topicvb: interrupted (Ctrl-C)" + (f"; {note}." if note else "."), file=sys.stderr)
            return INTERRUPTED
        except (ValueError, TypeError, OSError, KeyError, LookupError, ImportError) as exc:
            msg = str(exc) or type(exc).__name__
            if isinstance(exc, KeyError):
                msg = f"missing key {msg}"
            print(f"topicvb: error: {msg}", file=sys.stderr)
            return 1
        except Exception as exc:  # anything else: still one line, with the exception type
            print(f"topicvb: error: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
