"""Streaming a corpus from disk in mini-batches, for out-of-core training with ``partial_fit``.

Memory is bounded by one batch (plus one read chunk of the file), never by the corpus.
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


def iter_uci(docword_path, batch_size: int = 1000, *, dtype=np.float64) -> Iterator[sp.csr_matrix]:
    """Yield a UCI docword file as CSR mini-batches of ``batch_size`` consecutive documents.

    The data lines must be sorted by docID (as the UCI format specifies); documents without data
    lines give empty rows, so the batches stack to the whole ``(D, W)`` matrix. Memory holds one
    batch and one read chunk (a few MB), whatever the file size.

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
            pending = np.zeros((0, 3), dtype=np.int64)
            last_doc = -1
            n_rows = 0

            def batch(upto):
                nonlocal pending
                cut = int(np.searchsorted(pending[:, 0], upto))
                part, pending = pending[:cut], pending[cut:]
                X = sp.csr_matrix((part[:, 2].astype(dtype), (part[:, 0] - start, part[:, 1])),
                                  shape=(upto - start, n_terms), dtype=dtype)
                X.sum_duplicates()
                return X

            for line_no, lines, chunk in iter_uci_chunks(f, p, n_docs, n_terms):
                chunk[:, :2] -= 1
                docs = chunk[:, 0]
                order_bad = np.flatnonzero(np.diff(np.concatenate([[last_doc], docs])) < 0)
                if order_bad.size:
                    raise ValueError(f"UCI file {str(p)!r}: data lines must be sorted by docID for streaming; "
                                     f"line {uci_line_no(lines, int(order_bad[0]), line_no)} goes back to an earlier "
                                     "document. Use read_uci for unsorted files.")
                last_doc = int(docs[-1])
                n_rows += chunk.shape[0]
                pending = np.concatenate([pending, chunk]) if pending.size else chunk
                while last_doc >= start + batch_size:  # every document before the boundary is complete
                    yield batch(start + batch_size)
                    start += batch_size
            check_uci_nnz(n_rows, nnz, p)
            while start < n_docs:
                upto = min(start + batch_size, n_docs)
                yield batch(upto)
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
