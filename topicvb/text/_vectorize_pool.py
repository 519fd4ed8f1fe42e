"""The Vectorizer's chunk counting: chunk blocks, and the pool of worker processes that counts them.

:class:`topicvb.text.Vectorizer` hands its chunks of documents to :func:`count_chunks`, which counts
each into a compact block (the chunk's distinct terms, then an int32 column id into them and a count
for every nonzero, and the nonzeros per document), and joins the blocks into CSR arrays with
:func:`build_csr`.

With ``n_jobs > 1`` this process and ``n_jobs - 1`` forked worker processes count chunks side by
side, in one of two ways:

* a list or tuple of texts held in memory (``input="content"``) is split up front into contiguous
  ranges of chunks, one per process, by their characters (:func:`run_split`): each forked worker
  already holds the texts, so none are sent to it, counts its range from the front and sends its blocks
  back once, at the end, while this process counts the first range and then takes the chunks that the
  workers have not reached yet from the back of their ranges, so that all end together;
* any other source (a generator, file names) streams through a pool (:func:`run_parallel`): a chunk
  goes to a worker while fewer than two per worker are queued, otherwise this process counts it
  itself (up to a little less than its fair share, since it also merges).

Workers send back blocks over their own numbering of the terms (arrays, and only the terms they had
not sent before), never per-document dictionaries; blocks are merged in input order, so the output
never depends on ``n_jobs``. Corpora under :data:`_PARALLEL_MIN_CHARS` characters are counted in
this process alone, since starting workers would cost more than they save; for a stream the
decision reads ahead at most that much text.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import logging
import multiprocessing
import numbers
import os
import pickle
import sys
import traceback
from collections import Counter, defaultdict, deque

import numpy as np
import scipy.sparse as sp

from ._decode import decode_counted
from ._tokenize_counting import kept_lengths
from .phrases import join_phrase_ids, joined_chunk
from .tokenize import Tokenizer

logger = logging.getLogger("topicvb.text.vectorize")  # the Vectorizer's records, whichever module writes them

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
#: With texts in memory (:func:`run_split`), this process's first range of characters weighs this much
#: against each worker's 1. A little less than a fair share: this process starts counting before the
#: workers start, and a worker takes about a tenth longer for the same text (25,000 IMDB reviews), so that
#: this process usually ends its range first and then takes chunks from the back of the workers' ranges
#: (a worker that ends first has nothing more to take).
_SPLIT_MAIN_WEIGHT = 0.9


# ---------------------------------------------------------------------------- worker side
# A job is (tokenizer, input, encoding, mode, detector); mode "count" returns a chunk block of
# term counts, mode "tokens" returns token lists (for phrase learning), or, from a Tokenizer that counts
# natively, the chunk's (terms, ids, lengths) (``Tokenizer._encode_chunk``: no Python work per token).
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


def _counts_natively(tokenizer) -> bool:
    """Whether ``tokenizer`` is a :class:`Tokenizer` whose fast counting (``_encode_chunk``) gives the terms of its
    calls: not a subclass that makes its tokens its own way (see ``Tokenizer._counts_natively``), which is called
    per document like any other callable."""
    if not isinstance(tokenizer, Tokenizer):
        return False
    return (tokenizer.__dict__.get("_compiled") or tokenizer._compile()).counts_natively


def joined_blocks(detector, index, stored):
    """The chunk blocks of a fit's documents with the fitted ``detector``'s phrases joined: ``stored`` holds each
    chunk's token ids (into ``index``, the detector's term index while it counted) and lengths. The phrases are
    joined over the ids (:func:`~topicvb.text.phrases.join_phrase_ids`); a joined phrase spelled as a token of
    the documents is that term, as a Counter of the joined tokens counts it."""
    pairs = sorted(detector.phrases_, key=lambda pair: (index[pair[0]] << 32) | index[pair[1]])
    keys = np.array([(index[a] << 32) | index[b] for a, b in pairs], dtype=np.int64)
    terms = list(index)
    joined_ids = []
    for pair in pairs:
        joined = detector.delimiter.join(pair)
        joined_ids.append(index.get(joined, len(terms)))
        if joined_ids[-1] == len(terms):
            terms.append(joined)
    joined_ids = np.array(joined_ids, dtype=np.int64)
    for ids, lengths in stored:
        joined, lengths = join_phrase_ids(ids, lengths, keys, joined_ids)
        local, inverse = np.unique(joined, return_inverse=True)
        yield (*_ids_to_block([terms[j] for j in local.tolist()], inverse.astype(np.int32).ravel(), lengths), None)


def _tokens(tokenizer, text):
    """``tokenizer(text)``, refused unless it is an iterable of tokens (a callable that returns None or a str
    would count a document as empty, or as its characters)."""
    tokens = tokenizer(text)
    if tokens is None or isinstance(tokens, (str, bytes)) or not hasattr(tokens, "__iter__"):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise TypeError(f"the tokenizer returned {type(tokens).__name__} for the document {shown!r}; a tokenizer "
                        "must return the document's tokens (a list of str).")
    return tokens


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
    if mode == "tokens" and _counts_natively(tokenizer):
        results = tokenizer._encode_chunk(texts)
    elif mode == "tokens":
        results = [list(_tokens(tokenizer, text)) for text in texts]
    else:
        if detector is None and _counts_natively(tokenizer):
            results = _ids_to_block(*tokenizer._encode_chunk(texts))
        elif detector is not None and _counts_natively(tokenizer):  # (phrases joined over the chunk's ids)
            results = _ids_to_block(*joined_chunk(detector, *tokenizer._encode_chunk(texts)))
        elif detector is not None:
            results = _counts_to_block([Counter(detector.apply(list(_tokens(tokenizer, text)))) for text in texts])
        else:
            results = _counts_to_block([Counter(_tokens(tokenizer, text)) for text in texts])
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


def pool_size(n_jobs) -> int:
    """Processes to count with: ``n_jobs`` resolved (None: 1, -1: all cores), at most the CPUs available."""
    return min(_resolve_n_jobs(n_jobs), _available_cpus())


def _can_fork() -> bool:
    """Whether :func:`run_split` may fork: on Linux only (macOS's system libraries are not fork-safe,
    which is why Python spawns there; elsewhere there is no fork)."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def _worker_context():
    """The multiprocessing context of the worker processes, of :func:`run_split` and :func:`run_parallel` alike:
    ``"fork"`` where forking is safe (:func:`_can_fork`), whatever start method the program set (``"spawn"``, or
    ``"forkserver"``, Linux's default from Python 3.14), so that the workers inherit the compiled tokenizer and
    its classified token types, and a tokenizer that cannot be pickled (a lambda, a local function) works;
    elsewhere the default context."""
    return multiprocessing.get_context("fork" if _can_fork() else None)


class WorkerTraceback(Exception):
    """The traceback of an exception raised in a worker process (the ``__cause__`` of the one raised here)."""

    def __str__(self):
        return "\n" + str(self.args[0]) if self.args else ""


def _count_range(chunk_range, job, slot: int, claims, lock, conn) -> None:
    """A forked worker of :func:`run_split`: count the chunks of its range from the front, claiming each
    (``claims[2 slot]``, the next chunk, below ``claims[2 slot + 1]``, the range's end, which this process
    lowers as it takes chunks from the back), and send ``("ok", [(chunk, result), ...])``, or ``("error",
    exception, traceback text)``, through ``conn``. ``chunk_range(c, c + 1)`` reads only chunk c, so only
    its documents' memory is copied into this process."""
    try:
        _init_worker(job)
        done = []
        while True:
            with lock:
                chunk = claims[2 * slot]
                if chunk >= claims[2 * slot + 1]:
                    break
                claims[2 * slot] = chunk + 1
            done.append((chunk, _process_chunk(next(iter(chunk_range(chunk, chunk + 1))))))
        payload = pickle.dumps(("ok", done), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # (sent to the main process, which raises it)
        text = traceback.format_exc()
        try:
            payload = pickle.dumps(("error", exc, text), protocol=pickle.HIGHEST_PROTOCOL)
            pickle.loads(payload)  # (an exception class that cannot be rebuilt from its args fails here)
        except Exception:
            payload = pickle.dumps(("error", RuntimeError(f"{type(exc).__name__}: {exc}"), text))
    try:
        conn.send_bytes(payload)
    except OSError:  # the main process stopped listening (it failed, or was interrupted)
        pass
    conn.close()


def split_bounds(sizes, n_procs: int) -> list[int]:
    """Chunk indices ``[0, b_1, ..., n]`` that cut the chunks (``sizes``: characters of each) into
    ``n_procs`` contiguous ranges of about equal characters, the first weighing :data:`_SPLIT_MAIN_WEIGHT`
    against the others' 1; every range holds at least one chunk."""
    n = len(sizes)
    cum = np.cumsum(np.asarray(sizes, dtype=np.float64))
    total = cum[-1] if n else 0.0
    weights = np.array([_SPLIT_MAIN_WEIGHT] + [1.0] * (n_procs - 1))
    targets = total * np.cumsum(weights)[:-1] / weights.sum()
    bounds = [0]
    for i, target in enumerate(targets, start=1):
        j = int(np.searchsorted(cum, target, side="left"))  # the first chunk whose end reaches the target
        if j > 0 and target - cum[j - 1] < cum[min(j, n - 1)] - target:
            j -= 1  # the chunk before ends nearer to it
        bounds.append(min(max(j + 1, bounds[-1] + 1), n - (n_procs - i)))
    bounds.append(n)
    return bounds


def _steal(claims, lock, workers) -> tuple[int, int] | None:
    """Take the last unclaimed chunk of the worker range with the most left, as ``(slot, chunk)``; None
    when every range is claimed, or when the lock stays taken while a worker has died (a worker killed
    inside its claim would hold it for ever; the dead worker is reported when its message is read)."""
    while not lock.acquire(timeout=1.0):
        if any(not process.is_alive() for process, _ in workers):
            return None
    try:
        left = [claims[2 * w + 1] - claims[2 * w] for w in range(len(workers))]
        slot = int(np.argmax(left))
        if left[slot] <= 0:
            return None
        claims[2 * slot + 1] -= 1
        return slot, claims[2 * slot + 1]
    finally:
        lock.release()


def run_split(chunk_range, job, n_jobs: int, sizes):
    """Yield the chunk results in order, counted by this process and ``n_jobs - 1`` forked workers.

    The chunks (``sizes``: the characters of each) are cut into contiguous ranges (:func:`split_bounds`),
    the first for this process and one per worker. ``chunk_range(first, stop)`` yields chunks ``first`` to
    ``stop - 1`` of texts held in memory, reading no other document: a forked worker reads its chunks from
    its own copy of the texts (none is sent to it, and only its chunks' memory is copied into it) and sends
    its results once, at the end. A worker counts its range from the front; this process, done with its
    own range, takes the workers' chunks from the back (the claims are shared integers under a lock), so
    that the processes finish together even when one runs slower than its share assumed. The first chunk
    is counted here before the fork, so that the workers inherit the tokenizer's classification of the
    commonest token types. On any exit (an error here or in a worker, an interruption, the consumer closing
    the generator) the workers are stopped."""
    n_procs = max(1, min(n_jobs, len(sizes)))
    bounds = split_bounds(sizes, n_procs)
    mine = chunk_range(0, bounds[1])
    first = next(mine, None)
    if first is None:
        return
    yield _process_chunk(first, job)
    context = _worker_context()  # (fork: count_chunks calls this only where _can_fork)
    claims = context.RawArray("q", [b for w in range(1, n_procs) for b in (bounds[w], bounds[w + 1])])
    lock = context.Lock()
    workers = []
    try:
        for slot in range(n_procs - 1):
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_count_range, args=(chunk_range, job, slot, claims, lock, send),
                                      daemon=True)
            process.start()
            send.close()
            workers.append((process, receive))
        for chunk in mine:
            yield _process_chunk(chunk, job)
        taken = [[] for _ in workers]  # per worker range: (chunk, result) counted here, from the back
        while (claim := _steal(claims, lock, workers)) is not None:
            slot, chunk = claim
            taken[slot].append((chunk, _process_chunk(next(iter(chunk_range(chunk, chunk + 1))), job)))
        for (process, receive), stolen in zip(workers, taken):
            try:
                message = pickle.loads(receive.recv_bytes())
            except EOFError:
                process.join()
                raise RuntimeError(f"a Vectorizer worker process ended without sending its chunks (exit code "
                                   f"{process.exitcode}).") from None
            if message[0] != "ok":
                raise message[1] from WorkerTraceback(message[2])
            for _, result in message[1] + stolen[::-1]:  # (the worker's from the front, then ours, in order)
                yield result
    finally:
        for process, receive in workers:
            receive.close()  # (a worker still writing gets a broken pipe)
            if process.is_alive():
                process.kill()  # (SIGKILL: a worker inherits this process's handlers, which may ignore SIGTERM)
            process.join()


# ---------------------------------------------------------------------------- counting the chunks
def count_chunks(source, job, n_jobs: int, caller: str, sizes=None, chunk_range=None):
    """Yield the results of the chunks of ``source`` in order (see :func:`_process_chunk`).

    ``sizes`` and ``chunk_range``, when given, describe the same chunks held in memory: the characters of
    each chunk, and ``chunk_range(first, stop)`` yielding chunks ``first`` to ``stop - 1``. With ``n_jobs > 1``
    a corpus of at least :data:`_PARALLEL_MIN_CHARS` is then split between this process and ``n_jobs - 1``
    forked workers (:func:`run_split`; on Linux, where forking is safe). Otherwise, with
    ``n_jobs > 1``, the chunks are read ahead up to :data:`_PARALLEL_MIN_CHARS`: a smaller corpus is
    counted in this process alone, a larger one by this process and ``n_jobs - 1`` workers
    (:func:`run_parallel`).
    """
    if n_jobs > 1 and sizes is not None and chunk_range is not None and _can_fork():
        if sum(sizes) >= _PARALLEL_MIN_CHARS and len(sizes) > 1:
            logger.debug("%s: counting with this process and %d forked worker process(es), a range each.", caller,
                         min(n_jobs, len(sizes)) - 1)
            if isinstance(job[0], Tokenizer):  # compiled once here, inherited by the forked workers
                job[0].__dict__.get("_compiled") or job[0]._compile()
            yield from run_split(chunk_range, job, n_jobs, sizes)
        else:
            for chunk in source:
                yield _process_chunk(chunk, job)
        return
    parallel = False
    if n_jobs > 1:
        # read ahead up to _PARALLEL_MIN_CHARS: a smaller corpus is counted here alone
        head, size = [], 0
        for chunk in source:
            head.append(chunk)
            size += _chunk_chars(chunk, job[1])
            if size >= _PARALLEL_MIN_CHARS:
                parallel = True
                break
        source = itertools.chain(head, source)
        del head
    if not parallel:
        for chunk in source:
            yield _process_chunk(chunk, job)
    else:
        logger.debug("%s: counting with this process and %d worker process(es).", caller, n_jobs - 1)
        if isinstance(job[0], Tokenizer):  # compiled once here, inherited by forked workers
            job[0].__dict__.get("_compiled") or job[0]._compile()
        yield from run_parallel(source, job, n_jobs)


def run_parallel(source, job, n_jobs: int):
    """Yield the chunk results of ``source`` in order, counted by this process and
    ``n_jobs - 1`` workers.

    The first chunk is counted here before the workers start, so that they inherit (by fork, on
    Linux whatever the global start method: :func:`_worker_context`) the compiled tokenizer and
    the classification of the commonest token types. Then a chunk goes to a worker while fewer
    than ``_CHUNKS_PER_WORKER`` per worker are queued or running;
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
    with cf.ProcessPoolExecutor(max_workers=n_jobs - 1, mp_context=_worker_context(), initializer=_init_worker,
                                initargs=(job,)) as pool:
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


def build_csr(blocks, lookup, grow: bool):
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
            lengths = kept_lengths(known, lengths)
            indices, data = indices[known], data[known]
    return indices, data, lengths


#: A finished matrix with at least this many nonzeros sorts its rows on ``n_jobs`` threads (SciPy's
#: row sort releases the GIL); smaller ones are sorted on one.
_THREADED_SORT_MIN_NNZ = 1_000_000


def sort_rows(X, n_threads: int) -> None:
    """Sort the column indices of each row of the CSR matrix ``X`` in place (summing repeated columns),
    as ``X.sum_duplicates()``, with the rows cut into ``n_threads`` ranges of about equal nonzeros sorted
    side by side: each range is a CSR matrix over views of ``X``'s arrays, and SciPy sorts without the GIL."""
    nnz = X.indices.shape[0]
    if n_threads > 1 and nnz >= _THREADED_SORT_MIN_NNZ:
        cuts = np.searchsorted(X.indptr, np.arange(1, n_threads) * (nnz // n_threads))
        bounds = [0, *sorted(set(cuts.tolist()) - {0, X.shape[0]}), X.shape[0]]
        parts = []
        for r0, r1 in zip(bounds[:-1], bounds[1:]):
            m0, m1 = int(X.indptr[r0]), int(X.indptr[r1])
            # the views are set after construction: SciPy's constructor copies an index or data array that is
            # a view of less than half its base (to free the base), which would sort a copy
            part = sp.csr_matrix((r1 - r0, X.shape[1]), dtype=X.dtype)
            part.indptr = (X.indptr[r0:r1 + 1] - m0).astype(X.indices.dtype, copy=False)
            part.indices = X.indices[m0:m1]
            part.data = X.data[m0:m1]
            if not (np.shares_memory(part.indices, X.indices) and np.shares_memory(part.data, X.data)):
                parts = None  # (the arrays were copied after all: sort in one piece instead)
                break
            parts.append(part)
        if parts and len(parts) > 1:
            with cf.ThreadPoolExecutor(max_workers=len(parts) - 1) as pool:
                futures = [pool.submit(part.sort_indices) for part in parts[1:]]
                parts[0].sort_indices()
                for future in futures:
                    future.result()
            X.has_sorted_indices = True
    X.sum_duplicates()  # (sorted already: checks the format, and sums repeats from a non-injective tokenizer)
