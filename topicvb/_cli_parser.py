"""The parser of the ``topicvb`` command: its options, their help texts and defaults, and ``--version``.

:func:`build_parser` gives one sub-command parser a command (``_add_NAME``), each bound to the function
that does its work (``cmd_NAME`` of :mod:`topicvb._cli_commands`, through ``set_defaults(func=...)``)
and naming its outputs and inputs for the path checks of :mod:`topicvb._cli_output`. Usage errors are
one line on stderr with exit status 2 (:class:`_ArgumentParser`); ``COMMAND --help`` shows every
default (:class:`_HelpFormatter`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._cli_commands import (
    cmd_demo,
    cmd_evaluate,
    cmd_fit,
    cmd_infer,
    cmd_report,
    cmd_select_k,
    cmd_topics,
    cmd_vectorize,
)
from ._cli_inputs import DEFAULT_ENCODING, DEFAULT_SUBSET, FORMATS, TEXT_DEFAULTS
from ._cli_models import DEFAULT_MODEL, _model_help, _model_names, model_defaults
from ._cli_output import npz_file, plot_file_name
from .guided import DEFAULT_SEED_CONFIDENCE


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
    "The command line's text defaults differ from the Python API's "
    "(Vectorizer(min_df=1, max_df=1.0) with Tokenizer(stop_words=None)): English stop words are removed, and terms in fewer than 5 "
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
                   help=f"stop words to remove (default: {d['stop_words']}; the Python Tokenizer's is none)")
    g.add_argument("--stem", choices=["porter", "snowball"], default=None,
                   help="stem tokens with NLTK's stemmer (default: no stemming)")
    g.add_argument("--phrases", action="store_true", help="join learned bigram collocations (new_york)")
    g.add_argument("--clean-email", action="store_true", help="drop mail/news headers, quotes and signatures (20ng input is cleaned by default)")


def _add_input_options(p):
    g = p.add_argument_group("input options")
    g.add_argument("--format", default="auto", choices=list(FORMATS),
                   help="input format (default: auto, from the name: .npz, .csv/.tsv, .jsonl/.json, .mtx, "
                   "docword.*, .dat/.ldac, .txt (lines: one document per line); a folder is textdir (one document "
                   "per file); '20ng' is 20 Newsgroups)")
    g.add_argument("--vocab", default=None, metavar="FILE",
                   help="a saved model or corpus (.npz): count the input over its vocabulary (a held-out corpus "
                   "for 'evaluate'; raw text is counted with a model's saved vectorizer when it has one). Or a "
                   "vocabulary file, one term per line: the terms of the columns of a UCI, LDA-C, MatrixMarket or "
                   "plain SciPy .npz input, or the fixed vocabulary of raw text (default: none; the columns of a "
                   "matrix without terms are then numbered: '0', '1', ... for a SciPy .npz, 'w00', 'w01', ... for the "
                   "others, and read in a model's terms by position where the widths agree)")
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
                   help="alpha (default: 1/k, learned from there by the default collapsed model; none for plsa; hdp "
                   "learns its own alpha0)")
    g.add_argument("--topic-word-prior", type=float, default=None, metavar="ETA",
                   help="eta (default: 1/k, learned from there by the default collapsed model and by hdp; none for "
                   "plsa)")
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
    p.add_argument("-n", "--n", type=int, default=10, help="words per topic")
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
    p.add_argument("-o", "--output", required=True, help="the corpus file to write (.npz is appended if missing)")
    p.add_argument("--n-jobs", type=int, default=None, metavar="N", help="processes for tokenising (default: 1)")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_vectorize, outputs=(("-o/--output", "output", npz_file),),
                   inputs=(("the input", "input"), ("the --vocab file", "vocab")))


def _add_fit(sub):
    p = _command(sub, "fit", "fit a topic model on a corpus and save it",
                 "Fit a topic model on a corpus (from 'topicvb vectorize', or raw text counted on the way) and save "
                 "it. A model fitted on raw text keeps its vectorizer, so 'infer', 'evaluate', 'topics' and 'report' "
                 "read new text in its terms. A first Ctrl-C stops after the current iteration and saves that model "
                 "(exit status 130); a second one stops at once without saving.",
                 epilog="examples:\n"
                 "  topicvb fit corpus.npz -k 20 -o model.npz\n"
                 "  topicvb fit texts/ -k 20 -o model.npz --model batch --max-iter 200\n"
                 "  topicvb fit 20ng -k 20 -o model.npz --seed-topics seeds.json   # seeds.json: "
                 '{"space": ["nasa", "orbit"], "hockey": ["puck", "goal"]}')
    p.add_argument("corpus", help="a corpus from 'topicvb vectorize' (.npz) or any input it reads")
    p.add_argument("-o", "--output", required=True, help="the model file to write (.npz is appended if missing)")
    _add_model_options(p)
    g = p.add_argument_group("guided topics", "Give some topics seed words and names; the other topics are found "
                             "freely (see topicvb.guided).")
    g.add_argument("--seed-topics", default=None, metavar="FILE",
                   help='a JSON object of topic label -> list of seed words, such as {"space": ["nasa", "orbit"]}: '
                   "the labelled topics come first, the others are named topic_k; seed words not in the corpus "
                   "vocabulary are reported on stderr (default: none)")
    g.add_argument("--seed-confidence", type=float, default=None, metavar="C",
                   help=f"the share, in (0, 1), of a seed word's prior pseudo-counts in its seed topic (about "
                   f"C/(1-C) pseudo-occurrences with the default prior) (default: {DEFAULT_SEED_CONFIDENCE})")
    _add_input_options(p)
    _add_text_options(p)
    _add_output_options(p)
    p.set_defaults(func=cmd_fit, outputs=(("-o/--output", "output", npz_file),),
                   inputs=(("the corpus", "corpus"), ("the --vocab file", "vocab"),
                           ("the --seed-topics file", "seed_topics")),
                   on_interrupt="no model was saved")


def _add_topics(sub):
    p = _command(sub, "topics", "print the top words of a saved model's topics",
                 "Print each topic's top words; with --corpus, also its prevalence (its share of that corpus's "
                 "tokens) and its NPMI coherence in that corpus. --html and --csv also write the table.")
    p.add_argument("model", help="a model file written by 'topicvb fit'")
    p.add_argument("-n", "--n", type=int, default=10, help="words per topic")
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
    p.add_argument("-n", "--n", type=int, default=10, help="top words per topic for coherence")
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
    p.add_argument("-n", "--n", type=int, default=30, help="terms per topic in the bars")
    p.add_argument("--docs", type=int, default=3, help="example documents per topic")
    p.add_argument("--coherence", action="store_true", help="show NPMI coherence against the corpus")
    p.add_argument("--title", default=None, help="page title (default: the model's class and the corpus's name)")
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
    p.add_argument("--model", choices=_model_names(fixed_k=True), default=DEFAULT_MODEL,
                   help=_model_help(fixed_k=True))
    p.add_argument("--criterion", choices=["elbo", "heldout", "coherence"], default="heldout",
                   help="how to choose: largest final bound, smallest held-out perplexity, largest coherence "
                   "(default: heldout)")
    p.add_argument("--max-iter", type=int, default=None, metavar="N",
                   help=f"iterations per fit (default: {model_defaults('max_iter', exclude=('hdp',))})")
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
