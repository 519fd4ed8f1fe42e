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
:func:`_ids_to_block`).

With ``n_jobs > 1`` this process and ``n_jobs - 1`` forked worker processes count chunks side by
side (see :meth:`Vectorizer._run_parallel`): a chunk goes to a worker while fewer than two per
worker are queued, otherwise this process counts it itself (up to a little less than its fair
share, since it also merges). Workers receive texts a chunk at a time and send back blocks over
their own numbering of the terms (arrays, and only the terms they had not sent before), never
per-document dictionaries; blocks are merged in input order, so the output never depends on
``n_jobs``. Corpora under :data:`_PARALLEL_MIN_CHARS` characters are counted in this process
alone, since starting workers would cost more than they save; the decision reads ahead at most
that much text.

With ``phrases``, the phrase detector must see the whole corpus before any pair can be joined, so
the first pass keeps every document as an int32 array of token ids (4 bytes a token, not the text)
and the counts are built from those after the phrases are learned.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import logging
import numbers
import os
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._validation import check_choice, check_encoding, check_int
from ._decode import decode_counted
from .phrases import PhraseDetector
from .tokenize import Tokenizer
from .vocabulary import Vocabulary, check_df, prune_ids

__all__ = ["Vectorizer", "iter_batches"]

logger = logging.getLogger(__name__)

_INT32_MAX = np.iinfo(np.int32).max

#: Below this many characters of text (bytes of files with ``input="filename"``), ``n_jobs > 1``
#: counts in this process alone: worker start-up and the transfers would cost more than they save.
_PARALLEL_MIN_CHARS = 8_000_000
#: Chunks queued or running per worker process; more decouple the processes (one that is not
#: scheduled for a while does not stall the other) at the cost of texts held in memory.
_CHUNKS_PER_WORKER = 2
#: This process counts at most this share of a fair ``1 / n_jobs`` of the chunks: it also merges
#: the workers' results and builds the matrix at the end.
_MAIN_SHARE = 0.85


# ---------------------------------------------------------------------------- worker side
# A job is (tokenizer, input, encoding, mode, detector); mode "count" returns a chunk block of
# term counts, mode "tokens" returns token lists (for phrase learning).
_WORKER_JOB = None
# A worker's own numbering of the terms it has met (term -> id), so that each term is sent to the
# main process once, not once per chunk (see _send_block)
_WORKER_TERMS = None


def _init_worker(job) -> None:
    global _WORKER_JOB, _WORKER_TERMS
    _WORKER_JOB = job
    _WORKER_TERMS = defaultdict()
    _WORKER_TERMS.default_factory = _WORKER_TERMS.__len__


def _send_block(block):
    """A worker's chunk block over its own term numbering: ``(new_terms, ids, data, lengths, pid)``.

    ``new_terms`` are the terms the worker had not sent before, in the order of its ids; ``ids``
    number the nonzeros' terms in the worker's numbering. The main process keeps, per worker,
    the global column of each of the worker's ids, so it looks each term up once per worker
    (instead of once per chunk) and far fewer strings are pickled.
    """
    terms, local_ids, data, lengths = block
    table = _WORKER_TERMS
    before = len(table)
    ids = np.fromiter(map(table.__getitem__, terms), dtype=np.int64, count=len(terms))
    new_terms = list(itertools.compress(terms, (ids >= before).tolist()))
    return new_terms, ids[local_ids].astype(np.int32), data, lengths, os.getpid()


def _read_document(doc, input: str, encoding: str):
    """Text of one document and the number of undecodable byte sequences replaced."""
    if input == "filename":
        try:
            with open(doc, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise ValueError(
                f"Could not read document file {os.fspath(doc)!r} (input='filename'): {exc.strerror or exc}."
            ) from None
        return decode_counted(data, encoding)
    if isinstance(doc, str):
        return doc, 0
    return decode_counted(bytes(doc), encoding)


def _counts_to_block(counts_list):
    """Pack per-document term counts into a chunk block with a chunk-local vocabulary.

    Returns ``(terms, indices, data, lengths)``: the chunk's distinct terms, then for every
    nonzero its local term id (int32) and count (int64), and the number of nonzeros of each
    document. Small to pickle, and mapped to global ids with one lookup per distinct term.
    """
    local = defaultdict()
    local.default_factory = local.__len__
    getitem = local.__getitem__
    indices, data, lengths = [], [], []
    for counts in counts_list:
        indices.extend(map(getitem, counts))
        data.extend(counts.values())
        lengths.append(len(counts))
    return (
        list(local),
        np.array(indices, dtype=np.int32),
        np.array(data, dtype=np.int64),
        np.array(lengths, dtype=np.int64),
    )


def _ids_to_block(terms, ids, lengths):
    """Count a chunk's token ids per document into a chunk block (see :func:`_counts_to_block`).

    ``ids`` are the term ids (into ``terms``) of the chunk's tokens, document after document, and
    ``lengths`` the number of tokens of each document. The (document, term) pairs are packed into
    one integer key each and sorted; runs of equal keys are the counts. The columns of each
    document come out sorted by local id.
    """
    n_docs, n_terms = lengths.shape[0], len(terms)
    if ids.shape[0] == 0:
        return terms, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(n_docs, dtype=np.int64)
    key_dtype = np.int32 if n_docs * n_terms <= _INT32_MAX else np.int64
    key = np.repeat(np.arange(n_docs, dtype=key_dtype), lengths)
    key *= n_terms
    key += ids
    key.sort()
    first = np.empty(key.shape[0], dtype=bool)
    first[0] = True
    np.not_equal(key[1:], key[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    unique = key[starts]
    counts = np.diff(starts, append=key.shape[0])
    rows = unique // n_terms
    cols = (unique - rows * n_terms).astype(np.int32, copy=False)
    count_dtype = np.int32 if key.shape[0] <= _INT32_MAX else np.int64
    return terms, cols, counts.astype(count_dtype), np.bincount(rows, minlength=n_docs).astype(np.int64)


def _process_chunk(chunk, job=None):
    """Tokenise one chunk; return (result, number of documents, replaced byte sequences,
    documents with replacements). The result is a chunk block (mode "count") or token lists."""
    tokenizer, input, encoding, mode, detector = job if job is not None else _WORKER_JOB
    texts, n_replaced, n_bad_docs = [], 0, 0
    for doc in chunk:
        text, n = _read_document(doc, input, encoding)
        if n:
            n_replaced += n
            n_bad_docs += 1
        texts.append(text)
    if mode == "tokens":
        results = [list(tokenizer(text)) for text in texts]
    else:
        if detector is None and isinstance(tokenizer, Tokenizer):
            results = _ids_to_block(*tokenizer._encode_chunk(texts))
        elif detector is not None:
            results = _counts_to_block([Counter(detector.apply(list(tokenizer(text)))) for text in texts])
        else:
            results = _counts_to_block([Counter(tokenizer(text)) for text in texts])
        # in a worker: over the worker's own term numbering; here: over the chunk's terms
        results = _send_block(results) if job is None else (*results, None)
    return results, len(chunk), n_replaced, n_bad_docs


def _chunk_chars(chunk, input: str) -> int:
    """Size of a chunk for the parallel threshold: characters, or bytes of the files."""
    if input != "filename":
        return sum(map(len, chunk))
    size = 0
    for path in chunk:
        try:
            size += os.stat(path).st_size
        except OSError:  # reported when the file is read
            pass
    return size


class _Done:
    """A chunk counted in this process, queued among the workers' futures."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def done(self) -> bool:
        return True

    def result(self):
        return self.value


# ---------------------------------------------------------------------------- helpers
def _resolve_n_jobs(n_jobs) -> int:
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None, a positive int or a negative int (-1 = all cores), got {n_jobs!r}.")
    n_cpu = os.cpu_count() or 1
    return int(n_jobs) if n_jobs > 0 else max(1, n_cpu + 1 + int(n_jobs))


def _available_cpus() -> int:
    """CPUs this process may run on (more processes than that only add start-up and transfers)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


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


class Vectorizer(TransformerMixin, BaseEstimator):
    """Count terms of a stream of documents into a sparse document-term matrix.

    Parameters
    ----------
    tokenizer : Tokenizer or callable or None, default=None
        Turns one document (str) into a list of tokens. ``None`` uses ``Tokenizer()``; a
        :class:`Tokenizer` gets a fast path that counts without per-token Python work.
    phrases : bool or PhraseDetector, default=False
        Join learned two-word phrases into single terms (``new_york``). ``True`` uses
        ``PhraseDetector()``; a detector is cloned and fitted on the training documents.
    min_df : int or float, default=1
        Drop terms in fewer documents than this (an int is a count, a float in [0, 1] a fraction).
    max_df : int or float, default=1.0
        Drop terms in more documents than this (an int is a count, a float in [0, 1] a fraction).
    max_features : int or None, default=None
        Keep only this many terms, those with the largest total counts (ties broken by term).
    vocabulary : list of str, Mapping of str to int, Vocabulary or None, default=None
        A fixed vocabulary; the columns follow its order and no pruning is done.
    input : {"content", "filename"}, default="content"
        Whether the documents are texts (str or bytes) or paths of files to read.
    encoding : str, default="utf-8"
        Codec for bytes and files; undecodable bytes are replaced (and counted in a log warning).
    dtype : numpy dtype, default=np.int64
        Dtype of the counts.
    chunk_size : int, default=1000
        Documents read, tokenised and counted at a time.
    n_jobs : int or None, default=None
        Processes counting at the same time (this one included); ``None`` means 1, ``-1`` all
        cores, and more than the CPUs available means as many as there are. The output does not
        depend on it. Corpora under 8 million characters (about 6,000 reviews or 4,000 news
        posts) are counted in one process whatever ``n_jobs`` is, since worker processes would not
        pay for their start-up there; larger ones are read ahead up to that size to decide.
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
    same ``min_df``, ``max_df``.

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
        if not isinstance(self.phrases, (bool, PhraseDetector)):
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
        check_encoding(self.encoding)
        try:
            dtype = np.dtype(self.dtype)
        except TypeError:
            raise TypeError(f"dtype must be a NumPy numeric dtype, got {self.dtype!r}.") from None
        if not (np.issubdtype(dtype, np.integer) or np.issubdtype(dtype, np.floating)):
            raise ValueError(f"dtype must be an integer or floating dtype, got {dtype}.")
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
        else:
            out = Vocabulary(voc)
        if len(out) == 0:
            raise ValueError("vocabulary must hold at least one term, got an empty one.")
        return out

    def _tokenizer(self):
        return Tokenizer() if self.tokenizer is None else self.tokenizer

    # ------------------------------------------------------------------ the chunk pipeline
    def _run(self, X, caller: str, mode: str, detector):
        """Yield per-chunk results, in input order, tokenised in this process or in workers."""
        it = _check_corpus(X, caller)
        n_jobs = min(_resolve_n_jobs(self.n_jobs), _available_cpus())
        job = (self._tokenizer(), self.input, self.encoding, mode, detector)
        total = len(X) if hasattr(X, "__len__") else None
        bar = None
        if self.verbose > 0:
            from tqdm.auto import tqdm

            bar = tqdm(total=total, desc=caller, unit="doc")
        stats = {"replaced": 0, "docs": 0}

        def chunks():
            position = 0
            while True:
                chunk = list(itertools.islice(it, self.chunk_size))
                if not chunk:
                    return
                for i, doc in enumerate(chunk):
                    _check_document(doc, position + i, self.input, caller)
                position += len(chunk)
                yield chunk

        def account(result):
            out, n_docs, n_replaced, n_bad = result
            stats["replaced"] += n_replaced
            stats["docs"] += n_bad
            if bar is not None:
                bar.update(n_docs)
            return out

        try:
            source, parallel = chunks(), False
            if n_jobs > 1:
                # read ahead up to _PARALLEL_MIN_CHARS: a smaller corpus is counted here alone
                head, size = [], 0
                for chunk in source:
                    head.append(chunk)
                    size += _chunk_chars(chunk, self.input)
                    if size >= _PARALLEL_MIN_CHARS:
                        parallel = True
                        break
                source = itertools.chain(head, source)
                del head
            if not parallel:
                for chunk in source:
                    yield account(_process_chunk(chunk, job))
            else:
                logger.debug("%s: counting with this process and %d worker process(es).", caller, n_jobs - 1)
                if isinstance(job[0], Tokenizer):  # compiled once here, inherited by forked workers
                    job[0].__dict__.get("_compiled") or job[0]._compile()
                yield from map(account, self._run_parallel(source, job, n_jobs))
        finally:
            if bar is not None:
                bar.close()
            if stats["replaced"]:
                logger.warning(
                    "%s replaced %d undecodable byte sequence(s) in %d document(s) (encoding=%r).",
                    caller, stats["replaced"], stats["docs"], self.encoding,
                )

    @staticmethod
    def _run_parallel(source, job, n_jobs: int):
        """Yield the chunk results of ``source`` in order, counted by this process and
        ``n_jobs - 1`` workers.

        The first chunk is counted here before the workers start, so that they inherit (by fork)
        the compiled tokenizer and the classification of the commonest token types. Then a chunk
        goes to a worker while fewer than ``_CHUNKS_PER_WORKER`` per worker are queued or running;
        otherwise this process counts it, unless it has already counted its share
        (``_MAIN_SHARE / n_jobs`` of the chunks: it also merges the results and builds the
        matrix at the end), in which case it waits for the oldest worker result. At most twice
        the workers' queue of results wait for an earlier chunk, so memory stays bounded.
        """
        first = next(source, None)
        if first is None:
            return
        yield _process_chunk(first, job)
        window = _CHUNKS_PER_WORKER * (n_jobs - 1)
        share = _MAIN_SHARE / n_jobs
        n_chunks, n_here = 1, 1
        with cf.ProcessPoolExecutor(max_workers=n_jobs - 1, initializer=_init_worker, initargs=(job,)) as pool:
            pending = deque()  # futures and chunks counted here, in input order
            busy = 0  # futures in pending that are not known to be done
            for chunk in source:
                n_chunks += 1
                while len(pending) >= 2 * window:  # a slow worker: wait for it
                    yield pending.popleft().result()
                if busy >= window:
                    busy = sum(1 for f in pending if not f.done())
                while busy >= window and n_here >= share * n_chunks and pending:
                    # the workers are busy and this process has done its share: wait for a result
                    yield pending.popleft().result()
                    busy = sum(1 for f in pending if not f.done())
                if busy < window:
                    pending.append(pool.submit(_process_chunk, chunk))
                    busy += 1
                else:  # the workers have enough: count this chunk here
                    pending.append(_Done(_process_chunk(chunk, job)))
                    n_here += 1
                while pending and pending[0].done():
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()

    @staticmethod
    def _build_csr(blocks, lookup, grow: bool):
        """Join chunk blocks into CSR arrays over the growing (``grow``) or fixed ``lookup``.

        A block is ``(terms, ids, data, lengths, source)``: with ``source`` None, ``ids`` index
        ``terms``, the chunk's terms; otherwise ``source`` names a worker, ``ids`` its own term
        numbering, and ``terms`` the terms it numbered since its previous block (see
        :func:`_send_block`). Returns int64 arrays ``indices`` (global column ids; duplicates
        within a row are possible only with a non-injective tokenizer and are summed later),
        ``data`` and ``lengths``.
        """
        ind_parts, dat_parts, len_parts = [], [], []
        workers = {}  # worker -> global column of each of its term ids
        for terms, local_ids, data, lengths, source in blocks:
            if grow:
                gids = np.fromiter(map(lookup.__getitem__, terms), dtype=np.int64, count=len(terms))
            else:
                gids = np.fromiter(map(lookup.get, terms, itertools.repeat(-1)), dtype=np.int64, count=len(terms))
            if source is not None:
                known = workers.get(source)
                if known is not None:
                    gids = np.concatenate((known, gids))
                workers[source] = gids
            ind_parts.append(gids[local_ids])
            dat_parts.append(data)
            len_parts.append(lengths)
        indices = np.concatenate(ind_parts) if ind_parts else np.zeros(0, dtype=np.int64)
        data = np.concatenate(dat_parts) if dat_parts else np.zeros(0, dtype=np.int64)
        lengths = np.concatenate(len_parts) if len_parts else np.zeros(0, dtype=np.int64)
        if not grow:  # drop terms outside the fixed vocabulary
            known = indices >= 0
            if not known.all():
                rows = np.repeat(np.arange(lengths.shape[0]), lengths)
                lengths = np.bincount(rows[known], minlength=lengths.shape[0])
                indices, data = indices[known], data[known]
        return indices, data, lengths

    def _finish_matrix(self, indices, data, lengths, n_cols: int) -> sp.csr_matrix:
        indptr = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        idx_dtype = np.int32 if indptr[-1] <= _INT32_MAX else np.int64
        X = sp.csr_matrix(
            (data.astype(self.dtype, copy=False), indices.astype(np.int32), indptr.astype(idx_dtype)),
            shape=(lengths.shape[0], n_cols),
        )
        X.sum_duplicates()  # sorts the indices; sums repeats from a tokenizer mapping two tokens to one term
        return X

    # ------------------------------------------------------------------ phrases
    def _fit_phrases(self, X, caller: str):
        detector = clone(self.phrases) if isinstance(self.phrases, PhraseDetector) else PhraseDetector()
        detector._check_params()
        detector._reset()
        stored = []
        for token_lists in self._run(X, caller, "tokens", None):
            stored.append(detector._count_chunk(token_lists))
        id_to_token = np.array(list(detector._index), dtype=object)
        detector._finish(keep_counts=False)
        apply = detector.apply

        def count_chunks():
            for ids, lengths in stored:
                tokens = id_to_token[ids].tolist()
                counts_list, start = [], 0
                for n in lengths.tolist():
                    counts_list.append(Counter(apply(tokens[start: start + n])))
                    start += n
                yield (*_counts_to_block(counts_list), None)

        return detector, count_chunks()

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
        caller = "Vectorizer.fit"
        fixed = self._fixed_vocabulary()
        if self.phrases is not False:
            detector, chunks = self._fit_phrases(X, caller)
        else:
            detector, chunks = None, self._run(X, caller, "count", None)
        if fixed is not None:
            lookup = fixed.index
        else:
            lookup = defaultdict()
            lookup.default_factory = lookup.__len__
        indices, data, lengths = self._build_csr(chunks, lookup, grow=fixed is None)
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
                rows = np.repeat(np.arange(n_docs), lengths)
                lengths = np.bincount(rows[kept], minlength=n_docs)
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
        indices, data, lengths = self._build_csr(chunks, self.vocab_.index, grow=False)
        return self._finish_matrix(indices, data, lengths, len(self.vocab_))

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
    ValueError
        If ``batch_size`` is not a positive int.

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
