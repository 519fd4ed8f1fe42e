"""The topic table: top words, prevalence, coherence and junk flags per topic, for notebooks and files.

:class:`TopicTable` is public in :mod:`topicvb.inspection`, whose :func:`~topicvb.inspection.summary`
builds it from a model; this module holds only its display (plain text, HTML) and exports (CSV,
plain Python).
"""

from __future__ import annotations

import csv
import html
import numbers as numbers_
import os

import numpy as np

from ._inspection_words import custom_labels
from ._validation import encodable


class TopicTable:
    """Topics at a glance: top words with weights, prevalence, coherence and junk flags per topic.

    Built by :func:`topicvb.inspection.summary`. Shows as an HTML table in notebooks (``_repr_html_``: inline
    styles only, no external JavaScript or CSS), as plain text with ``str()``, and exports to CSV
    (``to_csv``) and plain Python (``to_dict``).

    Parameters
    ----------
    topics : list of list of (str, float)
        Top words of each topic with P(term | topic), best first.
    prevalence : array-like of shape (n_topics,), default=None
        Share of corpus tokens per topic.
    coherence : array-like of shape (n_topics,), default=None
        Coherence per topic.
    coherence_measure : str, default=None
        Name of the coherence measure.
    title : str, default=""
        A caption (the model's class name in :func:`topicvb.inspection.summary`).
    junk : list of list of str, default=None
        Per topic, the reasons it is flagged as junk (see :func:`topicvb.inspection.junk_topics`); empty lists for
        topics that are not. Flagged topics are marked in ``str()`` and the HTML table.
    labels : list of str, default=None
        The topics' names (a model's ``topic_labels_``; None: ``topic_k`` for each topic's number k). When
        some topic has a name other than its default (a guided topic), ``str()``, the HTML table and
        the CSV file have a ``label`` column; ``to_dict`` always holds the names.
    numbers : list of int, default=None
        Each topic's number in the model, shown in the ``topic`` column (None: those that ``topics`` knows, as
        a slice of :func:`topicvb.top_words`' result does, else 0, 1, ...).

    Attributes
    ----------
    n_topics : int
        Number of topics.
    labels : list of str
        The topics' names.
    numbers : list of int
        The topics' numbers in the model.
    """

    def __init__(self, topics, prevalence=None, coherence=None, coherence_measure: str | None = None,
                 title: str = "", junk=None, labels=None, numbers=None):
        self.topics = [[(str(w), float(v)) for w, v in t] for t in topics]
        K = len(self.topics)
        if numbers is None:
            numbers = getattr(topics, "numbers", None)  # a slice of top_words' result keeps the topics' numbers
        if numbers is None:
            numbers = range(K)
        if isinstance(numbers, (str, bytes)) or len(numbers) != K or not all(
                isinstance(j, numbers_.Integral) and not isinstance(j, (bool, np.bool_)) for j in numbers):
            raise ValueError(f"TopicTable: numbers must have one int topic number per topic ({K}), got {numbers!r}.")
        self.numbers = [int(j) for j in numbers]
        if labels is None:
            labels = getattr(topics, "labels", None)  # top_words' result knows them
        if labels is None:  # (the default names of the topics' own numbers)
            labels = [f"topic_{j}" for j in self.numbers]
        if isinstance(labels, str) or len(labels) != K:
            raise ValueError(f"TopicTable: labels must have one name per topic ({K}), got {labels!r}.")
        self.labels = [str(label) for label in labels]
        self.prevalence = None if prevalence is None else np.asarray(prevalence, dtype=np.float64).ravel()
        self.coherence = None if coherence is None else np.asarray(coherence, dtype=np.float64).ravel()
        for name, arr in (("prevalence", self.prevalence), ("coherence", self.coherence)):
            if arr is not None and arr.shape != (K,):
                raise ValueError(f"TopicTable: {name} must have one value per topic ({K}), got shape {arr.shape}.")
        self.coherence_measure = coherence_measure
        self.title = title
        if junk is not None:
            if isinstance(junk, str) or len(junk) != K:
                raise ValueError(f"TopicTable: junk must have one list of reasons per topic ({K}), got {junk!r}.")
            junk = [[str(r) for r in ([reasons] if isinstance(reasons, str) else reasons)] for reasons in junk]
        self.junk = junk

    @property
    def _shown_labels(self):
        """The names, when some topic has one of its own (then displays show them), else None."""
        numbers = getattr(self, "numbers", None)  # (a TopicTable unpickled from before it had numbers has none)
        if numbers is None:
            return custom_labels(self.labels)
        return None if self.labels == [f"topic_{j}" for j in numbers] else list(self.labels)

    @property
    def _numbers(self) -> list[int]:
        return getattr(self, "numbers", None) or list(range(self.n_topics))

    def _flag(self, k: int) -> str:
        return "" if self.junk is None else ", ".join(self.junk[k])

    @property
    def _any_junk(self) -> bool:
        return self.junk is not None and any(self.junk)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def __len__(self) -> int:
        return self.n_topics

    def __repr__(self) -> str:
        return f"TopicTable(n_topics={self.n_topics}, title={self.title!r})"

    # ------------------------------------------------------------------ exports
    def to_dict(self) -> dict:
        """Plain Python (JSON-serialisable): ``{"title", "coherence_measure", "topics": [...]}``.

        Each topic is ``{"topic": k, "label": name, "words": [...], "weights": [...], "prevalence": float or
        None, "coherence": float or None, "junk": list of str or None}``.
        """
        rows = []
        for k, words in enumerate(self.topics):
            rows.append({
                "topic": self._numbers[k],
                "label": self.labels[k],
                "words": [w for w, _ in words],
                "weights": [v for _, v in words],
                "prevalence": None if self.prevalence is None else float(self.prevalence[k]),
                "coherence": None if self.coherence is None else float(self.coherence[k]),
                "junk": None if self.junk is None else list(self.junk[k]),
            })
        return {"title": self.title, "coherence_measure": self.coherence_measure, "topics": rows}

    def to_csv(self, path_or_buffer) -> None:
        """Write the table in long form: one row per (topic, rank).

        Columns: ``topic, rank, word, weight, prevalence, coherence, junk`` (prevalence and
        coherence empty when unknown; junk holds the reasons a topic is flagged, joined by ``;``),
        and ``label``, each topic's name, when some topic has a name of its own (a guided topic).
        ``path_or_buffer`` is a path (written as UTF-8) or a text buffer such as
        :class:`io.StringIO`.
        """
        if isinstance(path_or_buffer, (str, os.PathLike)):
            with open(path_or_buffer, "w", encoding="utf-8", newline="") as fh:
                self._write_csv(fh)
        elif hasattr(path_or_buffer, "write"):
            self._write_csv(path_or_buffer)
        else:
            raise TypeError(f"to_csv expects a path or a text buffer, got {type(path_or_buffer).__name__}.")

    def _write_csv(self, fh) -> None:
        # (csv quotes a field holding the line terminator, "\n", but not a bare "\r", which readers also take as
        # a line end: a row with one is written with every field quoted. Lone surrogates, bytes that were not
        # UTF-8, become U+FFFD, so that the file can be written as UTF-8: encodable.)
        plain = csv.writer(fh, lineterminator="\n")
        quoted = csv.writer(fh, lineterminator="\n", quoting=csv.QUOTE_ALL)

        def write(row):
            row = [encodable(x) if isinstance(x, str) else x for x in row]
            (quoted if any(isinstance(x, str) and "\r" in x for x in row) else plain).writerow(row)

        names = self._shown_labels
        write(["topic", "rank", "word", "weight", "prevalence", "coherence", "junk"] + (["label"] if names else []))
        for k, words in enumerate(self.topics):
            prev = "" if self.prevalence is None else repr(float(self.prevalence[k]))
            coh = "" if self.coherence is None else repr(float(self.coherence[k]))
            junk = "" if self.junk is None else ";".join(self.junk[k])
            for r, (w, v) in enumerate(words, start=1):
                write([self._numbers[k], r, str(w), repr(v), prev, coh, junk] + ([names[k]] if names else []))

    # ------------------------------------------------------------------ display
    def __str__(self) -> str:
        names = self._shown_labels
        head = ["topic"] + (["label"] if names else [])
        if self.prevalence is not None:
            head.append("prevalence")
        if self.coherence is not None:
            head.append(self.coherence_measure or "coherence")
        if self._any_junk:
            head.append("junk")
        head.append("top words")
        rows = []
        for k, words in enumerate(self.topics):
            row = [str(self._numbers[k])] + ([names[k]] if names else [])
            if self.prevalence is not None:
                row.append(f"{100 * self.prevalence[k]:.1f}%")
            if self.coherence is not None:
                row.append(f"{self.coherence[k]:.3f}")
            if self._any_junk:
                row.append(self._flag(k))
            row.append(" ".join(w for w, _ in words))
            rows.append(row)
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head) - 1)]
        lines = [self.title] if self.title else []
        for r in [head] + rows:
            cells = [c.ljust(wd) if names and i == 1 else c.rjust(wd) for i, (c, wd) in enumerate(zip(r[:-1], widths))]
            lines.append("  ".join(cells + [r[-1]]))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        td = "padding:2px 8px;vertical-align:top;text-align:right;"
        out = ['<div class="topicvb-topic-table" style="font-family:sans-serif;font-size:12px;">']
        if self.title:
            out.append(f'<div style="font-weight:bold;margin-bottom:4px;">{esc(self.title)}</div>')
        out.append('<table style="border-collapse:collapse;">')
        names = self._shown_labels
        head = ["topic"] + (["label"] if names else [])
        if self.prevalence is not None:
            head.append("prevalence")
        if self.coherence is not None:
            head.append(esc(self.coherence_measure or "coherence"))
        if self._any_junk:
            head.append("junk")
        head.append("top words (bar = P(word | topic))")
        out.append("<thead><tr>" + "".join(
            f'<th style="{td}border-bottom:1px solid #999;">{h}</th>' for h in head) + "</tr></thead><tbody>")
        prev = None if self.prevalence is None else np.asarray(self.prevalence, dtype=np.float64)
        max_prev = float(np.max(prev[np.isfinite(prev)], initial=0.0)) if prev is not None else 1.0
        for k, words in enumerate(self.topics):
            cells = [f'<td style="{td}">{self._numbers[k]}</td>']
            if names:
                cells.append(f'<td style="{td}text-align:left;font-weight:bold;">{esc(names[k])}</td>')
            if self.prevalence is not None:
                share = float(self.prevalence[k])
                width = 0 if max_prev <= 0 or not np.isfinite(share) else round(60 * share / max_prev)
                cells.append(
                    f'<td style="{td}white-space:nowrap;">{100 * share:.1f}%&nbsp;'
                    f'<span style="display:inline-block;width:{width}px;height:8px;background:#4c72b0;"></span></td>'
                )
            if self.coherence is not None:
                cells.append(f'<td style="{td}">{float(self.coherence[k]):.3f}</td>')
            if self._any_junk:
                flag_style = f"{td}color:#b42318;font-weight:bold;white-space:nowrap;"
                cells.append(f'<td style="{flag_style}">{esc(self._flag(k))}</td>')
            top = max((float(v) for _, v in words if np.isfinite(v)), default=0.0)
            chips = []
            for w, v in words:  # (a bar for each finite weight; a value a user's table holds may be NaN)
                width = 0 if top <= 0 or not np.isfinite(v) else max(1, round(40 * v / top))
                chips.append(
                    f'<span title="{v:.4f}" style="display:inline-block;margin:0 6px 2px 0;text-align:left;">'
                    f'{esc(w)}<br><span style="display:inline-block;width:{width}px;height:3px;'
                    f'background:#dd8452;"></span></span>'
                )
            cells.append(f'<td style="padding:2px 8px;text-align:left;">{"".join(chips)}</td>')
            out.append("<tr style=\"border-bottom:1px solid #eee;\">" + "".join(cells) + "</tr>")
        out.append("</tbody></table></div>")
        return "".join(out)
