"""Decoding bytes with replacement, counting the replacements (shared by tokenize and vectorize)."""

from __future__ import annotations

import logging

# (the logger of the module that has always made decode_bytes public)
logger = logging.getLogger("topicvb.text.tokenize")


def decode_counted(data: bytes, encoding: str) -> tuple[str, int]:
    """Decode ``data``, replacing undecodable bytes; return the text and the number of replacements."""
    try:
        return data.decode(encoding), 0
    except UnicodeDecodeError:
        pass
    text = data.decode(encoding, errors="replace")
    # U+FFFD characters that were in the input itself survive errors="ignore"; the rest are ours
    n_replaced = text.count("\ufffd") - data.decode(encoding, errors="ignore").count("\ufffd")
    return text, n_replaced


def decode_bytes(data: bytes, encoding: str = "utf-8") -> str:
    """Decode bytes to text, replacing undecodable bytes with U+FFFD.

    The number of replaced byte sequences is logged (at DEBUG level, logger ``topicvb.text.tokenize``).

    Parameters
    ----------
    data : bytes
        Raw bytes (``bytearray`` and ``memoryview`` are accepted too).
    encoding : str, default="utf-8"
        Codec name as understood by :meth:`bytes.decode`.

    Returns
    -------
    str
        The decoded text.

    Raises
    ------
    TypeError
        If ``data`` is not bytes-like.
    LookupError
        If ``encoding`` is not a known codec.

    Examples
    --------
    >>> decode_bytes(b"caf\\xe9 ok")
    'caf\\ufffd ok'
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}.")
    text, n_replaced = decode_counted(bytes(data), encoding)
    if n_replaced:
        logger.debug("Replaced %d undecodable byte sequence(s) while decoding as %s.", n_replaced, encoding)
    return text
