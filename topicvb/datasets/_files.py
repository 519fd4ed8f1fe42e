"""File helpers shared by the readers and writers: path checks, transparent decompression, atomic output.

The readers decompress gzip, bz2 and xz files transparently, detected by their content (not their
name); :data:`READ_ERRORS` are the errors a damaged compressed file raises while it is read.

Every writer in :mod:`topicvb.datasets` writes to temporary files in the destination folder and
moves them into place with :func:`os.replace` only after everything was written, so a failure
(an exception, a full disk, an interrupted process) never leaves a partial or truncated file
under the requested name. The temporary files are created by :func:`create_temp_file` with mode
``0o666`` minus the process umask (as :func:`open` would), not ``0o600`` as
:func:`tempfile.mkstemp` makes them, so the files written follow the umask (and a folder's default
ACL) like any other file.
"""

from __future__ import annotations

import bz2
import codecs
import contextlib
import gzip
import io
import logging
import lzma
import os
import re
import secrets
import tempfile
import tokenize
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

# The compressed formats the readers open transparently: the bytes a file starts with, and the opener.
_COMPRESSED = ((re.compile(rb"\x1f\x8b"), gzip.open),
               # bz2's "BZh" is printable text: its block size digit and first block's (or the end of stream's)
               # magic number too, so that a text file starting with "BZh" is read as text
               (re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), bz2.open),
               (re.compile(rb"\xfd7zXZ\x00"), lzma.open))
# What reading a damaged compressed file raises (zlib.error and LZMAError are not OSErrors): the readers
# turn these into a ValueError naming the file.
READ_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)
# What numpy.load can raise on a damaged or foreign .npz archive besides those: a malformed zip directory (an
# unknown compression method), a .npy header its parser cannot read (SyntaxError, TokenError), a member numpy gives
# as raw bytes, a record nested too deeply. The readers of model and checkpoint files turn these into a ValueError.
NPZ_READ_ERRORS = READ_ERRORS + (zipfile.BadZipFile, KeyError, ValueError, NotImplementedError, SyntaxError,
                                 TypeError, RecursionError, tokenize.TokenError)


def check_path_type(path, what: str) -> None:
    """Raise ``TypeError`` naming ``what`` unless ``path`` is a str or an ``os.PathLike``."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a path (str or os.PathLike), got {type(path).__name__}.")


def check_input_file(path, what: str) -> Path:
    """Return ``path`` as a :class:`~pathlib.Path`, raising a clear error unless it is a readable file.

    Parameters
    ----------
    path : str or os.PathLike
        The file to check.
    what : str
        The name of the argument, used in the message (for example ``"docword_path"``).

    Returns
    -------
    path : pathlib.Path
        The same path.

    Raises
    ------
    FileNotFoundError
        If nothing exists at ``path``.
    ValueError
        If ``path`` is a folder or cannot be read.
    """
    check_path_type(path, what)
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{what} {str(p)!r} does not exist. Check the path.")
    if p.is_dir():
        raise ValueError(f"{what} {str(p)!r} is a folder; expected a file.")
    if not os.access(p, os.R_OK):
        raise ValueError(f"{what} {str(p)!r} is not readable; check its permissions.")
    return p


def open_binary(path: Path):
    """Open ``path`` for reading bytes, decompressing gzip, bz2 and xz transparently (detected by content).

    Reading a damaged compressed file raises one of :data:`READ_ERRORS`.
    """
    with open(path, "rb") as f:
        head = f.read(10)
    for magic, opener in _COMPRESSED:
        if magic.match(head):
            return opener(path, "rb")
    return open(path, "rb")


def open_text(path: Path, encoding: str = "utf-8", errors: str = "strict", newline: str | None = None):
    """Open ``path`` for reading text, decompressing gzip, bz2 and xz transparently (detected by content).

    With the default ``newline=None`` universal newlines are on, so ``\\r\\n`` files read like
    ``\\n`` files; the csv module needs ``newline=""``. UTF-8 text is read without a leading byte-order
    mark (``utf-8-sig``: Excel's "CSV UTF-8" writes one, which would otherwise stick to the first column's name).
    """
    return io.TextIOWrapper(open_binary(path), encoding=without_bom(encoding), errors=errors, newline=newline)


def is_npy(path: Path) -> bool:
    """Return True if the file starts with the magic bytes of a single NumPy array (``.npy``).

    :func:`numpy.load` returns such a file's array rather than an archive, whatever the file's name, so
    the ``.npz`` readers check for it first and say so (the array cannot be used as a context manager).
    """
    with open(path, "rb") as f:
        return f.read(len(np.lib.format.MAGIC_PREFIX)) == np.lib.format.MAGIC_PREFIX


def not_pickled(exc) -> str:
    """What to say of numpy's failure ``exc`` to read a file as .npz: its own text, except for the advice to load a
    pickle "unsafely" (a file numpy would read only as a pickle, or one holding object arrays), which topicvb never
    takes."""
    if "allow_pickle" in str(exc):
        return "it is not a .npz archive (numpy would read it only as a pickle, which topicvb never loads)"
    return str(exc)


def without_bom(encoding: str) -> str:
    """``"utf-8-sig"`` for the names of UTF-8 (it reads a leading byte-order mark as nothing), else ``encoding``."""
    try:
        return "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    except LookupError:
        return encoding  # (the caller's open reports the unknown encoding)


def check_file_target(path, what: str, example: str = "model.npz") -> Path:
    """``path`` as a Path a file can be written at (its missing folders created later), before any work is done:
    IsADirectoryError when it is a folder, NotADirectoryError when one of the folders above it is a file."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{what}: {str(path)!r} is a folder; give the path of a file to write, e.g. "
                                f"{str(path / example)!r}.")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"{what}: cannot write {str(path)!r}: {str(parent)!r} is not a folder.")
            break
    return path


def create_temp_file(final, prefix: str = ".") -> tuple[int, Path]:
    """Create a new, empty temporary file next to ``final``; return its open descriptor and path.

    The file is created like :func:`tempfile.mkstemp` does (a random name, ``O_EXCL``, so an
    existing file or symbolic link is never reused or followed), but with the permission bits
    ``0o666`` that :func:`open` uses, which the kernel reduces by the umask (or by the folder's
    default ACL). A file renamed into place over ``final`` therefore gets the mode a plain
    ``open(final, "w")`` would give it, instead of ``mkstemp``'s ``0o600``. Nothing process-wide
    is read or changed (no ``os.umask`` round trip), so this is safe to call from many threads.

    Parameters
    ----------
    final : str or os.PathLike
        The destination the temporary file will replace; its folder must exist.
    prefix : str, default="."
        Prepended to ``final``'s name (a dot hides the temporary file from ``ls``).

    Returns
    -------
    fd : int
        A descriptor open for reading and writing (not inherited by child processes); the caller
        closes it.
    path : pathlib.Path
        The temporary file, ``<folder>/<prefix><name>.<random>.tmp``.

    Raises
    ------
    OSError
        If the folder does not exist or a file cannot be created in it.
    """
    final = Path(final)
    folder = final.parent
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(tempfile.TMP_MAX):
        tmp = folder / f"{prefix}{final.name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"Cannot create a temporary file next to {str(final)!r}: every name tried exists.")


def check_targets(paths: Sequence) -> list[Path]:
    """``paths`` as Paths that :func:`atomic_paths` can write: FileNotFoundError when a folder does not exist,
    ValueError when a path is a folder (or empty: the current folder). Callers that write after long work check
    their targets first with it."""
    finals = [Path(p) for p in paths]
    for p in finals:
        if not p.parent.is_dir():
            raise FileNotFoundError(f"Cannot write {str(p)!r}: folder {str(p.parent)!r} does not exist.")
        if p.is_dir():
            raise ValueError(f"Cannot write {str(p)!r}: it is a folder.")
    return finals


@contextlib.contextmanager
def atomic_paths(paths: Sequence) -> Iterator[list[Path]]:
    """Yield temporary paths next to ``paths``; move them into place only if the block succeeds.

    All temporaries are written first and replaced together at the end, so when the block raises,
    none of the destinations is created or modified and every temporary file is removed.

    Parameters
    ----------
    paths : sequence of str or os.PathLike
        The final destinations. Their folders must exist.

    Yields
    ------
    tmp_paths : list of pathlib.Path
        One temporary path per destination, in the same folder (so ``os.replace`` is atomic),
        created empty by :func:`create_temp_file`: a destination gets the mode the umask gives.
    """
    finals = check_targets(paths)
    tmps: list[Path] = []
    try:
        for p in finals:
            fd, tmp = create_temp_file(p)
            os.close(fd)
            tmps.append(tmp)
        yield tmps
        for tmp, p in zip(tmps, finals):
            os.replace(tmp, p)
        tmps = []
    finally:
        for tmp in tmps:
            with contextlib.suppress(OSError):
                tmp.unlink()


@contextlib.contextmanager
def open_text_for_write(tmp_path: Path, final_name: str, encoding: str = "utf-8"):
    """Open a (temporary) file for writing text, gzip-compressed when ``final_name`` ends in ``.gz``.

    Gzip output has a zero timestamp and no embedded file name, so equal content gives equal bytes.
    """
    raw = open(tmp_path, "wb")
    try:
        if str(final_name).endswith(".gz"):
            gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0)
            with io.TextIOWrapper(gz, encoding=encoding, newline="\n") as f:
                yield f
        else:
            with io.TextIOWrapper(raw, encoding=encoding, newline="\n") as f:
                yield f
    finally:
        raw.close()


def find_corpora_dir() -> Path | None:
    """Return the folder holding the shared evaluation corpora, or None when there is none.

    The folder is the environment variable ``TOPICVB_CORPORA`` when it is set (None if it does not
    name a folder, so setting it to an empty path switches the search off), otherwise
    ``<repository root>/../shared/corpora`` when that folder exists (a development checkout).

    Returns
    -------
    path : pathlib.Path or None
        A folder with sub-folders such as ``20news-bydate/`` and ``uci-kos/``.
    """
    env = os.environ.get("TOPICVB_CORPORA")
    if env is not None:
        p = Path(env).expanduser()
        if env and p.is_dir():
            return p
        if env:
            logger.warning("TOPICVB_CORPORA=%r is not a folder; no shared corpora will be used.", env)
        return None
    candidate = Path(__file__).resolve().parents[2].parent / "shared" / "corpora"
    return candidate if candidate.is_dir() else None
