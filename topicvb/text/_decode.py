"""Decoding bytes with replacement, counting the replacements (shared by tokenize and vectorize)."""

from __future__ import annotations


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
