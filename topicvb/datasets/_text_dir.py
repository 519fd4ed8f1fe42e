"""Folders of text files, one document per file, with labels from the sub-folder names."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .._validation import check_encoding
from ._corpus import Corpus
from ._files import check_path_type, without_bom
from ._text import build_text_corpus

logger = logging.getLogger(__name__)


def _check_folder(path, encoding: str) -> Path:
    """``path`` as a Path, after checking its type, ``encoding``, and that it is an existing folder."""
    check_path_type(path, "read_text_dir: path")
    check_encoding(encoding)
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"read_text_dir: folder {str(root)!r} does not exist.")
    if not root.is_dir():
        raise ValueError(f"read_text_dir expects a folder, but {str(root)!r} is a file.")
    return root


def _folders(root: Path, warn: bool = True) -> list[Path]:
    """``root`` and its visible sub-folders, symbolic links to folders included, each real folder once.

    :meth:`Path.rglob` does not follow links to folders, so a linked sub-folder's files were left out
    without a word. Here the real sub-folders are walked first, then the links (in sorted order, and the links
    found in the folders they lead to): a link is followed unless it leads to a folder read already (by its
    own name or through another link: its files would be read twice, under two labels, and links that fork
    and meet again would be walked exponentially often) or to ``root`` or a folder above it (a loop, or the
    files beside the corpus). Unreadable folders are skipped, as :meth:`Path.rglob` skips them.
    """
    top = root.resolve()
    seen, folders, links = {top}, [], []

    def walk(start: Path) -> None:  # start and its real sub-folders; the links met are kept for later
        stack = [start]
        while stack:
            folder = stack.pop()
            folders.append(folder)
            try:  # (os.scandir: the entries' types come with the listing, no stat of every file)
                with os.scandir(folder) as entries:
                    subfolders = sorted((folder / e.name, e.is_symlink()) for e in entries
                                        if not e.name.startswith(".") and e.is_dir())
            except OSError:
                continue
            for sub, is_link in reversed(subfolders):
                if is_link:
                    links.append(sub)
                    continue
                real = sub.resolve()
                if real not in seen:
                    seen.add(real)
                    stack.append(sub)

    walk(root)
    skipped = []
    while links:
        pending = sorted(links)
        links.clear()
        for link in pending:
            real = link.resolve()
            if real in seen or top.is_relative_to(real):
                skipped.append(link)
                continue
            seen.add(real)
            walk(link)
    if skipped and warn:
        logger.warning("read_text_dir: %d link(s) to folders not followed, as they lead to a folder read already "
                       "or to %s or a folder above it (for example %s).", len(skipped), root, skipped[0])
    return folders


def _list_files(root: Path, pattern: str) -> list[tuple[str, Path]]:
    """(relative POSIX path, path) of the visible files under ``root`` matching ``pattern``, sorted."""
    found = {}
    for folder in _folders(root):  # (the folders rglob would visit, and linked ones)
        for f in folder.glob(pattern):
            rel = f.relative_to(root)
            if any(part.startswith(".") for part in rel.parts) or not f.is_file():
                continue
            found[rel.as_posix()] = f
    files = sorted(found.items())
    if not files:
        raise ValueError(f"read_text_dir found no files matching pattern {pattern!r} under {str(root)!r}.")
    return files


def _read_texts(files, encoding: str, root: Path) -> list[str]:
    """The decoded files; undecodable bytes become U+FFFD, and the files that had any are counted in a warning."""
    texts, n_bad = [], 0
    codec = without_bom(encoding)  # (a UTF-8 byte-order mark is not text: as the other readers, drop it)
    for _, f in files:
        try:
            raw = f.read_bytes()
        except OSError as exc:
            raise ValueError(f"read_text_dir could not read {str(f)!r}: {exc}.") from exc
        try:
            texts.append(raw.decode(codec))
        except UnicodeDecodeError:
            n_bad += 1
            texts.append(raw.decode(codec, errors="replace"))
    if n_bad:
        logger.warning(
            "read_text_dir: %d of %d files under %s had bytes that are not valid %s; they were replaced by U+FFFD.",
            n_bad,
            len(files),
            root,
            encoding,
        )
    return texts


def _folder_labels(doc_ids: list[str]) -> list[str] | None:
    """The top-level sub-folder of each file (``""`` directly in the root); None when there are no sub-folders."""
    has_dirs = any("/" in rel for rel in doc_ids)
    return [rel.split("/", 1)[0] if "/" in rel else "" for rel in doc_ids] if has_dirs else None


def read_text_dir(
    path, vectorizer=None, encoding: str = "utf-8", pattern: str = "*", *, name: str | None = None
) -> Corpus:
    """Read a folder of text files, one document per file, with labels from sub-folder names.

    Files are searched recursively, through symbolic links to folders too (each folder is read once, by its
    own name where it has one under ``path``: a link to a folder read already, or to ``path`` or a folder
    above it, is not followed, with a warning), and read in sorted order of their relative paths; hidden files and
    folders (names starting with ``.``) are skipped. When some files sit in sub-folders, the
    label of each file is the name of its top-level sub-folder (``""`` for files directly in
    ``path``); when all files sit directly in ``path``, the corpus has no labels.

    Parameters
    ----------
    path : str or os.PathLike
        The folder, for example ``reviews/`` with ``reviews/pos/*.txt`` and ``reviews/neg/*.txt``.
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    encoding : str, default="utf-8"
        Text encoding. Undecodable bytes are replaced by U+FFFD, and the number of files that had
        any is logged as a warning.
    pattern : str, default="*"
        Glob pattern that file names must match, such as ``"*.txt"``.
    name : str, default=None
        Name of the corpus; defaults to the folder name.

    Returns
    -------
    corpus : Corpus
        With ``texts``, ``doc_ids`` (relative POSIX paths) and, when there are sub-folders,
        ``labels`` (codes into ``label_names``).

    Raises
    ------
    TypeError
        If ``path`` is not a path.
    FileNotFoundError
        If ``path`` does not exist.
    ValueError
        If ``path`` is not a folder, ``encoding`` is unknown, no file matches ``pattern``, or a file
        cannot be read.
    """
    root = _check_folder(path, encoding)
    files = _list_files(root, pattern)
    texts = _read_texts(files, encoding, root)
    doc_ids = [rel for rel, _ in files]
    logger.info("read_text_dir: read %d files from %s.", len(files), root)
    return build_text_corpus(
        texts,
        vectorizer,
        labels=_folder_labels(doc_ids),
        doc_ids=doc_ids,
        name=name or root.name,
        description=f"Text files read from {root.name}/ (pattern {pattern!r}).",
    )
