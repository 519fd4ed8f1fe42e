"""The command line's output files: checked before any work (never an input, a folder, an empty name or
an unwritable place) and written atomically with the umask's permissions."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ._validation import encodable

logger = logging.getLogger("topicvb.cli")


def write_bytes(path, data: bytes) -> None:
    """Write a file atomically (a temporary file in the same folder, then a rename), mode per the umask."""
    from topicvb.datasets._files import create_temp_file

    path = Path(path)
    fd, tmp = create_temp_file(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text(path, text: str) -> None:
    """Write a UTF-8 text file atomically, exactly as given (no newline translation; a lone surrogate, a byte
    that was not UTF-8 in a file name, as U+FFFD: :func:`topicvb._validation.encodable`)."""
    write_bytes(path, encodable(text).encode("utf-8"))


# ----------------------------------------------------------------------------- output paths
def npz_file(value: str) -> str:
    """The ``.npz`` file written for the output name ``value``: ``value`` itself when it ends with ``.npz``,
    else ``value + ".npz"``, as ``topicvb.persistence.save`` names a model (``fit -o``) and ``vectorize -o``
    names a corpus, so that the inputs of the next commands are recognised by their name."""
    return value if Path(value).suffix == ".npz" else value + ".npz"


def plot_file(value: str) -> tuple[str, str]:
    """The image file and format for ``--plot value``, as ``Figure.savefig`` picks them.

    The format is the extension; without one it is matplotlib's ``savefig.format`` (png), and
    the extension is appended. An extension matplotlib cannot write is a ValueError.
    """
    try:
        import matplotlib
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ValueError(f"Cannot write --plot {value!r}: matplotlib is not installed "
                         "(pip install matplotlib).") from None
    suffix = Path(value).suffix
    if not suffix:
        fmt = str(matplotlib.rcParams["savefig.format"])
        return f"{value}.{fmt}", fmt
    fmt = suffix[1:].lower()
    supported = FigureCanvasBase.get_supported_filetypes()
    if fmt not in supported:
        raise ValueError(f"Cannot write --plot {value!r}: matplotlib cannot write {suffix!r} images; use one of "
                         f"{', '.join('.' + f for f in sorted(supported))}.")
    return value, fmt


def _same_file(a: str, b: str) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: the same inode when both exist (hard links,
    symbolic links, case-insensitive names), else the same absolute path with links resolved."""
    try:
        if os.path.samefile(a, b):
            return True
    except (OSError, ValueError):  # one of them does not exist (or holds a NUL byte)
        pass
    try:
        return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))
    except (OSError, ValueError):
        return False


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` lies under ``folder`` (an existing folder), symbolic links resolved."""
    if not os.path.isdir(folder):
        return False
    try:
        path, folder = os.path.realpath(path), os.path.realpath(folder)
        return os.path.commonpath([path, folder]) == folder and path != folder
    except (OSError, ValueError):  # different drives, NUL bytes
        return False


def _read_folder_holding(path: str, folder: str, linked: dict) -> str | None:
    """The folder read as part of the input folder ``folder`` (itself, a sub-folder, or one a symbolic link in it
    leads to: the reader follows them) that ``path`` lies under, links resolved; None when there is none."""
    if not os.path.isdir(folder):
        return None
    if _inside(path, folder):
        return folder
    from .datasets._text_dir import _folders

    links = linked.get(folder)
    if links is None:  # (the reader's own walk, what a later run would read; once per input folder: ``linked``)
        links = linked[folder] = [str(read) for read in _folders(Path(folder), warn=False) if os.path.islink(read)]
    for read in links:
        if _inside(path, read):
            return read
    return None


def _hidden_below(path: str, folder: str) -> bool:
    """Whether ``path``, below ``folder``, is hidden there (a name starting with "." on the way): the text folder
    reader skips it, so an output written there is no document of a later run."""
    try:
        relative = Path(os.path.realpath(path)).relative_to(os.path.realpath(folder))
    except (OSError, ValueError):
        return False
    return any(part.startswith(".") for part in relative.parts)


def _check_name(option: str, value, final: str) -> None:
    """Raise ValueError unless ``value`` (written as ``final``) names a file: not empty, not a folder."""
    shown = f"{option} {value!r}"
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"Cannot write {shown}: the path is empty; give a file name.")
    if "\0" in value:
        raise ValueError(f"Cannot write {shown}: a path cannot contain a NUL character.")
    if value.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        raise ValueError(f"Cannot write {shown}: it names a folder (it ends with a path separator); give a file name.")
    if os.path.isdir(value) or os.path.isdir(final):
        raise ValueError(f"Cannot write {shown}: it is a folder; give the name of a file inside it.")


def _check_place(shown: str, final: str) -> None:
    """Raise ValueError unless a new file can be created at ``final`` and renamed over what is there."""
    from topicvb.datasets._files import create_temp_file

    path = Path(final)
    if os.path.lexists(final) and not path.is_file() and not path.is_symlink():
        raise ValueError(f"Cannot write {shown}: it exists and is not a regular file (a device, pipe or socket).")
    folder = path.parent
    if not folder.exists():
        raise ValueError(f"Cannot write {shown}: the folder {str(folder)!r} does not exist; create it first.")
    if not folder.is_dir():
        raise ValueError(f"Cannot write {shown}: {str(folder)!r} is not a folder.")
    reason = None
    if not os.access(folder, os.W_OK | os.X_OK):
        reason = "permission denied"
    else:  # os.access trusts root and ignores read-only file systems: creating a file tells for sure
        try:
            fd, tmp = create_temp_file(path)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
        else:
            os.close(fd)
            tmp.unlink(missing_ok=True)
    if reason is not None:
        raise ValueError(f"Cannot write {shown}: no file can be created in the folder {str(folder)!r} ({reason}).")


def check_output_paths(args) -> None:
    """Refuse, before any work, every output path of the command that cannot or must not be written.

    Each output option given (``args.outputs``: the option, its attribute, and how the writer
    names the file, e.g. ``fit`` appends ``.npz``) must be a non-empty file name, not a folder;
    it must name neither one of the command's inputs (``args.inputs``: input files or folders,
    a model, a vocabulary; compared with :func:`os.path.samefile` when both exist, else by
    resolved path), nor a file inside an input folder (whose files are read as documents; a hidden
    one, which the reader skips, may be written there), nor another output of the command; and it
    must be a regular file or nothing, in an existing folder where a file can be created. Raises
    ValueError, one sentence naming the option and the path. An existing file that passes (an
    earlier output) will be replaced: a warning says so before any work, so nothing is overwritten
    silently. Nothing is read or written, except a probe file created and removed at once to learn
    whether the folder is writable.
    """
    inputs = [(label, getattr(args, attr, None)) for label, attr in getattr(args, "inputs", ())]
    inputs = [(label, value) for label, value in inputs if isinstance(value, str) and value]
    seen: list[tuple[str, str]] = []
    linked: dict[str, list[str]] = {}  # each input folder's linked folders, walked once
    for option, attr, naming in getattr(args, "outputs", ()):
        value = getattr(args, attr, None)
        if value is None:
            continue
        final = value
        if naming is not None and isinstance(value, str) and value.strip() and "\0" not in value:
            final = naming(value)
        _check_name(option, value, final)
        shown = f"{option} {value!r}" + (f" (written as {final!r})" if final != value else "")
        for label, source in inputs:
            if _same_file(final, source):
                raise ValueError(f"Cannot write {shown}: it is {label} {source!r}, which would be "
                                 "overwritten; choose another output name.")
            read = _read_folder_holding(final, source, linked)
            # (a hidden file there is no document: the text folder reader skips it)
            if read is not None and not _hidden_below(final, read):
                where = "" if read == source else f" (through its link {read!r})"
                if os.path.isfile(final):  # a document of an input folder
                    raise ValueError(f"Cannot write {shown}: it is a file inside {label} {source!r}{where}, which "
                                     "would be overwritten; choose another output name.")
                # (a new file there: a later run would read it as a document)
                raise ValueError(f"Cannot write {shown}: it is inside {label} {source!r}{where}, whose files are "
                                 "read as documents (a later run would read it as one); write it outside that "
                                 "folder.")
        for other_option, other in seen:
            if _same_file(final, other):
                raise ValueError(f"Cannot write {shown}: {other_option} writes the same file; give them "
                                 "different names.")
        _check_place(shown, final)
        if os.path.isfile(final):  # an earlier output: replaced, as by most tools, but said
            logger.warning("%s exists and will be replaced.", shown)
        seen.append((option, final))


def plot_file_name(value: str) -> str:
    """The image file ``--plot value`` writes (see :func:`plot_file`)."""
    return plot_file(value)[0]
