"""The 20 Newsgroups "bydate" corpus, read from a local copy, with scikit-learn as the fallback."""

from __future__ import annotations

import logging
import os
import tarfile
from collections.abc import Sequence
from pathlib import Path

from .._validation import check_choice
from ._corpus import Corpus
from ._files import find_corpora_dir
from ._text import build_text_corpus

logger = logging.getLogger(__name__)

_NG_SPLITS = {"train": "20news-bydate-train", "test": "20news-bydate-test"}
_NG_REMOVE = {"headers", "footers", "quotes"}
#: what load_20newsgroups removes by default: the mail parts that make topics of header fields,
#: newsreader boilerplate, quoted replies (the same words twice) and signatures
DEFAULT_REMOVE = ("headers", "footers", "quotes")


# --------------------------------------------------------------------------- cleaning posts


def _clean_post(text: str, remove) -> str:
    """Drop the parts of a post named in ``remove`` with topicvb's e-mail cleaning.

    The order is scikit-learn's (headers, footers, quotes); the rules are those of
    :func:`topicvb.text.clean_text`, which also drops the lines of encoded attachments whenever
    anything is removed (scikit-learn keeps them).
    """
    if not remove:
        return text
    from ..text.clean import clean_text

    return clean_text(text, headers="headers" in remove, signature="footers" in remove, quotes="quotes" in remove)


def _check_remove(remove) -> Sequence[str]:
    """``remove`` as a sequence of part names (a single str is one name), checked against the known parts."""
    if isinstance(remove, str):
        remove = (remove,)
    unknown = set(remove) - _NG_REMOVE
    if unknown:
        raise ValueError(f"remove may contain only {sorted(_NG_REMOVE)}, got {sorted(unknown)}.")
    return remove


# --------------------------------------------------------------------------- local copies


def _find_20ng(data_home) -> tuple[str, Path] | None:
    """Locate a local copy of 20news-bydate: ``("tar", file)`` or ``("dir", folder)``, or None."""
    roots = []
    if data_home is not None:
        roots.append(Path(data_home).expanduser())
    shared = find_corpora_dir()
    if shared is not None:
        roots.append(shared)
    # scikit-learn's data folder (computed here: sklearn's get_data_home would create it).
    sk_home = data_home if data_home is not None else os.environ.get("SCIKIT_LEARN_DATA", "~/scikit_learn_data")
    roots.append(Path(sk_home).expanduser() / "20news_home")
    for root in roots:
        for base in (root, root / "20news-bydate"):
            tar = base / "20news-bydate.tar.gz"
            if tar.is_file():
                return "tar", tar
            if (base / _NG_SPLITS["train"]).is_dir() and (base / _NG_SPLITS["test"]).is_dir():
                return "dir", base
    return None


def _read_20ng_tar(path: Path, splits) -> list[tuple[str, str, str, str]]:
    wanted = {_NG_SPLITS[s]: s for s in splits}
    posts = []
    try:
        with tarfile.open(path, "r:*") as tar:
            for member in tar:
                if not member.isfile():
                    continue
                parts = member.name.split("/")
                if len(parts) < 3 or parts[-3] not in wanted:
                    continue
                f = tar.extractfile(member)
                posts.append((wanted[parts[-3]], parts[-2], parts[-1], f.read().decode("latin-1")))
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ValueError(f"load_20newsgroups could not read the archive {str(path)!r}: {exc}.") from exc
    return posts


def _read_20ng_dir(base: Path, splits) -> list[tuple[str, str, str, str]]:
    posts = []
    for split in splits:
        for group_dir in sorted((base / _NG_SPLITS[split]).iterdir()):
            if not group_dir.is_dir() or group_dir.name.startswith("."):
                continue
            for f in sorted(group_dir.iterdir()):
                if f.is_file() and not f.name.startswith("."):
                    posts.append((split, group_dir.name, f.name, f.read_bytes().decode("latin-1")))
    return posts


def _local_posts(kind: str, where: Path, splits, categories) -> list[tuple[str, str, str, str]]:
    """(split, newsgroup, file name, text) of the local copy, sorted, restricted to ``categories``."""
    posts = _read_20ng_tar(where, splits) if kind == "tar" else _read_20ng_dir(where, splits)
    order = {s: i for i, s in enumerate(splits)}
    posts.sort(key=lambda t: (order[t[0]], t[1], t[2]))
    if categories is not None:
        available = sorted({t[1] for t in posts})
        missing = sorted(set(categories) - set(available))
        if missing:
            raise ValueError(f"categories has unknown newsgroups {missing}; the newsgroups are {available}.")
        posts = [t for t in posts if t[1] in set(categories)]
    return posts


# --------------------------------------------------------------------------- loading


def load_20newsgroups(
    subset: str = "train",
    data_home=None,
    vectorizer=None,
    remove: Sequence[str] = DEFAULT_REMOVE,
    *,
    categories: Sequence[str] | None = None,
    download_if_missing: bool = True,
) -> Corpus:
    """Load the 20 Newsgroups "bydate" corpus from a local copy, downloading only as a last resort.

    The local copy is searched, in order, in ``data_home``, in the shared corpora folder (see
    :func:`find_corpora_dir`, the environment variable ``TOPICVB_CORPORA``) and in scikit-learn's
    data folder. Each may hold ``20news-bydate.tar.gz`` or the extracted folders
    ``20news-bydate-train/`` and ``20news-bydate-test/``, directly or in a ``20news-bydate/``
    sub-folder. Posts are decoded as latin-1 and kept in sorted order (split, newsgroup, file name),
    without shuffling. When no copy is found, scikit-learn's
    :func:`~sklearn.datasets.fetch_20newsgroups` is used, which reads its own cache or downloads
    (about 14 MB) unless ``download_if_missing=False``.

    By default each post loses its header block, its quoted replies and its signature (see
    :func:`topicvb.text.clean_text`), as with scikit-learn's ``remove=("headers", "footers",
    "quotes")``: header fields (``Subject``, ``Organization``, ``NNTP-Posting-Host``) and quoted
    text otherwise make topics of their own, and the corpus's ``texts`` are what a reader of the
    topics should see. Pass ``remove=()`` for the raw posts.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default="train"
        Which part of the by-date split to load; "all" is train followed by test.
    data_home : str or os.PathLike, default=None
        A folder to search first (also passed on to scikit-learn).
    vectorizer : object, default=None
        Turns the texts into counts (see :func:`vectorize_texts`); None uses
        ``topicvb.text.Vectorizer()``.
    remove : sequence of {"headers", "footers", "quotes"}, default=("headers", "footers", "quotes")
        Parts of each post to drop: the header block (up to the first blank line, when it looks
        like one), the signature (after a ``"-- "`` line, a rule line, or a last paragraph that
        reads like one) and quoted replies with their attribution lines. The parts are those of
        scikit-learn's ``remove``; the rules are :func:`topicvb.text.clean_text`'s, narrower than
        scikit-learn's (which drops the whole last paragraph of every post), so about as many words
        are left on 20 Newsgroups and fewer posts end up empty. ``()`` keeps the posts whole.
    categories : sequence of str, default=None
        Newsgroups to keep, for example ``["sci.space", "rec.autos"]``; None keeps all 20.
    download_if_missing : bool, default=True
        Whether scikit-learn may download the data when no local copy exists.

    Returns
    -------
    corpus : Corpus
        With ``texts``, ``labels`` (codes into ``label_names``, the sorted newsgroup names) and
        ``doc_ids`` of the form ``"train/sci.space/60804"``.

    Raises
    ------
    ValueError
        If ``subset``, ``remove`` or ``categories`` has an unknown value.
    FileNotFoundError
        If there is no local copy and ``download_if_missing=False``.
    """
    check_choice(subset, "subset", {"train", "test", "all"})
    remove = _check_remove(remove)
    found = _find_20ng(data_home)
    if found is None:
        return _fetch_20ng_sklearn(subset, data_home, vectorizer, remove, categories, download_if_missing)
    kind, where = found
    return _load_local(kind, where, subset, vectorizer, remove, categories)


def _load_local(kind: str, where: Path, subset: str, vectorizer, remove, categories) -> Corpus:
    """The corpus of a local copy (``kind`` and ``where`` as :func:`_find_20ng` gives them)."""
    splits = ["train", "test"] if subset == "all" else [subset]
    logger.info("load_20newsgroups: reading %s.", where)
    posts = _local_posts(kind, where, splits, categories)
    if not posts:
        raise ValueError(f"load_20newsgroups found no posts for subset={subset!r} in {str(where)!r}.")
    texts = [_clean_post(t[3], remove) for t in posts]
    return _build_corpus(texts, vectorizer, [t[1] for t in posts], [f"{t[0]}/{t[1]}/{t[2]}" for t in posts],
                         subset, remove)


def _build_corpus(texts, vectorizer, labels, doc_ids, subset: str, remove, via: str = "") -> Corpus:
    """The corpus of the cleaned posts, named after the subset; its description says what was removed."""
    return build_text_corpus(
        texts,
        vectorizer,
        labels=labels,
        doc_ids=doc_ids,
        name=f"20newsgroups-{subset}",
        description=f"20 Newsgroups by-date{via}, subset {subset!r}"
        + (f", removed {sorted(remove)}" if remove else ", raw posts")
        + ".",
    )


def _fetch_20ng_sklearn(subset, data_home, vectorizer, remove, categories, download_if_missing) -> Corpus:
    from sklearn.datasets import fetch_20newsgroups

    try:
        bunch = fetch_20newsgroups(
            data_home=data_home,
            subset=subset,
            categories=categories,
            shuffle=False,
            remove=(),  # cleaned below with topicvb's rules, as the local copies are
            download_if_missing=download_if_missing,
        )
    except OSError as exc:
        raise FileNotFoundError(
            "load_20newsgroups found no local copy of 20news-bydate (searched data_home, TOPICVB_CORPORA and "
            f"scikit-learn's data folder) and could not download it: {exc}. Put 20news-bydate.tar.gz in a "
            "folder and pass data_home=, or set TOPICVB_CORPORA."
        ) from exc
    doc_ids = []
    for fname in bunch.filenames:
        parts = Path(fname).parts
        split = "train" if parts[-3].endswith("train") else "test"
        doc_ids.append(f"{split}/{parts[-2]}/{parts[-1]}")
    names = list(bunch.target_names)
    return _build_corpus([_clean_post(text, remove) for text in bunch.data], vectorizer,
                         [names[t] for t in bunch.target], doc_ids, subset, remove, via=" via scikit-learn")
