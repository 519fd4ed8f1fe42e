"""The built-in corpus: docstrings of the standard library and installed scientific packages.

The corpus is English technical prose that every Python installation already has, so the demo
and the tutorials need no download and the repository ships no third-party text. Docstrings are
read from the source files with :mod:`ast`; no module is imported, so modules with side effects
(``antigravity``, ``this``, GUI toolkits, test suites) cannot do anything, and no subprocess is
started. Modules that exist only as compiled extensions (``math``, most of numpy's ufuncs) have
no source and contribute nothing.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import importlib.util
import json
import logging
import os
import re
import sys
import sysconfig
import time
import tokenize
from collections.abc import Sequence
from pathlib import Path

from ._corpus import Corpus
from ._files import atomic_paths
from ._text import build_text_corpus

# Words that every docstring uses (numpydoc section names, type names, boilerplate): as frequent
# in the built-in corpus as English stop words are in prose, and as uninformative about topics (the
# demo and the README's tour add them to the English stop words).
DOCSTRING_STOP_WORDS = frozenset("""
    default defaults optional parameters parameter returns return yields raises notes see also examples example
    true false none int float str bool ndarray array_like arraylike object type types value values versionadded
    versionchanged deprecated instance class method methods function functions argument arguments given used use
    using default_value shape number numbers data input output like new set list tuple dict
""".split())

logger = logging.getLogger(__name__)

#: Bump when the extraction rules change, so old caches are not reused.
_EXTRACTION_VERSION = 1

DEFAULT_PACKAGES = ("stdlib", "numpy", "scipy", "sklearn")

# Top-level standard-library modules left out: side effects when run, GUI, tests, data, rot13 text.
_SKIP_TOP = frozenset(
    {
        "antigravity",
        "this",
        "tkinter",
        "turtle",
        "turtledemo",
        "idlelib",
        "test",
        "lib2to3",
        "ensurepip",
        "pydoc_data",
        "__phello__",
        "__hello__",
        "xxsubtype",
        "xxlimited",
    }
)
# Folder or module names skipped anywhere inside a package: tests, vendored copies, build scripts.
_SKIP_PARTS = frozenset(
    {
        "test",
        "tests",
        "idle_test",
        "conftest",
        "setup",
        "benchmarks",
        "__pycache__",
        "_vendor",
        "vendor",
        "externals",
        "array_api_compat",
        "array_api_extra",
        "_array_api_compat_vendor",
    }
)
_DOCTEST_LINE = re.compile(r"^\s*(>>>|\.\.\.)(\s|$)")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _cache_dir() -> Path:
    env = os.environ.get("TOPICVB_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return Path(base).expanduser() / "topicvb"


def _stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"]).resolve()


def _module_files(top: str, stdlib: bool) -> list[tuple[str, Path]]:
    """(module name, source file) pairs of a top-level module or package, without importing it."""
    try:
        spec = importlib.util.find_spec(top)
    except Exception:  # noqa: BLE001 - broken finders, odd names
        return []
    if spec is None:
        return []
    if stdlib:
        # Only the real standard library, not a same-named backport in site-packages.
        origin = spec.origin or (list(spec.submodule_search_locations or []) or [None])[0]
        resolved = Path(origin).resolve() if origin else None
        if resolved is None or _stdlib_dir() not in resolved.parents or "site-packages" in resolved.parts:
            return []
    out = []
    if spec.submodule_search_locations:
        for location in sorted(set(spec.submodule_search_locations)):
            base = Path(location)
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_PARTS and not d.startswith("."))
                rel = Path(dirpath).relative_to(base).parts
                if not all(p.isidentifier() for p in rel):
                    dirnames[:] = []
                    continue
                for fname in sorted(filenames):
                    stem, ext = os.path.splitext(fname)
                    if ext != ".py" or not stem.isidentifier() or stem in _SKIP_PARTS or stem.startswith("test_"):
                        continue
                    parts = [top, *rel] + ([] if stem == "__init__" else [stem])
                    out.append((".".join(parts), Path(dirpath) / fname))
    elif spec.origin and spec.origin.endswith(".py"):
        out.append((top, Path(spec.origin)))
    return out


def _clean(doc: str) -> str:
    lines = [line for line in doc.splitlines() if not _DOCTEST_LINE.match(line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _docstrings(module: str, path: Path):
    """Yield (qualified name, docstring) for a module and its public classes, functions and methods."""
    with tokenize.open(path) as f:  # honours the coding cookie
        source = f.read()
    tree = ast.parse(source, filename=str(path))
    yield module, ast.get_docstring(tree, clean=True)
    stack = [(module, tree.body)]
    while stack:
        prefix, body = stack.pop(0)
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith(
                "_"
            ):
                qualname = f"{prefix}.{node.name}"
                yield qualname, ast.get_docstring(node, clean=True)
                if isinstance(node, ast.ClassDef):
                    stack.append((qualname, node.body))


def _resolve_packages(packages) -> list[tuple[str, str, bool]]:
    """(label, module name, is_stdlib) for every top-level module to read, in sorted order."""
    if packages is None:
        packages = DEFAULT_PACKAGES
    if isinstance(packages, str):
        packages = [packages]
    items = []
    for pkg in packages:
        if pkg == "stdlib":
            names = sorted(n for n in sys.stdlib_module_names if not n.startswith("_") and n not in _SKIP_TOP)
            items += [(n, n, True) for n in names]
        elif not isinstance(pkg, str) or not pkg.isidentifier():
            raise ValueError(f"packages must hold top-level module names or 'stdlib', got {pkg!r}.")
        else:
            items.append((pkg, pkg, False))
    return sorted(set(items))


def _fingerprint(files) -> dict:
    """Cheap identity of the sources: count, total size and newest mtime of the files read."""
    n, size, mtime = 0, 0, 0
    for _, path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        n, size, mtime = n + 1, size + st.st_size, max(mtime, st.st_mtime_ns)
    return {"files": n, "bytes": size, "mtime_ns": mtime}


def _cache_key(items, all_files, min_words, max_docs) -> tuple[dict, Path]:
    """What identifies a collection (Python, arguments, sources) and the cache file named by its hash."""
    key_material = {
        "extraction": _EXTRACTION_VERSION,
        "python": sys.version,
        "packages": [label for label, _, _ in items],
        "min_words": min_words,
        "max_docs": max_docs,
        "sources": _fingerprint(all_files),
    }
    key = hashlib.sha256(json.dumps(key_material, sort_keys=True).encode()).hexdigest()[:16]
    return key_material, _cache_dir() / f"builtin-corpus-{key}.json.gz"


def _read_cache(path: Path) -> tuple[list[str], list[str], list[str]] | None:
    """The cached ``(texts, labels, doc_ids)``, or None when there is no cache or it cannot be read."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            cached = json.load(f)
        logger.info("load_builtin_corpus: read %d cached documents from %s.", len(cached["texts"]), path)
        return cached["texts"], cached["labels"], cached["doc_ids"]
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - a broken cache is rebuilt, never fatal
        logger.warning("load_builtin_corpus: ignoring unreadable cache %s (%s).", path, exc)
        return None


def _gather(files_by_top, min_words: int, max_docs, time_limit):
    """Read the docstrings of every file in order: ``(texts, labels, doc_ids, complete, n_failed)``.

    Stops early after ``max_docs`` documents, or (with ``complete`` False) after ``time_limit`` seconds.
    """
    start = time.perf_counter()
    texts, labels, doc_ids, seen = [], [], [], set()
    complete, n_failed = True, 0
    full = lambda: max_docs is not None and len(texts) >= max_docs
    for label, module, path in ((label, m, p) for label, files, _ in files_by_top for m, p in files):
        if time_limit is not None and time.perf_counter() - start > time_limit:
            complete = False
            break
        try:
            found = list(_docstrings(module, path))
        except Exception:  # noqa: BLE001 - syntax from another Python, undecodable files
            n_failed += 1
            continue
        for qualname, doc in found:
            if not doc:
                continue
            text = _clean(doc)
            if len(_WORD.findall(text)) < min_words or text in seen:
                continue
            seen.add(text)
            texts.append(text)
            labels.append(label)
            doc_ids.append(qualname)
            if full():
                break
        if full():
            break
    return texts, labels, doc_ids, complete, n_failed


def _log_collection(n_docs: int, complete: bool, n_failed: int, time_limit, elapsed: float) -> None:
    if n_failed:
        logger.info("load_builtin_corpus: %d source files could not be parsed and were skipped.", n_failed)
    if not complete:
        logger.warning(
            "load_builtin_corpus stopped after time_limit=%.0f s with %d documents; the result is partial "
            "and not cached. Raise time_limit for the full corpus.",
            time_limit,
            n_docs,
        )
    else:
        logger.info("load_builtin_corpus: collected %d documents in %.1f s.", n_docs, elapsed)


def collect_docstrings(
    packages: Sequence[str] | None = None,
    *,
    min_words: int = 40,
    max_docs: int | None = None,
    time_limit: float | None = 120.0,
    cache: bool = True,
) -> tuple[list[str], list[str], list[str]]:
    """Collect the docstrings behind :func:`load_builtin_corpus`, without vectorizing them.

    Parameters
    ----------
    packages, min_words, max_docs, time_limit, cache
        As in :func:`load_builtin_corpus`.

    Returns
    -------
    texts : list of str
        Cleaned docstrings (doctest lines removed), in sorted module order.
    labels : list of str
        The top-level package (or standard-library module) of each docstring.
    doc_ids : list of str
        The qualified name of each documented module, class, function or method.
    """
    items = _resolve_packages(packages)
    files_by_top = [(label, _module_files(name, stdlib), stdlib) for label, name, stdlib in items]
    missing = [label for label, files, stdlib in files_by_top if not files and not stdlib]
    if missing:
        logger.info("load_builtin_corpus: no Python sources found for %s; skipped.", missing)
    all_files = [f for _, files, _ in files_by_top for f in files]
    key_material, cache_path = _cache_key(items, all_files, min_words, max_docs)
    if cache:
        cached = _read_cache(cache_path)
        if cached is not None:
            return cached

    start = time.perf_counter()
    texts, labels, doc_ids, complete, n_failed = _gather(files_by_top, min_words, max_docs, time_limit)
    _log_collection(len(texts), complete, n_failed, time_limit, time.perf_counter() - start)
    if cache and complete:
        _write_cache(cache_path, {"texts": texts, "labels": labels, "doc_ids": doc_ids, "key": key_material})
    return texts, labels, doc_ids


def _write_cache(path: Path, payload: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_paths([path]) as (tmp,):
            with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                gz.write(json.dumps(payload).encode("utf-8"))
        logger.info("load_builtin_corpus: cached the texts in %s.", path)
    except OSError as exc:
        logger.info("load_builtin_corpus: could not write the cache %s (%s); continuing without it.", path, exc)


def load_builtin_corpus(
    vectorizer=None,
    cache: bool = True,
    *,
    packages: Sequence[str] | None = None,
    min_words: int = 40,
    max_docs: int | None = None,
    time_limit: float | None = 120.0,
) -> Corpus:
    """Build the built-in corpus: docstrings of the standard library and installed packages.

    One document per documented module, public class, function or method whose docstring has at
    least ``min_words`` words, labelled with its top-level package. Docstrings are read from the
    source files with :mod:`ast`, never by importing the modules, in sorted module order (so the
    corpus is deterministic for given Python and package versions); doctest lines (``>>>``,
    ``...``) are dropped and repeated docstrings kept once. Building reads every source file, so
    the texts are cached as ``json.gz`` in ``$TOPICVB_CACHE`` (default ``~/.cache/topicvb``),
    keyed by the Python version, the arguments and the source files; later calls read the cache
    and only vectorize. When the cache folder is not writable the corpus is simply rebuilt each
    time.

    Parameters
    ----------
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    cache : bool, default=True
        Whether to read and write the cache of raw texts.
    packages : sequence of str, default=None
        Top-level modules to read; ``"stdlib"`` stands for every standard-library module.
        None means ``("stdlib", "numpy", "scipy", "sklearn")``; packages that are not installed
        are skipped.
    min_words : int, default=40
        Docstrings with fewer words (runs of two or more letters) are left out.
    max_docs : int, default=None
        Stop after this many documents (deterministic: the first ones in sorted order).
    time_limit : float, default=120.0
        Stop reading after this many seconds and return what was collected (with a warning; a
        partial corpus is not cached). None means no limit.

    Returns
    -------
    corpus : Corpus
        With ``texts``, ``doc_ids`` (qualified names such as ``"json.dumps"``) and ``labels``
        (codes into ``label_names``, the top-level package names).

    Raises
    ------
    ValueError
        If ``packages`` holds something that is not a module name, or no docstring qualifies.

    Examples
    --------
    >>> from topicvb.datasets import load_builtin_corpus
    >>> corpus = load_builtin_corpus()  # doctest: +SKIP
    >>> corpus.name  # doctest: +SKIP
    'builtin-docstrings'
    >>> small = load_builtin_corpus(packages=["json"], cache=False)  # doctest: +SKIP
    >>> small.doc_ids[:3], small.label_names  # doctest: +SKIP
    (['json', 'json.dump', 'json.dumps'], ['json'])
    """
    texts, labels, doc_ids = collect_docstrings(
        packages, min_words=min_words, max_docs=max_docs, time_limit=time_limit, cache=cache
    )
    if not texts:
        raise ValueError(
            f"load_builtin_corpus found no docstrings with at least min_words={min_words} words in "
            f"packages={packages!r}; lower min_words or add packages."
        )
    pkgs = ", ".join(sorted(set(labels))) if len(set(labels)) <= 5 else f"{len(set(labels))} packages"
    return build_text_corpus(
        texts,
        vectorizer,
        labels=labels,
        doc_ids=doc_ids,
        name="builtin-docstrings",
        description=f"Docstrings of {pkgs} (Python {sys.version.split()[0]}).",
    )
