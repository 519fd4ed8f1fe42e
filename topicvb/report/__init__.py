"""Interactive, self-contained HTML reports of fitted topic models.

:func:`report` writes one HTML file with an inter-topic map (classical multidimensional scaling
of Jensen-Shannon distances, circle area = prevalence), per-topic term bars with a relevance
slider (Sievert & Shirley, 2014), prevalence, coherence, junk-topic flags and representative
documents, and a plain summary table that needs no JavaScript. JavaScript and CSS are inline and the data is
embedded as JSON, so the page works offline; numbers come from :mod:`topicvb.inspection` and
:mod:`topicvb.evaluation`.
"""

from ._build import js_distances, pcoa, report

__all__ = ["js_distances", "pcoa", "report"]
