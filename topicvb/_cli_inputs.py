"""The command line's inputs: formats, encodings, ``--vocab``, and which options apply (text columns:
:mod:`topicvb._cli_columns`).

- The format comes from the name (``--format`` overrides it); a folder is a text folder.
- CSV and JSON lines need no ``--text-column`` when the text is obvious: a column (field) named
  ``text``, or a single column of strings (of several, a single one with spaces in it);
  otherwise the error lists the columns.
- ``--encoding`` applies to everything read as text: text folders, CSV, JSON lines and
  vocabulary files (20 Newsgroups posts are latin-1).
- ``--vocab`` gives the terms of the columns: for a count matrix (UCI, LDA-C, MatrixMarket, a
  plain SciPy ``.npz``) a vocabulary file names its columns, as before; a saved model or corpus
  (``.npz``) makes the input a matrix over that model's or corpus's vocabulary, so a held-out
  corpus can be evaluated: raw text is counted with the model's saved vectorizer (same tokenizer
  and phrases) or over the fixed terms, and a corpus's columns are matched term by term (terms
  outside the vocabulary are dropped). A vocabulary file with raw text fixes the vocabulary.
- An option given for an input it does not apply to (``--min-df`` for a corpus already counted,
  ``--text-column`` for a folder, ...) is ignored with a warning, never silently.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from numbers import Integral
from pathlib import Path
from typing import NamedTuple

from ._cli_columns import csv_delimiter, text_column

logger = logging.getLogger("topicvb.cli")

FORMATS = ("auto", "npz", "textdir", "lines", "csv", "jsonl", "uci", "ldac", "mm", "20ng")
TEXT_FORMATS = ("textdir", "lines", "csv", "jsonl", "20ng")
DEFAULT_ENCODING = "utf-8"
DEFAULT_SUBSET = "train"
# The command line's text defaults (Python's: Tokenizer(stop_words=None), Vectorizer(min_df=1, max_df=1.0)).
TEXT_DEFAULTS = {"min_df": 5, "max_df": 0.5, "max_features": None, "stop_words": "english", "stem": None,
                 "phrases": False, "clean_email": False}
TOKENIZER_OPTIONS = ("stop_words", "stem", "phrases", "clean_email")
PRUNING_OPTIONS = ("min_df", "max_df", "max_features")


def flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def given(args, dest: str) -> bool:
    """Whether the option was given (the options checked here default to None or False)."""
    value = getattr(args, dest, None)
    return value is not None and value is not False


def text_option(args, dest: str):
    """The value of a text option: as given, else the command line's default."""
    value = getattr(args, dest, None)
    return TEXT_DEFAULTS[dest] if value is None else value


def encoding(args) -> str:
    return getattr(args, "encoding", None) or DEFAULT_ENCODING


def encoding_hint(message: str) -> str:
    """A reader's message with the command-line option in place of the Python parameter."""
    return message.replace("pass the right encoding=.", "pass the right --encoding (for example --encoding latin-1).")


def option_names(message: str, args=None) -> str:
    """A reader's message with the command-line options in place of the Python parameters: ``--encoding``,
    ``--vocab`` for ``vocab_path`` (the file given as ``--vocab``), and with ``args`` the Vectorizer's
    ``min_df``/``max_df`` message as ``--min-df``/``--max-df``, saying which values are the defaults."""
    message = re.sub(r"\bvocab_path\b(?!=)", "--vocab", encoding_hint(message))
    if args is not None:
        def shown(dest, value):
            return f"{flag(dest)} {value}" + ("" if given(args, dest) else " (the default)")

        message = re.sub(r"^min_df=(\S+) asks for more documents than max_df=(\S+) allows (\(.*\))\. "
                         r"Lower min_df or raise max_df\.$",
                         lambda m: f"{shown('min_df', m[1])} asks for more documents than {shown('max_df', m[2])} "
                                   f"allows {m[3]}. Lower --min-df or raise --max-df.", message)
    return message


def _check_df_bounds(args) -> None:
    """``--min-df`` not above ``--max-df`` (as given, else the command line's defaults) when both are counts or
    both fractions, named as options (the Vectorizer checks the same, naming its parameters)."""
    low, high = text_option(args, "min_df"), text_option(args, "max_df")
    if isinstance(low, Integral) == isinstance(high, Integral) and low > high:
        def shown(dest, value):
            return f"{flag(dest)} {value!r}" + ("" if given(args, dest) else " (the default)")

        raise ValueError(f"{shown('min_df', low)} must not be above {shown('max_df', high)}; lower --min-df or "
                         "raise --max-df.")


# ----------------------------------------------------------------------------- formats
def _uncompressed_name(name: str) -> str:
    """``name`` without a compression suffix (``.gz``, ``.bz2``, ``.xz``)."""
    for suffix in (".gz", ".bz2", ".xz"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def detect_format(path: str, fmt: str) -> str:
    """The input format of ``path``: ``fmt`` unless "auto", else from the name (a folder is text)."""
    if fmt != "auto":
        return fmt
    p = Path(path)
    name = p.name.lower()
    if path.lower() in ("20newsgroups", "20ng"):
        return "20ng"
    if not p.exists():  # say so, rather than fail to guess the format of a mistyped name
        raise FileNotFoundError(f"{path!r} does not exist. Check the path.")
    if p.is_dir():
        return "textdir"
    if name.endswith(".npz"):
        return "npz"
    base = _uncompressed_name(name)  # (the readers decompress gzip, bz2 and xz by content)
    if base.endswith((".csv", ".tsv")):
        return "csv"
    if base.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    if base.endswith(".mtx"):
        return "mm"
    if name.startswith("docword"):
        return "uci"
    if base.endswith((".dat", ".ldac")):
        return "ldac"
    if base.endswith(".txt"):  # (after docword.*.txt: a plain text file holds one document per line)
        return "lines"
    raise ValueError(f"cannot tell the format of {path!r} from its name; pass --format "
                     "{npz,textdir,lines,csv,jsonl,uci,ldac,mm,20ng} (a folder of text files is read as textdir, "
                     "a .txt file as lines: one document per line).")


def npz_kind(path) -> str | None:
    """What a ``.npz`` file holds: "model" (topicvb fit), "corpus" (topicvb vectorize), "matrix"
    (scipy.sparse.save_npz), or None (not a readable .npz). Only the archive's directory is read."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as npz:
            entries = set(getattr(npz, "files", ()))
    except Exception:
        return None
    if "meta" in entries:
        return "model"
    if "meta_json" in entries:
        return "corpus"
    if {"format", "shape"} <= entries:
        return "matrix"
    return None


def check_file(path, what: str) -> None:
    """A clear error for a missing path or a folder where a file is expected."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{what} {str(path)!r} does not exist. Check the path.")
    if p.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder; give a file.")


# ----------------------------------------------------------------------------- target vocabulary
class TargetVocabulary(NamedTuple):
    """The terms a held-out input is counted over (``--vocab MODEL|CORPUS|FILE``)."""

    terms: list
    vectorizer: object  # a model's saved vectorizer (counts raw text exactly as its training text), or None
    source: str  # for messages: "the model 'm.npz'"
    options: dict | None = None  # the text options a corpus was counted with (text_options_of), when it says


def text_options_of(vectorizer) -> dict:
    """The command line's text options a Vectorizer counts with (``{"stop_words": "english", "stem": "none",
    "phrases": False, "clean_email": False}``; "custom" for stop words or a stemmer the options cannot name), as
    ``topicvb vectorize`` records them in a corpus (:attr:`topicvb.datasets.Corpus.text_options`)."""
    tokenizer = getattr(vectorizer, "tokenizer", None)
    stop = getattr(tokenizer, "stop_words", None)
    stem = getattr(tokenizer, "stemmer", None)
    return {"stop_words": "none" if stop is None else stop if isinstance(stop, str) else "custom",
            "stem": "none" if stem is None else stem if isinstance(stem, str) else "custom",
            "phrases": bool(getattr(vectorizer, "phrases", False)),
            "clean_email": getattr(tokenizer, "clean", None) == "email"}


def _shown_options(options: dict, keys) -> str:
    return ", ".join(f"{flag(k)} {options.get(k)}" if not isinstance(options.get(k), bool)
                     else flag(k) if options.get(k) else f"no {flag(k)}" for k in keys)


def check_same_text_options(target: TargetVocabulary, vectorizer) -> None:
    """Warn when texts are counted over a corpus's vocabulary with other text options than the corpus's own
    (``--vocab corpus.npz`` made with ``--stem porter``, these texts without it: few of its stems are words, so
    most tokens are silently dropped)."""
    if target.options is None or vectorizer is None:
        return
    mine = text_options_of(vectorizer)
    differ = [k for k in mine if k in target.options and target.options[k] != mine[k]]
    if differ:
        logger.warning("%s was counted with %s, these texts with %s: its terms may not be the tokens these options "
                       "make (tokens of no term are dropped); give the same text options.", target.source,
                       _shown_options(target.options, differ), _shown_options(mine, differ))


def is_vocabulary_npz(path) -> bool:
    """Whether ``--vocab path`` names a saved model or corpus (rather than a vocabulary text file)."""
    if path is None:
        return False
    if str(path).lower().endswith(".npz"):
        return True
    return Path(path).is_file() and npz_kind(path) is not None


def read_target_vocabulary(path) -> TargetVocabulary:
    """The vocabulary of a saved model (with its vectorizer, if saved) or corpus, for ``--vocab``."""
    from topicvb.datasets._npz import numbered_vocabulary

    check_file(path, "--vocab")
    kind = npz_kind(path)
    options = None
    if kind == "model":
        from topicvb.persistence import read

        record = read(path)
        source = f"the model {str(path)!r}"
        terms = None if record.vocabulary is None else [str(t) for t in record.vocabulary]
    elif kind == "corpus":
        from topicvb.datasets._corpus import read_saved_vocabulary

        record, source = None, f"the corpus {str(path)!r}"
        # (its terms only, checked as Corpus.load checks them: not its counts or texts)
        terms, options = read_saved_vocabulary(path)
    elif kind == "matrix":
        raise ValueError(f"--vocab {str(path)!r} is a plain SciPy matrix, which has no terms; give a model "
                         "(topicvb fit), a corpus (topicvb vectorize) or a vocabulary file (one term per line).")
    else:
        raise ValueError(f"--vocab {str(path)!r} is neither a topicvb model or corpus (.npz) nor readable as one; "
                         "give a model, a corpus or a vocabulary file (one term per line).")
    if not terms:
        raise ValueError(f"{source} has no vocabulary to count over.")
    if terms == numbered_vocabulary(len(terms)):
        raise ValueError(f"{source} has numbered terms ('0', '1', ...: it was made from a plain matrix without "
                         "--vocab), so there are no words to count; give a model or corpus with real terms.")
    return TargetVocabulary(terms, None if record is None else record.vectorizer, source, options)


def reindex(corpus, terms: list, source: str):
    """``corpus`` with its columns matched, term by term, to ``terms`` (others dropped): (corpus, tokens dropped)."""
    import numpy as np
    import scipy.sparse as sp

    index = {t: j for j, t in enumerate(terms)}
    target = np.fromiter((index.get(t, -1) for t in corpus.vocabulary), dtype=np.int64, count=corpus.n_terms)
    keep = np.flatnonzero(target >= 0)
    if keep.size == 0:
        raise ValueError(f"the corpus {corpus.name!r} shares no term with {source}; were they made from the same "
                         "kind of text?")
    mapping = sp.csr_matrix((np.ones(keep.size, dtype=corpus.X.dtype), (keep, target[keep])),
                            shape=(corpus.n_terms, len(terms)))
    X = (corpus.X @ mapping).tocsr()
    dropped = corpus.n_tokens - X.sum()
    return dataclasses.replace(corpus, X=X, vocabulary=list(terms),
                               description=(corpus.description + f" Columns matched to {source}.").strip()), dropped


# ----------------------------------------------------------------------------- options that apply
def warn_unused(args, used: set, why: dict, reason: str = "not used for this input") -> None:
    """One warning per input option given that the input did not use (``why[dest]``: the reason, else ``reason``)."""
    for dest in ("text_column", "label_column", "subset", "encoding", *TOKENIZER_OPTIONS, *PRUNING_OPTIONS):
        if hasattr(args, dest) and given(args, dest) and dest not in used:
            logger.warning("%s does not apply here (%s); ignored.", flag(dest), why.get(dest, reason))


# ----------------------------------------------------------------------------- reading
class TextCounter:
    """The vectorizer a dataset reader is given: ``before()`` runs when counting starts (it takes
    the status line away, so the Vectorizer's own bar stands alone), and with ``fitted`` its
    ``fit_transform`` only transforms, so a new corpus is counted in a saved model's terms (its
    vocabulary, tokenizer settings and phrases)."""

    def __init__(self, vectorizer, *, fitted: bool, before=None):
        self.vectorizer, self.fitted, self.before = vectorizer, fitted, before

    def fit_transform(self, texts, y=None):
        if self.before is not None:
            self.before()
        if self.fitted:
            return self.vectorizer.transform(texts)
        return self.vectorizer.fit_transform(texts)

    def get_feature_names_out(self):
        return self.vectorizer.get_feature_names_out()


def new_vectorizer(args, extra_stop_words=(), *, vocabulary=None, verbose: int = 0):
    """A Vectorizer with the command line's text options (and its defaults, :data:`TEXT_DEFAULTS`). Over a fixed
    ``vocabulary`` nothing is pruned, so the pruning options (ignored there, with a warning) are left out."""
    from topicvb.text import ENGLISH_STOP_WORDS, Tokenizer, Vectorizer

    stop_words = text_option(args, "stop_words")
    stop_words = None if stop_words == "none" else stop_words
    if extra_stop_words:
        stop_words = sorted(set(extra_stop_words) | (ENGLISH_STOP_WORDS if stop_words == "english" else set()))
    tokenizer = Tokenizer(stop_words=stop_words, stemmer=text_option(args, "stem"),
                          clean="email" if text_option(args, "clean_email") else None)
    pruning = {}
    if vocabulary is None:
        _check_df_bounds(args)
        pruning = {dest: text_option(args, dest) for dest in PRUNING_OPTIONS}
    return Vectorizer(tokenizer=tokenizer, phrases=text_option(args, "phrases"), **pruning,
                      vocabulary=vocabulary, n_jobs=getattr(args, "n_jobs", None), verbose=verbose)


def _has_own_terms(corpus) -> bool:
    """Whether the corpus's columns have terms (not the numbers a matrix read without vocabulary gets)."""
    from topicvb.datasets._bow import placeholder_vocabulary
    from topicvb.datasets._npz import numbered_vocabulary

    n = corpus.n_terms
    return corpus.vocabulary not in (numbered_vocabulary(n), placeholder_vocabulary(n))


def _read_counts(path: str, fmt: str, args, target, used: set, why: dict):
    """A count-matrix input (npz, UCI, LDA-C, MatrixMarket), its columns matched to ``target`` if given."""
    from topicvb import datasets
    from topicvb.datasets._npz import read_npz

    p = Path(path)
    counted = f"{str(path)!r} is a count matrix, already counted"
    why.update({d: counted for d in (*TOKENIZER_OPTIONS, *PRUNING_OPTIONS)})
    vocab_file = None if target is not None else getattr(args, "vocab", None)
    if vocab_file is not None:
        used.update(("encoding", "vocab"))
    else:
        why["encoding"] = "nothing in this input is read as text"
    enc = encoding(args)
    if fmt == "npz":
        check_file(p, "the input")
        if npz_kind(p) == "model":
            raise ValueError(f"{str(path)!r} is a model file (written by 'topicvb fit'), not a corpus; give a corpus "
                             "('topicvb vectorize') or raw text.")
        corpus = read_npz(p, vocab_file, encoding=enc)
    elif fmt == "uci":
        corpus = datasets.read_uci(p, vocab_file, encoding=enc)
    elif fmt == "ldac":
        corpus = datasets.read_ldac(p, vocab_file, encoding=enc)
    else:
        corpus = datasets.read_matrix_market(p, vocab_file, encoding=enc)
    if target is None:
        return corpus
    used.add("vocab")
    if not _has_own_terms(corpus):
        raise ValueError(
            f"{str(path)!r} has no terms of its own to match with {target.source}; give it its vocabulary first "
            f"('topicvb vectorize {path} --vocab VOCAB.txt -o with_terms.npz'), then match that corpus "
            f"('topicvb vectorize with_terms.npz --vocab {getattr(args, 'vocab')} -o matched.npz').")
    if target.vectorizer is not None and corpus.texts is not None:
        # the corpus kept its texts and the model its vectorizer: count them again exactly as the
        # training text was counted (matching columns would lose the terms the corpus's own pruning dropped)
        target.vectorizer.set_params(verbose=0)
        X = target.vectorizer.transform(corpus.texts)
        logger.info("counted the %d texts of %s with the saved vectorizer of %s.", corpus.n_docs, path, target.source)
        return dataclasses.replace(corpus, X=X, vocabulary=list(target.terms),
                                   description=(corpus.description + f" Counted again with the vectorizer of "
                                                f"{target.source}.").strip())
    matched, dropped = reindex(corpus, target.terms, target.source)
    logger.info("matched the %d terms of %s to the %d terms of %s; %d tokens of other terms dropped.",
                corpus.n_terms, path, len(target.terms), target.source, dropped)
    return matched


def read_corpus(path: str, args, vectorizer=None, *, progress):
    """:func:`read_any` with a status line ("reading PATH ...") on a terminal."""
    with progress.stage(f"reading {path}") as end_status:
        return read_any(path, args, vectorizer, progress=progress, before_counting=end_status)


def read_any(path: str, args, vectorizer=None, *, progress, before_counting=None):
    """Read any supported input: a saved corpus, a bag-of-words file, a text folder, table or 20ng.

    Raw text is counted with ``vectorizer`` (a saved model's, given by the command), else with
    the vectorizer of the model or corpus in ``--vocab`` (or over its terms), else with a new
    vectorizer built from the text options. ``args.fitted_vectorizer`` is set to the vectorizer
    that counted it (None for count-matrix input). Options given that do not apply to this input
    are ignored with a warning.
    """
    args.fitted_vectorizer = None
    fmt = detect_format(path, getattr(args, "format", "auto"))
    used, why = set(), {}
    why.update({"text_column": "only CSV and JSON lines have columns", "label_column":
                "only CSV and JSON lines have columns", "subset": "only for the 20 Newsgroups input '20ng'"})
    vocab = getattr(args, "vocab", None)
    target = None
    if vocab is not None and is_vocabulary_npz(vocab):
        target = read_target_vocabulary(vocab)
    elif vocab is not None:
        check_file(vocab, "--vocab")
    try:
        if fmt not in TEXT_FORMATS:
            corpus = _read_counts(path, fmt, args, target, used, why)
        else:
            corpus = _read_text(path, fmt, args, vectorizer, target, used, why, progress, before_counting)
            fixed = args.fitted_vectorizer
            if vectorizer is None and (target is None or target.vectorizer is None) and fixed is not None \
                    and fixed.vocabulary is not None:
                check_fixed_counts(corpus, fixed, target.source if target is not None else f"--vocab {str(vocab)!r}")
                if target is not None:
                    check_same_text_options(target, fixed)
    except ValueError as exc:
        message = option_names(str(exc), args)
        if message != str(exc):
            raise ValueError(message) from None
        raise
    if vocab is not None and "vocab" not in used:
        logger.warning("--vocab does not apply here (the model's saved vectorizer counts the text); ignored.")
    warn_unused(args, used, why)
    return corpus


def check_fixed_counts(corpus, vec, source: str) -> None:
    """Texts counted over a vocabulary fixed beforehand (``--vocab`` naming a corpus, a model without its
    vectorizer, or a file), with the command line's text options: a ValueError when no token was counted (the
    vocabulary was made with other options, or is not one of words), and, without stemming, phrases or e-mail
    cleaning, a warning naming the terms that these options can never produce (a capital letter, a stop word, a
    space: a column of zeros)."""
    tokenizer = vec.tokenizer
    # (a stem need not stem to itself; phrase terms are joined after tokenizing; e-mail cleaning reads whole texts)
    if tokenizer is not None and getattr(tokenizer, "stemmer", None) is None and not vec.phrases \
            and getattr(tokenizer, "clean", None) is None:
        terms = list(vec.vocabulary)
        never = [t for t in terms if tokenizer(t) != [t]]
        if never:
            shown = ", ".join(f"{t!r} -> {tokenizer(t)!r}" for t in never[:5]) + (", ..." if len(never) > 5 else "")
            logger.warning("%d of the %d terms of %s can never be counted with these text options (the tokenizer "
                           "makes %s): their columns stay 0.", len(never), len(terms), source, shown)
    if corpus.X.sum() > 0:
        return
    texts = getattr(corpus, "texts", None)
    if texts is not None and not any(str(t).strip() for t in texts):
        return  # (empty texts: nothing to count)
    raise ValueError(f"no token of these texts is a term of {source}: was its vocabulary made with other text "
                     "options (--stem, --stop-words, --clean-email)? Give the same options, or a model saved with "
                     "its vectorizer.")


def _read_text(path, fmt, args, vectorizer, target, used, why, progress, before_counting):
    """A raw-text input counted by the right vectorizer (see :func:`read_any`)."""
    from topicvb import datasets

    p = Path(path)
    enc = encoding(args)
    if fmt == "20ng":
        used.add("subset")
        why["encoding"] = "20 Newsgroups posts are read as latin-1"
    else:
        used.add("encoding")
    if fmt in ("csv", "jsonl"):
        used.update(("text_column", "label_column"))
    saved = vectorizer if vectorizer is not None else None if target is None else target.vectorizer
    if saved is not None:
        if vectorizer is None:
            used.add("vocab")
        reason = "the text is counted with the model's saved vectorizer, with its own settings"
        why.update({d: reason for d in (*TOKENIZER_OPTIONS, *PRUNING_OPTIONS)})
        saved.set_params(verbose=progress.vectorizer_verbose)
        counter = TextCounter(saved, fitted=True, before=before_counting)
        args.fitted_vectorizer = saved
    else:
        fixed = None
        if target is not None:
            fixed = target.terms
        elif getattr(args, "vocab", None) is not None:
            from topicvb.datasets import read_vocabulary

            fixed = read_vocabulary(args.vocab, "--vocab", enc)
            used.add("encoding")
        used.update(TOKENIZER_OPTIONS)
        if fixed is None:
            used.update(PRUNING_OPTIONS)
        else:
            used.add("vocab")
            why.update({d: "the vocabulary is fixed by --vocab, so nothing is pruned" for d in PRUNING_OPTIONS})
        vec = new_vectorizer(args, vocabulary=fixed, verbose=progress.vectorizer_verbose)
        counter = TextCounter(vec, fitted=False, before=before_counting)
        args.fitted_vectorizer = vec
    if fmt == "20ng":
        return datasets.load_20newsgroups(subset=args.subset or DEFAULT_SUBSET, vectorizer=counter)
    if fmt == "textdir":
        if not p.is_dir():
            raise ValueError(f"{str(path)!r} is not a folder; --format textdir reads a folder of text files (a file "
                             "with one document per line is --format lines).")
        return datasets.read_text_dir(p, vectorizer=counter, encoding=enc)
    if fmt == "lines":
        if p.is_dir():
            raise ValueError(f"{str(path)!r} is a folder; --format lines reads one text file with one document per "
                             "line (a folder of text files is --format textdir).")
        return datasets.read_lines(p, vectorizer=counter, encoding=enc)
    column = text_column(p, fmt, args, progress.note, enc)
    if fmt == "csv":
        return datasets.read_csv(p, column, args.label_column, vectorizer=counter, encoding=enc,
                                 delimiter=csv_delimiter(p))
    return datasets.read_jsonl(p, column, args.label_column, vectorizer=counter, encoding=enc)
