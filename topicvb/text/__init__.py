"""The text pipeline: raw documents to a CSR document-term count matrix.

``Tokenizer`` (decode, clean, normalise, split, filter, stem) -> ``PhraseDetector`` (optional
``new_york`` terms) -> ``Vocabulary`` (terms, frequencies, pruning) -> ``Vectorizer`` (streaming,
chunked, optionally multi-process counting) -> ``iter_batches`` (mini-batches of rows).
"""

from .clean import clean_text, strip_encoded, strip_headers, strip_quotes, strip_signature
from .phrases import PhraseDetector
from .stopwords import ENGLISH_STOP_WORDS
from .tokenize import DEFAULT_TOKEN_PATTERN, Tokenizer, decode_bytes
from .vectorize import Vectorizer, iter_batches
from .vocabulary import Vocabulary

__all__ = [
    "DEFAULT_TOKEN_PATTERN",
    "ENGLISH_STOP_WORDS",
    "PhraseDetector",
    "Tokenizer",
    "Vectorizer",
    "Vocabulary",
    "clean_text",
    "decode_bytes",
    "iter_batches",
    "strip_headers",
    "strip_encoded",
    "strip_quotes",
    "strip_signature",
]
