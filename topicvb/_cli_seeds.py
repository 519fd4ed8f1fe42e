"""The command line's seed words (``fit --seed-topics FILE``): read and checked before any corpus is."""

from __future__ import annotations

import json

from ._cli_columns import _shown
from ._cli_inputs import check_file, encoding


def read_seed_topics(path, args) -> list:
    """The seed words of ``fit --seed-topics FILE``: a JSON object of topic label -> list of words, read and
    checked before any corpus is (a label twice, a single word instead of a list, an empty list: one-line errors).

    Returns a list of ``(label, [words])`` pairs in the file's order (which is the topics' order).
    """
    from topicvb.guided import word_lists

    check_file(path, "--seed-topics")
    where = f"--seed-topics {_shown(path)}"

    def pairs_hook(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"{where}: the label {key!r} appears twice; each topic label must be distinct.")
            seen.add(key)
        return dict(pairs)

    try:
        from topicvb.datasets._files import without_bom

        with open(path, encoding=without_bom(encoding(args))) as fh:  # (a byte-order mark: Notepad writes one)
            data = json.load(fh, object_pairs_hook=pairs_hook)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where} is not valid JSON ({exc}); expected an object of topic label -> list of words, "
                         'such as {"space": ["nasa", "orbit"], "hockey": ["puck", "goal"]}.') from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where} is not {encoding(args)} text ({exc.reason}); give --encoding.") from None
    if not isinstance(data, dict):
        raise ValueError(f"{where} must hold a JSON object of topic label -> list of words, such as "
                         f'{{"space": ["nasa", "orbit"]}}; it holds a JSON {type(data).__name__}.')
    try:
        return word_lists(data, "seed_topics")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from None
