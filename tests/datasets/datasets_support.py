"""Helpers shared by the tests of topicvb.datasets: shared corpora, small files, folder listings."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from topicvb.datasets import find_corpora_dir

CORPORA = find_corpora_dir()


def _shared(*parts) -> Path:
    """Path of a shared corpus file, skipping the test when it is not there."""
    if CORPORA is None:
        pytest.skip(
            "No shared corpora folder (set TOPICVB_CORPORA to the folder holding uci-kos/, 20news-bydate/, ...)."
        )
    path = CORPORA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"Shared corpus file {path} is absent.")
    return path


def _have_text_vectorizer() -> bool:
    try:
        from topicvb.text import Vectorizer  # noqa: F401
    except ImportError:
        return False
    return True


needs_text = pytest.mark.skipif(not _have_text_vectorizer(), reason="topicvb.text.Vectorizer is not available yet.")


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _write(path: Path, text: str) -> Path:
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")  # (not the locale's: the readers read UTF-8)
    return path
