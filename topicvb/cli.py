"""The ``topicvb`` command: demo, vectorize, fit, topics, evaluate, report, infer, select-k.

Errors are reported as one line on stderr with a non-zero exit status (1 for a failed command,
2 for a usage error), never as a traceback.

Every file a command writes (``-o``, ``--html``, ``--csv``, ``--plot``, ``--json``) is checked before
the command reads its inputs or fits anything (:func:`check_output_paths`): an empty name, a folder,
a missing or read-only folder, a device, two outputs with one name, or an output that is one of the
command's inputs is refused with one line naming the option and the path, so no input is ever
overwritten and no work is lost to a bad name. Files are written atomically (a temporary file
renamed into place) with the mode the umask gives.

Numeric options are checked first of all (:func:`check_numeric_options`), with the constraint
objects the estimators declare (``_parameter_constraints``, :mod:`topicvb._constraints`; see
:mod:`topicvb._cli_models`): a bad
value is one line naming the parameter and the option, ``n_components (--k) must be an int in
[1, 2147483647], got 0.``, before any input is read.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from ._cli_models import DEFAULT_MODEL, _model, _model_help, _model_names, check_numeric_options
from ._cli_output import check_output_paths, model_file, plot_file, plot_file_name, write_bytes, write_text

logger = logging.getLogger(__name__)

# Words that every docstring uses (numpydoc section names, type names, boilerplate): as frequent
# in the built-in corpus as English stop words are in prose, and as uninformative about topics.
DOCSTRING_STOP_WORDS = frozenset("""
    default defaults optional parameters parameter returns return yields raises notes see also examples example
    true false none int float str bool ndarray array_like arraylike object type types value values versionadded
    versionchanged deprecated instance class method methods function functions argument arguments given used use
    using default_value shape number numbers data input output like new set list tuple dict
""".split())


def _vectorizer(args, extra_stop_words=()):
    from topicvb.text import ENGLISH_STOP_WORDS, Tokenizer, Vectorizer

    stop_words = None if args.stop_words == "none" else args.stop_words
    if extra_stop_words:
        stop_words = sorted(set(extra_stop_words) | (ENGLISH_STOP_WORDS if stop_words == "english" else set()))
    tokenizer = Tokenizer(
        stop_words=stop_words,
        stemmer=args.stem,
        clean="email" if args.clean_email else None,
    )
    return Vectorizer(tokenizer=tokenizer, phrases=args.phrases, min_df=args.min_df, max_df=args.max_df,
                      max_features=args.max_features, n_jobs=getattr(args, "n_jobs", None),
                      verbose=int(getattr(args, "verbose", 0)))


class _FittedVectorizer:
    """A fitted vectorizer whose ``fit_transform`` only transforms, so the dataset readers count a
    new corpus in a saved model's terms (its vocabulary, tokenizer settings and phrases)."""

    def __init__(self, vectorizer):
        self.vectorizer = vectorizer

    def fit_transform(self, texts, y=None):
        return self.vectorizer.transform(texts)

    def get_feature_names_out(self):
        return self.vectorizer.get_feature_names_out()


def _read_corpus(path: str, args, vectorizer=None):
    """Read any supported input: a saved corpus, a bag-of-words file, a text folder or table.

    Raw text is counted with ``vectorizer`` (a fitted one, e.g. a saved model's) when given, else
    with a new vectorizer built from the text options; ``args.fitted_vectorizer`` is set to the
    vectorizer that counted it (None for count-matrix input).
    """
    from topicvb import datasets

    args.fitted_vectorizer = None

    fmt = args.format
    p = Path(path)
    name = p.name.lower()
    if fmt == "auto":
        if path.lower() in ("20newsgroups", "20ng"):
            fmt = "20ng"
        elif not p.exists():  # say so, rather than fail to guess the format of a mistyped name
            raise FileNotFoundError(f"{path!r} does not exist. Check the path.")
        elif p.is_dir():
            fmt = "textdir"
        elif name.endswith(".npz"):
            fmt = "npz"
        elif name.endswith((".csv", ".csv.gz")):
            fmt = "csv"
        elif name.endswith((".jsonl", ".json", ".jsonl.gz")):
            fmt = "jsonl"
        elif name.endswith((".mtx", ".mtx.gz")):
            fmt = "mm"
        elif name.startswith("docword"):
            fmt = "uci"
        elif name.endswith((".dat", ".ldac")):
            fmt = "ldac"
        else:
            raise ValueError(f"cannot tell the format of {path!r} from its name; pass --format "
                             "{npz,textdir,csv,jsonl,uci,ldac,mm,20ng}.")
    if fmt == "npz":  # a saved corpus, or a plain scipy.sparse.save_npz matrix (terms from --vocab, or numbered)
        from topicvb.datasets._npz import read_npz

        return read_npz(p, args.vocab)
    if fmt == "uci":
        return datasets.read_uci(p, args.vocab)
    if fmt == "ldac":
        return datasets.read_ldac(p, args.vocab)
    if fmt == "mm":
        return datasets.read_matrix_market(p, args.vocab)
    vec = _vectorizer(args) if vectorizer is None else _FittedVectorizer(vectorizer)
    args.fitted_vectorizer = vectorizer if vectorizer is not None else vec
    if fmt == "20ng":
        return datasets.load_20newsgroups(subset=args.subset, vectorizer=vec)
    if fmt == "textdir":
        return datasets.read_text_dir(p, vectorizer=vec)
    if args.text_column is None:
        raise ValueError(f"--text-column is required to read {fmt} input {path!r}.")
    if fmt == "csv":
        return datasets.read_csv(p, args.text_column, args.label_column, vectorizer=vec)
    return datasets.read_jsonl(p, args.text_column, args.label_column, vectorizer=vec)


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


def cmd_demo(args):
    from topicvb.datasets import load_builtin_corpus

    t0 = time.perf_counter()
    corpus = load_builtin_corpus(vectorizer=_vectorizer(args, DOCSTRING_STOP_WORDS))
    t1 = time.perf_counter()
    print("Built-in corpus (docstrings of the standard library and installed scientific packages; English and "
          "docstring boilerplate words removed):")
    print(f"  {corpus.n_docs} documents, {corpus.n_terms} terms, {corpus.n_tokens} tokens, read and vectorised "
          f"in {t1 - t0:.1f} s")
    model = _model(args.model, args.k, args)
    t2 = time.perf_counter()
    model.fit(corpus.X)
    t3 = time.perf_counter()
    print(f"{type(model).__name__} with {args.k} topics: {model.n_iter_} iterations in {t3 - t2:.1f} s "
          f"(final bound {model.bound_history_[-1]:.6g}, perplexity {model.perplexity(corpus.X):.1f})")
    print()
    print(_topics_text(model, corpus.vocabulary, args.n))
    return 0


def cmd_vectorize(args):
    t0 = time.perf_counter()
    corpus = _read_corpus(args.input, args)
    out = corpus.save(args.output)
    print(f"{corpus.n_docs} documents x {corpus.n_terms} terms ({corpus.n_tokens} tokens) written to "
          f"{out or args.output} in {time.perf_counter() - t0:.1f} s")
    return 0


def cmd_fit(args):
    from topicvb.persistence import save

    corpus = _read_corpus(args.corpus, args)
    model = _model(args.model, args.k, args)
    t0 = time.perf_counter()
    model.fit(corpus.X)
    vec = args.fitted_vectorizer
    if vec is not None:  # raw text: keep the vectorizer, so the saved model reads new text
        path = save(model, args.output, vectorizer=vec)
    else:
        path = save(model, args.output, vocabulary=corpus.vocabulary)
    print(f"{type(model).__name__} with {args.k} topics on {corpus.n_docs} documents: {model.n_iter_} iterations "
          f"in {time.perf_counter() - t0:.1f} s; saved to {path}"
          + (" (with its vectorizer)" if vec is not None else ""))
    return 0


def _load_model(path):
    """(model, vocabulary, vectorizer or None) from a model file."""
    from topicvb.persistence import read

    return tuple(read(path))


def _check_same_terms(vocabulary, corpus, what):
    from topicvb.datasets._npz import numbered_vocabulary

    if vocabulary is not None and len(vocabulary) == corpus.n_terms \
            and list(corpus.vocabulary) == numbered_vocabulary(corpus.n_terms):
        return  # a plain matrix read without --vocab: its columns have numbers, not terms; trust the order
    if vocabulary is not None and list(vocabulary) != list(corpus.vocabulary):
        raise ValueError(f"the corpus {what!r} has a different vocabulary from the model's; vectorise it "
                         "with the model's vocabulary (or fit the model on raw text, so it keeps its vectorizer).")


def cmd_infer(args):
    import csv

    import numpy as np

    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.input, args, vectorizer=vectorizer)
    _check_same_terms(vocabulary, corpus, args.input)
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
        print(f"document-topic proportions of {corpus.n_docs} documents written to {args.output}")
    shown = min(corpus.n_docs, args.show)
    for doc, row in zip(ids[:shown], theta[:shown]):
        top = np.argsort(-row, kind="stable")[: args.top]
        print(f"{doc}: " + ", ".join(f"topic {k} {100 * row[k]:.0f}%" for k in top))
    if shown < corpus.n_docs:
        print(f"... {corpus.n_docs - shown} more (--show N, or --output FILE for all)")
    return 0


def cmd_topics(args):
    from topicvb.inspection import summary

    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.corpus, args, vectorizer=vectorizer) if args.corpus else None
    if corpus is not None:
        _check_same_terms(vocabulary, corpus, args.corpus)
    table = summary(model, X=None if corpus is None else corpus.X, vocabulary=vocabulary, n=args.n,
                    coherence=corpus)
    print(table)
    if args.html:
        write_text(args.html, "<!DOCTYPE html><meta charset='utf-8'><title>topicvb topics</title>\n"
                    + table._repr_html_())
        print(f"HTML table written to {args.html}")
    if args.csv:
        import io

        buf = io.StringIO()
        table.to_csv(buf)
        write_text(args.csv, buf.getvalue())
        print(f"CSV table written to {args.csv}")
    return 0


def cmd_evaluate(args):
    from topicvb.evaluation import coherence, heldout_perplexity, per_word_bound, topic_diversity
    from topicvb.inspection import top_words

    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.corpus, args, vectorizer=vectorizer)
    _check_same_terms(vocabulary, corpus, args.corpus)
    rows = [("documents", f"{corpus.n_docs}"), ("tokens", f"{corpus.n_tokens}")]
    rows.append(("held-out perplexity (document completion, half the tokens observed)",
                 f"{heldout_perplexity(model, corpus.X, random_state=args.seed):.2f}"))
    if type(model).__name__ in ("BatchLDA", "OnlineLDA"):
        rows.append(("per-word ELBO", f"{per_word_bound(model, corpus.X):.4f}"))
    words = top_words(model, vocabulary or corpus.vocabulary, args.n)
    for measure in ("c_npmi", "u_mass"):
        rows.append((f"coherence {measure} (top {args.n} words, mean over topics)",
                     f"{coherence(words, corpus, measure=measure).mean:.4f}"))
    rows.append((f"topic diversity (top {args.n} words)", f"{topic_diversity(words):.3f}"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


def cmd_report(args):
    from topicvb.report import report

    model, vocabulary, vectorizer = _load_model(args.model)
    corpus = _read_corpus(args.corpus, args, vectorizer=vectorizer)
    _check_same_terms(vocabulary, corpus, args.corpus)
    report(model, corpus, vocabulary=vocabulary, n_words=args.n, n_docs=args.docs,
           coherence_reference=corpus if args.coherence else None,
           title=args.title or f"{type(model).__name__} on {corpus.name or Path(args.corpus).name}", path=args.output)
    print(f"report written to {args.output}")
    return 0


def cmd_select_k(args):
    import json

    from topicvb.evaluation import select_n_topics

    corpus = _read_corpus(args.corpus, args)
    params = {"verbose": int(args.verbose)}
    if args.max_iter is not None:
        params["max_iter"] = args.max_iter
    from topicvb.models._registry import RECOMMENDED

    model = None if args.model == RECOMMENDED else args.model  # None: the recommended configuration
    result = select_n_topics(corpus.X, args.k, model=model, criterion=args.criterion, reference=corpus,
                             vocabulary=corpus.vocabulary, random_state=args.seed, n_jobs=args.n_jobs, **params)
    print(result)
    if args.json:
        write_text(args.json, json.dumps(result.to_dict(), indent=2))
    if args.plot:
        import io

        import matplotlib

        matplotlib.use("Agg")
        from topicvb.plotting import plot_selection

        path, fmt = plot_file(args.plot)
        buf = io.BytesIO()
        plot_selection(result).figure.savefig(buf, format=fmt, dpi=120, bbox_inches="tight")
        write_bytes(path, buf.getvalue())
        print(f"plot written to {path}")
    return 0


def _df(value: str):
    """A document-frequency bound: an integer is a document count, a decimal a fraction."""
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a count or a fraction, got {value!r}") from None


def _add_text_options(p):
    g = p.add_argument_group("text options (raw-text inputs)")
    g.add_argument("--min-df", type=_df, default=5, help="drop terms in fewer documents (count, or fraction < 1)")
    g.add_argument("--max-df", type=_df, default=0.5, help="drop terms in more documents (fraction, or count)")
    g.add_argument("--max-features", type=int, default=None, help="keep only the most frequent terms")
    g.add_argument("--stop-words", default="english", help="'english' (default) or 'none'")
    g.add_argument("--stem", choices=["porter", "snowball"], default=None, help="stem tokens")
    g.add_argument("--phrases", action="store_true", help="join learned bigram collocations (new_york)")
    g.add_argument("--clean-email", action="store_true", help="drop mail/news headers, quotes and signatures")


def _add_input_options(p):
    g = p.add_argument_group("input options")
    g.add_argument("--format", default="auto", choices=["auto", "npz", "textdir", "csv", "jsonl", "uci", "ldac",
                                                         "mm", "20ng"], help="input format (default: from the name)")
    g.add_argument("--vocab", default=None, help="vocabulary file (one term per line) for UCI, LDA-C, MatrixMarket "
                   "and plain scipy.sparse.save_npz input (default for a plain matrix: terms '0', '1', ...)")
    g.add_argument("--text-column", default=None, help="text column (CSV) or field (JSON lines)")
    g.add_argument("--label-column", default=None, help="label column or field")
    g.add_argument("--subset", default="train", choices=["train", "test", "all"], help="20 Newsgroups split")


def _add_model_options(p, k_default=None):
    p.add_argument("--model", choices=_model_names(), default=DEFAULT_MODEL, help=_model_help())
    p.add_argument("-k", "--k", type=int, default=k_default, required=k_default is None, help="number of topics")
    p.add_argument("--max-iter", type=int, default=None, help="iterations (passes for online and scvb0)")
    p.add_argument("--tol", type=float, default=None, help="relative change of the bound to stop at")
    p.add_argument("--doc-topic-prior", type=float, default=None, help="alpha (default 1/k)")
    p.add_argument("--topic-word-prior", type=float, default=None, help="eta (default 1/k)")
    p.add_argument("--batch-size", type=int, default=None, help="mini-batch size (online, scvb0)")
    p.add_argument("--variant", choices=["cvb0", "cvb"], default=None, help="collapsed variant")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--n-jobs", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("-v", "--verbose", action="count", default=0, help="progress on stderr")


class _ArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr, like every other topicvb error.

    ``add_subparsers`` creates the sub-command parsers with the class of their parent, so they
    report ``topicvb fit: error: ...`` the same way. The exit status stays 2 (a usage error).
    """

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}; see '{self.prog} --help'.\n")


def _add_demo(sub):
    p = sub.add_parser("demo", help="fit a topic model on the built-in corpus and print its topics",
                       description="Build the built-in corpus (docstrings of the Python standard library and the "
                       "installed scientific packages; no download), fit a model and print the topics with timings.")
    _add_model_options(p, k_default=12)
    _add_text_options(p)
    p.add_argument("--n", type=int, default=10, help="words per topic")
    p.set_defaults(func=cmd_demo)


def _add_vectorize(sub):
    p = sub.add_parser("vectorize", help="turn an input corpus into a document-term matrix (.npz)")
    p.add_argument("input", help="a text folder, CSV, JSON lines, UCI docword, LDA-C, MatrixMarket, or '20ng'")
    p.add_argument("-o", "--output", required=True, help="the corpus file to write (.npz)")
    p.add_argument("--n-jobs", type=int, default=None, help="processes for tokenising")
    p.add_argument("-v", "--verbose", action="count", default=0, help="progress on stderr")
    _add_input_options(p)
    _add_text_options(p)
    p.set_defaults(func=cmd_vectorize, outputs=(("-o/--output", "output", None),),
                   inputs=(("the input", "input"), ("the --vocab file", "vocab")))


def _add_fit(sub):
    p = sub.add_parser("fit", help="fit a topic model on a corpus and save it")
    p.add_argument("corpus", help="a corpus from 'topicvb vectorize' (.npz) or any input it reads")
    p.add_argument("-o", "--output", required=True, help="the model file to write (.npz)")
    _add_model_options(p)
    _add_input_options(p)
    _add_text_options(p)
    p.set_defaults(func=cmd_fit, outputs=(("-o/--output", "output", model_file),),
                   inputs=(("the corpus", "corpus"), ("the --vocab file", "vocab")))


def _add_topics(sub):
    p = sub.add_parser("topics", help="print the top words of a saved model's topics")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("--n", type=int, default=10, help="words per topic")
    p.add_argument("--corpus", default=None, help="a corpus for prevalence and coherence (optional)")
    p.add_argument("--html", default=None, help="also write the table as HTML to this file")
    p.add_argument("--csv", default=None, help="also write the table as CSV to this file")
    _add_input_options(p)
    _add_text_options(p)
    p.set_defaults(func=cmd_topics, outputs=(("--html", "html", None), ("--csv", "csv", None)),
                   inputs=(("the model", "model"), ("the --corpus input", "corpus"), ("the --vocab file", "vocab")))


def _add_evaluate(sub):
    p = sub.add_parser("evaluate", help="held-out perplexity, bound, coherence and diversity of a saved model")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("corpus", help="a test corpus over the model's vocabulary (.npz from 'topicvb vectorize')")
    p.add_argument("--n", type=int, default=10, help="top words per topic for coherence")
    p.add_argument("--seed", type=int, default=0, help="seed of the observed/held-out token split")
    _add_input_options(p)
    _add_text_options(p)
    p.set_defaults(func=cmd_evaluate)


def _add_report(sub):
    p = sub.add_parser("report", help="write a self-contained interactive HTML report of a saved model")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("corpus", help="the corpus it describes (.npz from 'topicvb vectorize', or any input it reads)")
    p.add_argument("-o", "--output", required=True, help="the HTML file to write")
    p.add_argument("--n", type=int, default=30, help="terms per topic in the bars")
    p.add_argument("--docs", type=int, default=3, help="example documents per topic")
    p.add_argument("--coherence", action="store_true", help="show NPMI coherence against the corpus")
    p.add_argument("--title", default=None, help="page title")
    _add_input_options(p)
    _add_text_options(p)
    p.set_defaults(func=cmd_report, outputs=(("-o/--output", "output", None),),
                   inputs=(("the model", "model"), ("the corpus", "corpus"), ("the --vocab file", "vocab")))


def _add_infer(sub):
    p = sub.add_parser("infer", help="topic proportions of new documents under a saved model",
                       description="Count new documents with the model's own vectorizer (saved by 'topicvb fit' "
                       "on raw text) or read a count matrix over its vocabulary, and give each document's topics.")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("input", help="new documents: a text folder, CSV, JSON lines, or a corpus over the model's terms")
    p.add_argument("--top", type=int, default=3, help="topics shown per document (default 3)")
    p.add_argument("--show", type=int, default=20, help="documents printed (default 20)")
    p.add_argument("-o", "--output", default=None, help="write every document's proportions to this CSV file")
    _add_input_options(p)
    _add_text_options(p)
    p.set_defaults(func=cmd_infer, outputs=(("-o/--output", "output", None),),
                   inputs=(("the model", "model"), ("the input", "input"), ("the --vocab file", "vocab")))


def _add_select_k(sub):
    p = sub.add_parser("select-k", help="fit several numbers of topics and choose one")
    p.add_argument("corpus", help="a corpus (.npz from 'topicvb vectorize') or any input it reads")
    p.add_argument("--k", type=int, nargs="+", required=True, help="candidate numbers of topics")
    p.add_argument("--model", choices=_model_names(), default=DEFAULT_MODEL, help=_model_help())
    p.add_argument("--criterion", choices=["elbo", "heldout", "coherence"], default="heldout",
                   help="how to choose (default: held-out perplexity)")
    p.add_argument("--max-iter", type=int, default=None, help="iterations per fit")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    p.add_argument("--n-jobs", type=int, default=None, help="threads (default: all cores)")
    p.add_argument("--plot", default=None, help="write the K-selection curve to this image file")
    p.add_argument("--json", default=None, help="write the table as JSON to this file")
    p.add_argument("-v", "--verbose", action="count", default=0, help="progress on stderr")
    _add_input_options(p)
    _add_text_options(p)
    p.set_defaults(func=cmd_select_k, outputs=(("--plot", "plot", plot_file_name), ("--json", "json", None)),
                   inputs=(("the corpus", "corpus"), ("the --vocab file", "vocab")))


_COMMANDS = (_add_demo, _add_vectorize, _add_fit, _add_topics, _add_evaluate, _add_report, _add_infer, _add_select_k)


def build_parser():
    parser = _ArgumentParser(prog="topicvb", description="Topic models by variational inference.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_command in _COMMANDS:
        add_command(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", 0) else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        check_numeric_options(args)
        check_output_paths(args)  # before any input is read or any model fitted
        return args.func(args)
    except KeyboardInterrupt:
        print("topicvb: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, KeyError, LookupError) as exc:
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
