"""Turn a stream of documents into a CSR document-term count matrix, in one pass, in chunks.

How :meth:`Vectorizer.fit_transform` streams: documents (texts or file paths) are read in chunks
of ``chunk_size``; each chunk is tokenised and counted into a compact block (the chunk's distinct
terms, then an int32 column id into them and a count for every nonzero, and the nonzeros per
document), and the blocks become CSR arrays over a vocabulary that grows as new terms appear.
Document frequencies fall out of those arrays at the end, so pruning (``min_df``, ``max_df``,
``max_features``) is a column remap of the finished matrix: no second pass, so a generator works,
and raw texts are never all in memory (memory holds the vocabulary, the counts, and the chunks
being counted).

With a :class:`Tokenizer` no Python code runs per token: the tokenizer maps each chunk's tokens to
ids in C and NumPy sorts (document, term) keys to count them (see ``Tokenizer._encode_chunk`` and
``_vectorize_pool._ids_to_block``).

With ``n_jobs > 1`` this process and ``n_jobs - 1`` forked worker processes count chunks side by
side, with the same output whatever ``n_jobs`` is; corpora under 8 million characters are counted in
this process alone. Texts in a list or tuple are split into a range per process; other sources stream
through a pool of workers. The chunk blocks and both ways are :mod:`topicvb.text._vectorize_pool`.

With ``phrases``, the phrase detector must see the whole corpus before any pair can be joined, so
the first pass keeps every document as an int32 array of token ids (4 bytes a token, not the text)
and the counts are built from those after the phrases are learned.
"""

from __future__ import annotations

import codecs
import itertools
import logging
import numbers
import os
import warnings
from collections import defaultdict
from collections.abc import Iterable, Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import check_choice, check_encoding, check_int
from ._tokenize_counting import kept_lengths
from ._vectorize_pool import _INT32_MAX, _resolve_n_jobs, build_csr, count_chunks, joined_blocks, pool_size, sort_rows
from .phrases import PhraseDetector
from .tokenize import Tokenizer
from .vocabulary import Vocabulary, check_df, prune_ids

__all__ = ["Vectorizer", "iter_batches"]

logger = logging.getLogger(__name__)


def _codec(name: str) -> str:
    """The canonical name of a codec ("UTF8" and "utf-8" are one)."""
    return codecs.lookup(name).name


def _check_corpus(X, caller: str):
    """Return an iterator over the documents of ``X`` or raise ``TypeError``."""
    if isinstance(X, (str, bytes, bytearray)):
        raise TypeError(
            f"{caller} expects an iterable of documents, got a single {type(X).__name__}. "
            "Wrap it in a list: [text]."
        )
    if sp.issparse(X) or (isinstance(X, np.ndarray) and X.ndim != 1):
        shape = getattr(X, "shape", None)
        raise TypeError(f"{caller} expects an iterable of documents (str), got an array of shape {shape}.")
    if not isinstance(X, Iterable):
        raise TypeError(f"{caller} expects an iterable of documents (str), got {type(X).__name__}.")
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # a pandas DataFrame: iterating it gives its column names
        columns = list(X.columns)
        shown = ", ".join(repr(c) for c in columns[:5]) + (", ..." if len(columns) > 5 else "")
        texty = [c for c in columns if str(c).lower() == "text"] or \
            [c for c, kind in zip(columns, getattr(X, "dtypes", [])) if getattr(kind, "kind", "") in "OU"]
        example = repr((texty or columns or ["text"])[0])
        raise TypeError(f"{caller} expects an iterable of documents (str), got a DataFrame (whose iteration gives "
                        f"its column names: {shown}); pass its column of texts, e.g. df[{example}].")
    return iter(X)


def _check_document(doc, position: int, input: str, caller: str) -> None:
    if input == "filename":
        if not isinstance(doc, (str, os.PathLike)):
            raise TypeError(
                f"{caller} with input='filename' expects file paths (str or os.PathLike); "
                f"document {position} is {type(doc).__name__}."
            )
    elif not isinstance(doc, (str, bytes, bytearray)):
        raise TypeError(f"{caller} expects each document to be str or bytes; document {position} is {type(doc).__name__}.")


# (auto_wrap_output_keys=None: its output is a sparse matrix, which scikit-learn's pandas or polars output
# cannot hold; with transform_output="pandas" set globally, scikit-learn refused to give it back at all, as
# CountVectorizer does not)
class Vectorizer(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """Count terms of a stream of documents into a sparse document-term matrix.

    Parameters
    ----------
    tokenizer : Tokenizer or callable or None, default=None
        Turns one document (str) into a list of tokens. ``None`` uses ``Tokenizer()``; a
        :class:`Tokenizer` gets a fast path that counts without per-token Python work. A subclass of
        Tokenizer that overrides ``tokenize`` or ``__call__`` makes its tokens its own way, which the
        fast path would not see: it is called once per document, like any other callable. The stop
        words of a Tokenizer are read again at the start of each fit (a list edited in place since
        its last use counts).
    phrases : bool or PhraseDetector, default=False
        Join learned two-word phrases into single terms (``new_york``). ``True`` uses
        ``PhraseDetector()``; a detector is cloned and fitted on the training documents. With a
        fixed ``vocabulary``, only the learned phrases that are terms of it are joined (the others
        would take their two words out of the counts).
    min_df : int or float, default=1
        Drop terms in fewer documents than this (an int is a count, a float in [0, 1] a fraction).
    max_df : int or float, default=1.0
        Drop terms in more documents than this (an int is a count, a float in [0, 1] a fraction).
    max_features : int or None, default=None
        Keep only this many terms, those with the largest total counts (ties broken by term).
    vocabulary : list of str, Mapping of str to int, Vocabulary, set or None, default=None
        A fixed vocabulary; the columns follow its order (a set's terms sorted) and no pruning is done.
    input : {"content", "filename"}, default="content"
        Whether the documents are texts (str or bytes) or paths of files to read.
    encoding : str, default="utf-8"
        Codec for bytes and files; undecodable bytes are replaced (and counted in a log warning).
    dtype : numpy dtype, default=np.int64
        Dtype of the counts: an integer dtype, or a floating dtype that ``scipy.sparse`` can hold
        (``float32``, ``float64``, ``longdouble``; not ``float16``, whose matrices SciPy cannot convert or
        multiply). A count it cannot hold (300 in ``np.int8``) is an error, not a wrapped value.
    chunk_size : int, default=1000
        Documents read, tokenised and counted at a time.
    n_jobs : int or None, default=None
        Processes counting at the same time (this one included); ``None`` means 1, ``-1`` all
        cores, and more than the CPUs available means as many as there are. The output does not
        depend on it. Corpora under 8 million characters (about 6,000 reviews or 4,000 news
        posts) are counted in one process whatever ``n_jobs`` is, since worker processes would not
        pay for their start-up there; larger ones are read ahead up to that size to decide. A list
        or tuple of texts is split into one contiguous range per process, each forked worker reading
        its range from its own copy (nothing is sent to it; this process, done with its range, takes
        the chunks the workers have not reached); other iterables and file names stream through a
        pool of workers, a chunk at a time (see :mod:`topicvb.text._vectorize_pool`). The finished
        matrix's rows are also sorted on that many threads.
    verbose : int, default=0
        Show a progress bar (tqdm, on stderr) when > 0.

    Attributes
    ----------
    vocabulary_ : dict
        Term to column index, as in scikit-learn's ``CountVectorizer``.
    vocab_ : Vocabulary
        The terms in column order, with document and total frequencies on the training documents.
    phrase_detector_ : PhraseDetector or None
        The fitted detector when ``phrases`` is used.
    n_docs_ : int
        Number of training documents.

    See Also
    --------
    Tokenizer : The default tokenizer and its options.
    iter_batches : Mini-batches of rows of the result.

    Notes
    -----
    With ``tokenizer=Tokenizer(normalize=None, numbers="keep", urls="keep", emails="keep",
    alphabetic=False, min_length=2, stop_words=sklearn.feature_extraction.text.ENGLISH_STOP_WORDS)``
    the matrix and feature names equal those of ``CountVectorizer(stop_words="english")`` with the
    same ``min_df``, ``max_df``, on text without combining marks, soft hyphens (U+00AD) or the joiners
    U+200C, U+200D and U+2060. Those differ on purpose: scikit-learn's pattern splits a word at each
    of them (``"infor\\u00admation"`` gives ``"infor"`` and ``"mation"``), while the Tokenizer removes a
    soft hyphen (``"information"``) and keeps a mark or a joiner in its word (see :class:`Tokenizer`).

    With the default :class:`Tokenizer` the counting runs without Python code per token (the
    tokens of a chunk become ids in C, NumPy counts them), which makes it faster than
    ``CountVectorizer(stop_words="english")`` in one process (1.25x in wall time, 1.33x in CPU
    time on the 20 Newsgroups training posts, see ``benchmarks/results/text.md``); a tokenizer of
    your own (any callable) is called once per document and its tokens counted with
    :class:`collections.Counter`.

    Examples
    --------
    >>> vec = Vectorizer(tokenizer=Tokenizer(stop_words="english"))
    >>> X = vec.fit_transform(["Topic models find topics.", "Models of text."])
    >>> vec.get_feature_names_out().tolist()
    ['find', 'models', 'text', 'topic', 'topics']
    >>> X.toarray()
    array([[1, 1, 0, 1, 1],
           [0, 1, 1, 0, 0]])
    """

    def __init__(
        self,
        *,
        tokenizer=None,
        phrases=False,
        min_df=1,
        max_df=1.0,
        max_features=None,
        vocabulary=None,
        input="content",
        encoding="utf-8",
        dtype=np.int64,
        chunk_size=1000,
        n_jobs=None,
        verbose=0,
    ):
        self.tokenizer = tokenizer
        self.phrases = phrases
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.vocabulary = vocabulary
        self.input = input
        self.encoding = encoding
        self.dtype = dtype
        self.chunk_size = chunk_size
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags

    # ------------------------------------------------------------------ checks
    def _check_params(self) -> None:
        if self.tokenizer is not None and not callable(self.tokenizer):
            raise TypeError(
                f"tokenizer must be a Tokenizer, a callable returning a list of tokens, or None; "
                f"got {type(self.tokenizer).__name__}."
            )
        if isinstance(self.tokenizer, Tokenizer):
            self.tokenizer._check_params()
        check_encoding(self.encoding)
        if isinstance(self.tokenizer, Tokenizer) and _codec(self.tokenizer.encoding) not in (
                _codec(self.encoding), _codec(Tokenizer().encoding)):  # (a tokenizer's own choice, not its default)
            # (the Vectorizer decodes bytes and files itself, before its tokenizer sees them)
            warnings.warn(f"tokenizer.encoding={self.tokenizer.encoding!r} is not used inside a Vectorizer, which "
                          f"decodes bytes and files with its own encoding={self.encoding!r}: pass "
                          f"encoding={self.tokenizer.encoding!r} to the Vectorizer (or the same encoding to both).",
                          UserWarning, stacklevel=3)
        if not isinstance(self.phrases, (bool, np.bool_, PhraseDetector)):
            raise TypeError(f"phrases must be a bool or a PhraseDetector, got {type(self.phrases).__name__}.")
        if isinstance(self.phrases, PhraseDetector):
            self.phrases._check_params()
        check_df(self.min_df, "min_df")
        check_df(self.max_df, "max_df")
        if isinstance(self.min_df, numbers.Integral) == isinstance(self.max_df, numbers.Integral):
            if self.min_df > self.max_df:
                raise ValueError(
                    f"min_df must not be above max_df, got min_df={self.min_df!r} and max_df={self.max_df!r}. "
                    "Lower min_df or raise max_df."
                )
        if self.max_features is not None:
            check_int(self.max_features, "max_features", min_val=1)
        check_choice(self.input, "input", {"content", "filename"})
        try:
            dtype = np.dtype(self.dtype)
        except TypeError:
            raise TypeError(f"dtype must be a NumPy numeric dtype, got {self.dtype!r}.") from None
        if not (np.issubdtype(dtype, np.integer) or np.issubdtype(dtype, np.floating)):
            raise ValueError(f"dtype must be an integer or floating dtype, got {dtype}.")
        if dtype == np.float16:  # (the one NumPy float type scipy.sparse does not support)
            raise ValueError("dtype=float16 is not supported by scipy.sparse (SciPy cannot convert or multiply such "
                             "a matrix); use float32, float64 or an integer dtype.")
        check_int(self.chunk_size, "chunk_size", min_val=1)
        _resolve_n_jobs(self.n_jobs)
        check_int(self.verbose, "verbose", min_val=0)

    def _fixed_vocabulary(self) -> Vocabulary | None:
        voc = self.vocabulary
        if voc is None:
            return None
        if isinstance(voc, Vocabulary):
            out = Vocabulary(voc.terms)
        elif isinstance(voc, Mapping):
            out = Vocabulary.from_mapping(voc)
        elif isinstance(voc, (str, bytes)) or not isinstance(voc, Iterable):
            raise TypeError(
                f"vocabulary must be a list of terms, a mapping term -> column, a Vocabulary or None; "
                f"got {type(voc).__name__}."
            )
        elif isinstance(voc, (set, frozenset)):  # (no order of its own: sorted, as scikit-learn's CountVectorizer does)
            out = Vocabulary(sorted(voc, key=str))  # (key: a non-str term gets Vocabulary's own error)
        else:
            out = Vocabulary(voc)
        if len(out) == 0:
            raise ValueError("vocabulary must hold at least one term, got an empty one.")
        return out

    def _tokenizer(self):
        return Tokenizer() if self.tokenizer is None else self.tokenizer

    # ------------------------------------------------------------------ the chunk pipeline
    def _run(self, X, caller: str, mode: str, detector):
        """Yield per-chunk results, in input order, tokenised in this process or in workers
        (:func:`~topicvb.text._vectorize_pool.count_chunks`)."""
        it = _check_corpus(X, caller)
        n_jobs = pool_size(self.n_jobs)
        job = (self._tokenizer(), self.input, self.encoding, mode, detector)
        total = len(X) if hasattr(X, "__len__") else None
        bar = None
        if self.verbose > 0:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=caller, unit="doc")
        stats = {"replaced": 0, "docs": 0}

        def checked(chunk, position):
            for i, doc in enumerate(chunk):
                _check_document(doc, position + i, self.input, caller)
            return chunk

        def chunks():
            position = 0
            while True:
                chunk = list(itertools.islice(it, self.chunk_size))
                if not chunk:
                    return
                yield checked(chunk, position)
                position += len(chunk)

        def account(result):
            out, n_docs, n_replaced, n_bad = result
            stats["replaced"] += n_replaced
            stats["docs"] += n_bad
            if bar is not None:
                bar.update(n_docs)
            return out

        sizes = chunk_range = None  # texts in memory: the characters of each chunk, and chunks by index
        if n_jobs > 1 and self.input == "content" and isinstance(X, (list, tuple)):
            try:
                lengths = [len(doc) for doc in X]
            except TypeError:  # (a document that is not text: chunks() says which)
                lengths = None
            if lengths is not None:
                size = self.chunk_size
                sizes = [sum(lengths[i:i + size]) for i in range(0, len(lengths), size)]

                def by_index(first, stop):  # chunks first..stop-1, reading no other document (count_chunks)
                    for c in range(first, stop):
                        yield checked(list(X[c * size:(c + 1) * size]), c * size)

                chunk_range = by_index
        try:
            yield from map(account, count_chunks(chunks(), job, n_jobs, caller, sizes, chunk_range))
        finally:
            if bar is not None:
                bar.close()
            if stats["replaced"]:
                logger.warning(
                    "%s replaced %d undecodable byte sequence(s) in %d document(s) (encoding=%r).",
                    caller, stats["replaced"], stats["docs"], self.encoding,
                )

    def _finish_matrix(self, indices, data, lengths, n_cols: int) -> sp.csr_matrix:
        indptr = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        idx_dtype = np.int32 if indptr[-1] <= _INT32_MAX else np.int64
        _check_counts_fit(data, self.dtype)
        X = sp.csr_matrix(
            (data.astype(self.dtype, copy=False), indices.astype(np.int32), indptr.astype(idx_dtype)),
            shape=(lengths.shape[0], n_cols),
        )
        # sorts the indices (on n_jobs threads); sums repeats from a tokenizer mapping two tokens to one term
        sort_rows(X, pool_size(self.n_jobs))
        return X

    # ------------------------------------------------------------------ phrases
    def _fit_phrases(self, X, caller: str, fixed=None):
        """The fitted detector and the count blocks of X's documents with its phrases joined. With a fixed
        vocabulary (``fixed``) only the phrases among its terms are joined: the others would drop their parts.

        The documents are read once: their token ids are kept (4 bytes a token) while the phrases are learned,
        then joined and counted from those (``_vectorize_pool.joined_blocks``), with no Python work per token
        when the tokenizer is a :class:`Tokenizer` (its chunks come as ids)."""
        detector = clone(self.phrases) if isinstance(self.phrases, PhraseDetector) else PhraseDetector()
        detector._check_params()
        detector._reset()
        stored = []
        for chunk in self._run(X, caller, "tokens", None):
            if isinstance(chunk, tuple):  # (terms, ids, lengths) of a Tokenizer's chunk
                stored.append(detector._count_encoded(*chunk))
            else:
                stored.append(detector._count_chunk(chunk, offset=detector.n_docs_, who=caller))
        index = detector._index  # (the token ids of stored; the detector lets its counts go when finished)
        detector._finish(keep_counts=False)
        if fixed is not None:
            kept = [pair for pair in detector.phrases_ if detector.delimiter.join(pair) in fixed.index]
            if len(kept) < len(detector.phrases_):
                logger.info("%s: %d of %d learned phrases are not in the fixed vocabulary and are not joined.",
                            caller, len(detector.phrases_) - len(kept), len(detector.phrases_))
            detector.scores_ = {pair: detector.scores_[pair] for pair in kept}
            detector.phrases_ = kept
        return detector, joined_blocks(detector, index, stored)

    # ------------------------------------------------------------------ public API
    def fit(self, X, y=None):
        """Learn the vocabulary (and phrases) from documents.

        Parameters
        ----------
        X : iterable of str, bytes or path
            Documents (``input="content"``) or file paths (``input="filename"``); a generator works.
        y : None
            Ignored.

        Returns
        -------
        self : Vectorizer
            The fitted vectorizer.
        """
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Learn the vocabulary and return the document-term matrix, in one pass over ``X``.

        Parameters
        ----------
        X : iterable of str, bytes or path
            Documents (``input="content"``) or file paths (``input="filename"``); a generator works.
        y : None
            Ignored.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_docs, n_terms)
            Term counts with sorted int32 column indices.

        Raises
        ------
        ValueError
            If there are no documents, no terms, no terms left after pruning, a bad parameter,
            or an unreadable file.
        TypeError
            If ``X`` is a single string or holds something other than documents.
        """
        self._check_params()
        if isinstance(self.tokenizer, Tokenizer):  # (a list edited in place since the last fit: as CountVectorizer)
            self.tokenizer._reread_stop_words()
        caller = "Vectorizer.fit"
        fixed = self._fixed_vocabulary()
        if isinstance(self.phrases, PhraseDetector) or bool(self.phrases):  # (np.False_ is not False)
            detector, chunks = self._fit_phrases(X, caller, fixed)
        else:
            detector, chunks = None, self._run(X, caller, "count", None)
        if fixed is not None:
            lookup = fixed.index
        else:
            lookup = defaultdict()
            lookup.default_factory = lookup.__len__
        indices, data, lengths = build_csr(chunks, lookup, grow=fixed is None)
        if fixed is None:
            lookup.default_factory = None  # (no reference cycle left: see _raw_type_ids)
        n_docs = lengths.shape[0]
        if n_docs == 0:
            raise ValueError(f"{caller} received 0 documents; pass at least one non-empty document.")
        n_cols = len(fixed) if fixed is not None else len(lookup)
        if n_cols == 0:
            raise ValueError(
                f"{caller} found no terms in {n_docs} document(s); they are empty or contain only stop words. "
                "Check the tokenizer settings."
            )
        df = np.bincount(indices, minlength=n_cols)
        tf = np.bincount(indices, weights=data, minlength=n_cols).astype(np.int64)
        if fixed is not None:
            vocab = Vocabulary(fixed.terms, doc_freq=df, term_freq=tf, n_docs=n_docs)
            Xout = self._finish_matrix(indices, data, lengths, n_cols)
        else:
            terms = list(lookup)
            old_ids = prune_ids(terms, df, tf, n_docs, min_df=self.min_df, max_df=self.max_df,
                                max_features=self.max_features)
            vocab = Vocabulary([terms[j] for j in old_ids.tolist()], doc_freq=df[old_ids], term_freq=tf[old_ids],
                               n_docs=n_docs)
            new_id = np.full(n_cols, -1, dtype=np.int64)
            new_id[old_ids] = np.arange(old_ids.shape[0])
            indices = new_id[indices]
            kept = indices >= 0
            if not kept.all():
                lengths = kept_lengths(kept, lengths)
                indices, data = indices[kept], data[kept]
            Xout = self._finish_matrix(indices, data, lengths, len(vocab))
            logger.info("%s: %d documents, %d terms, %d kept after pruning.", caller, n_docs, n_cols, len(vocab))
        self.vocab_ = vocab
        self.vocabulary_ = dict(vocab.index)
        self.phrase_detector_ = detector
        self.n_docs_ = int(n_docs)
        return Xout

    def transform(self, X):
        """Count the fitted vocabulary's terms in documents (other terms are ignored).

        Parameters
        ----------
        X : iterable of str, bytes or path
            Documents or file paths, as in :meth:`fit`; a generator works.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_docs, n_terms)
            Term counts with sorted int32 column indices.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        """
        check_is_fitted(self, "vocabulary_")
        self._check_params()
        chunks = self._run(X, "Vectorizer.transform", "count", self.phrase_detector_)
        indices, data, lengths = build_csr(chunks, self.vocab_.index, grow=False)
        return self._finish_matrix(indices, data, lengths, len(self.vocab_))

    def set_output(self, *, transform=None):
        """Accepted for scikit-learn's ``set_output`` API, which a Pipeline passes to each step: the counts stay a
        sparse matrix whatever ``transform`` asks (a pandas or polars frame cannot hold them), while the steps
        after this one give the output asked for (a topic model's document-topic frame).

        Returns
        -------
        self
        """
        return self

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Terms of the columns, in order.

        Parameters
        ----------
        input_features : None
            Ignored (present for scikit-learn compatibility).

        Returns
        -------
        ndarray of str of shape (n_terms,)
            The terms (object dtype, like scikit-learn).
        """
        check_is_fitted(self, "vocabulary_")
        return np.asarray(self.vocab_.terms, dtype=object)


def iter_batches(X, batch_size: int, shuffle: bool = False, random_state=None):
    """Yield mini-batches of rows of a document-term matrix.

    Parameters
    ----------
    X : sparse matrix or array-like of shape (n_docs, n_terms)
        The matrix; converted to CSR.
    batch_size : int
        Rows per batch (the last batch may be smaller).
    shuffle : bool, default=False
        Visit the rows in a random order.
    random_state : int, RandomState instance or None, default=None
        Seed for the shuffle.

    Yields
    ------
    scipy.sparse.csr_matrix of shape (n_batch, n_terms)
        Consecutive row slices (or shuffled row selections).

    Raises
    ------
    TypeError
        If ``batch_size`` is not an int.
    ValueError
        If ``batch_size`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> [b.shape for b in iter_batches(np.eye(5), batch_size=2)]
    [(2, 5), (2, 5), (1, 5)]
    """
    check_int(batch_size, "batch_size", min_val=1)
    X = X.tocsr() if sp.issparse(X) else sp.csr_matrix(np.asarray(X))
    n = X.shape[0]
    if shuffle:
        order = check_random_state(random_state).permutation(n)
        for start in range(0, n, batch_size):
            yield X[order[start: start + batch_size]]
    else:
        for start in range(0, n, batch_size):
            yield X[start: start + batch_size]


def _check_counts_fit(data: np.ndarray, dtype) -> None:
    """A ValueError naming ``dtype`` when the largest count in ``data`` is beyond what it holds (a cast would wrap
    an integer, or make a float infinite)."""
    if data.size == 0:
        return
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype) if dtype.kind == "f" else None
    largest = data.max()
    if info is not None and largest > info.max:
        raise ValueError(f"dtype={dtype.name} cannot hold the counts: a term occurs {int(largest)} times in a "
                         f"document, above its largest value {info.max}; use a wider dtype (the default is int64).")
