"""Streaming a corpus from disk in mini-batches, for out-of-core training with ``partial_fit``.

Memory is bounded by a few batches (plus one read chunk of the file), never by the corpus.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator

import numpy as np
import scipy.sparse as sp

from ._files import READ_ERRORS, check_input_file, open_text
from ._uci import check_uci_nnz, iter_uci_chunks, read_uci_header, uci_line_no

logger = logging.getLogger(__name__)


def uci_header(docword_path) -> tuple[int, int, int]:
    """The (D, W, NNZ) header of a UCI docword file, without reading the data lines."""
    p = check_input_file(docword_path, "docword_path")
    with open_text(p, encoding="ascii", errors="replace") as f:
        return read_uci_header(f, p)


def _check_batch_size(batch_size) -> None:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}.")


def _take_batch(parts: list, start: int, upto: int, n_terms: int, dtype, narrow) -> sp.csr_matrix:
    """The CSR batch of documents ``start`` to ``upto`` (excluded) from ``parts``, the lines read and not yet in a
    batch as (3, n) int64 arrays (0-based docID, 0-based wordID, count), sorted by docID: its lines are taken out of
    ``parts`` (whole parts, and the head of the one that crosses ``upto``). The batch's CSR arrays are filled
    straight away, in the lines' order (as converting the (docID, wordID) pairs would give them), without joining
    the parts first; ``narrow`` is the dtype of its column indices."""
    taken = []
    while parts:
        cut = int(np.searchsorted(parts[0][0], upto))
        if cut < parts[0].shape[1]:
            if cut:
                taken.append(parts[0][:, :cut])
                parts[0] = parts[0][:, cut:]
            break
        taken.append(parts.pop(0))
    n = sum(t.shape[1] for t in taken)
    data, indices = np.empty(n, dtype=dtype), np.empty(n, dtype=narrow)
    indptr = np.zeros(upto - start + 1, dtype=np.int64)
    starts = np.arange(start, upto + 1)
    pos = 0
    for t in taken:
        data[pos : pos + t.shape[1]] = t[2]
        indices[pos : pos + t.shape[1]] = t[1]
        indptr += np.searchsorted(t[0], starts)
        pos += t.shape[1]
    del taken
    X = sp.csr_matrix((data, indices, indptr), shape=(upto - start, n_terms), dtype=dtype)
    X.sum_duplicates()
    return X


def iter_uci(docword_path, batch_size: int = 1000, *, dtype=np.float64) -> Iterator[sp.csr_matrix]:
    """Yield a UCI docword file as CSR mini-batches of ``batch_size`` consecutive documents.

    The data lines must be sorted by docID (as the UCI format specifies); documents without data
    lines give empty rows, so the batches stack to the whole ``(D, W)`` matrix. Memory holds the batch
    being built, the lines read for it (24 bytes each, twice a float64 batch) and one read chunk (256 KB of
    text, about 2 MB split and parsed), whatever the file size: it peaks near four times a batch plus 2 MB
    (measured, with the caller's previous batch: 7 MB for batches of 1 MB, 48 MB for batches of 11.5 MB).

    Parameters
    ----------
    docword_path : str or os.PathLike
        The docword file, plain, or gzip-, bz2- or xz-compressed.
    batch_size : int, default=1000
        Documents per batch (the last one may be shorter).
    dtype : numpy dtype, default=np.float64
        Data type of the batches.

    Yields
    ------
    scipy.sparse.csr_matrix of shape (n, W)

    Raises
    ------
    ValueError
        A malformed line (named by its number), ids out of range, data lines not sorted by docID,
        a data-line count that differs from the header, or a damaged compressed file.
    """
    _check_batch_size(batch_size)
    p = check_input_file(docword_path, "docword_path")
    # a damaged gzip, bz2 or xz file fails while it is read (EOFError, BadGzipFile, LZMAError, ...): name the file,
    # as read_uci does (the block holds the yields, but the consumer's own errors are raised in its frame, not here)
    try:
        with open_text(p, encoding="ascii", errors="replace") as f:
            n_docs, n_terms, nnz = read_uci_header(f, p)
            start = 0  # first document of the pending batch
            parts = []  # the lines read and not yet in a batch (see _take_batch)
            last_doc = -1
            n_rows = 0
            narrow = np.int32 if n_terms <= np.iinfo(np.int32).max else np.int64

            for line_no, lines, chunk in iter_uci_chunks(f, p, n_docs, n_terms):
                chunk[:, :2] -= 1
                docs = chunk[:, 0]
                order_bad = np.flatnonzero(np.diff(np.concatenate([[last_doc], docs])) < 0)
                if order_bad.size:
                    raise ValueError(f"UCI file {str(p)!r}: data lines must be sorted by docID for streaming; "
                                     f"line {uci_line_no(lines, int(order_bad[0]), line_no)} goes back to an earlier "
                                     "document. Use read_uci for unsorted files.")
                del lines, order_bad  # (not held through the batches and the next read)
                last_doc = int(docs[-1])
                n_rows += chunk.shape[0]
                parts.append(np.ascontiguousarray(chunk.T))
                del docs, chunk
                while last_doc >= start + batch_size:  # every document before the boundary is complete
                    yield _take_batch(parts, start, start + batch_size, n_terms, dtype, narrow)
                    start += batch_size
            check_uci_nnz(n_rows, nnz, p)
            while start < n_docs:
                upto = min(start + batch_size, n_docs)
                yield _take_batch(parts, start, upto, n_terms, dtype, narrow)
                start = upto
    except READ_ERRORS as exc:
        raise ValueError(f"Could not read docword_path {str(p)!r}: {exc}.") from exc


def iter_vectorized(texts: Iterable, vectorizer, batch_size: int = 1000) -> Iterator[sp.csr_matrix]:
    """Yield ``vectorizer.transform`` of successive chunks of ``texts`` (strings or file paths).

    ``vectorizer`` must already be fitted (its vocabulary fixes the columns); only one chunk of
    raw texts is held at a time.
    """
    _check_batch_size(batch_size)
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be an iterable of documents, not a single string.")
    chunk = []
    for text in texts:
        chunk.append(text)
        if len(chunk) == batch_size:
            yield vectorizer.transform(chunk)
            chunk = []
    if chunk:
        yield vectorizer.transform(chunk)
