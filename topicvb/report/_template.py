"""The CSS and JavaScript inlined into every report (plain ES2017, no libraries, works offline).

The script reads the JSON block ``#tvb-data``, builds the interactive part inside ``#tvb-app``
and never uses ``innerHTML`` with data: every term and document text goes through
``textContent``, so the page cannot be scripted by its own data. Rendered elements carry stable
markers: ``<circle class="topic-circle" data-topic="k">`` per topic on the map, ``<div
class="term" data-term="...">`` per term bar, and ``data-rendered="true"`` on ``#tvb-app`` once done.
"""

CSS = r"""
:root { --blue:#3b6ea8; --accent:#e0693a; --ink:#1f2328; --muted:#667085; --line:#d9dde3; --bg:#f6f7f9;
  --topicbar:#e0693a; --totalbar:#d5dae1; }
* { box-sizing: border-box; }
html { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--bg); }
body { margin: 0 auto; padding: 10px 16px 16px; max-width: 1320px; }
h1 { font-size: 19px; margin: 0; font-weight: 650; }
h2 { font-size: 14px; margin: 0 0 6px; font-weight: 650; }
h3 { font-size: 12px; margin: 10px 0 4px; font-weight: 650; text-transform: uppercase; letter-spacing: .04em;
  color: var(--muted); }
.top { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap; margin-bottom: 8px; }
.facts { margin: 0; color: var(--muted); }
.muted { color: var(--muted); font-weight: normal; }
.note { background: #fff6e0; border: 1px solid #f0d58c; padding: 6px 10px; border-radius: 6px; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
.no-js #tvb-app { display: none; }
#tvb-app { display: grid; grid-template-columns: minmax(280px, 400px) minmax(340px, 1fr) minmax(260px, 380px);
  gap: 10px; margin-bottom: 10px; align-items: start; }
@media (max-width: 1020px) { #tvb-app { grid-template-columns: 1fr; } }
.map svg { display: block; width: 100%; height: auto; }
.map .axis { stroke: #c5cbd3; stroke-dasharray: 3 3; stroke-width: 1; }
.map .axis-label { fill: #98a2b3; font-size: 10px; }
.topic-circle { fill: var(--blue); fill-opacity: .32; stroke: var(--blue); stroke-opacity: .7; stroke-width: 1;
  cursor: pointer; transition: fill-opacity .12s; }
.topic-circle:hover, .topic-circle.hover { fill-opacity: .55; stroke-width: 2; }
.topic-circle.selected { fill: var(--accent); stroke: #b44a20; fill-opacity: .75; stroke-width: 2; }
.topic-circle:focus { outline: none; stroke: #111; stroke-width: 2.5; }
.topic-label { font-size: 11px; font-weight: 600; fill: #1d2b3a; pointer-events: none; text-anchor: middle;
  dominant-baseline: central; }
.topic-label.selected { fill: #fff; }
.topic-label.outside { font-weight: 600; }
.topic-label.outside.selected { fill: #b44a20; }
.leader { stroke: #7a8696; stroke-width: .8; }
.topic-circle.junk { stroke-dasharray: 3 2; }
table.summary .label { font-weight: 600; color: #1d2b3a; }
.junk { color: #b42318; background: #fdecea; border-radius: 3px; padding: 0 4px; font-size: 11px; font-weight: 600;
  white-space: nowrap; }
.map-caption { margin: 4px 0 0; color: var(--muted); font-size: 11px; }
.nav { display: flex; gap: 6px; align-items: center; margin-bottom: 6px; flex-wrap: wrap; }
.nav button, .nav select { font: inherit; padding: 2px 8px; border: 1px solid var(--line); background: #fff;
  border-radius: 5px; cursor: pointer; }
.nav button:hover { background: #eef2f7; }
.slider { display: flex; align-items: center; gap: 8px; margin: 2px 0 6px; }
.slider input { flex: 1; accent-color: var(--accent); }
.slider output { font-variant-numeric: tabular-nums; min-width: 2.6em; font-weight: 600; }
.legend { display: flex; gap: 12px; color: var(--muted); font-size: 11px; margin-bottom: 4px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; vertical-align: -1px; margin-right: 3px; }
.term { display: grid; grid-template-columns: 118px 1fr; align-items: center; gap: 6px; height: 16px; }
.term .label { text-align: right; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; font-size: 12px; }
.term .track { position: relative; height: 12px; }
.term .total, .term .intopic { position: absolute; left: 0; top: 0; bottom: 0; border-radius: 2px; }
.term .total { background: var(--totalbar); }
.term .intopic { background: var(--topicbar); }
.term:hover .label { font-weight: 600; }
.stats { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; }
.stats dt { color: var(--muted); }
.stats dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.words-inline { color: var(--ink); }
.doc { border-top: 1px solid #eef0f3; padding: 6px 0 4px; }
.doc:first-child { border-top: 0; }
.doc .docid { font-weight: 600; overflow-wrap: anywhere; }
.doc .share { color: var(--muted); margin-left: 6px; font-variant-numeric: tabular-nums; }
.doc .text { margin: 2px 0 0; color: #3b4350; font-size: 12px; }
table.summary { border-collapse: collapse; width: 100%; }
table.summary th { text-align: left; border-bottom: 1px solid #b8bfc9; padding: 3px 8px; font-weight: 600; white-space: nowrap; }
table.summary td { padding: 3px 8px; border-bottom: 1px solid #eef0f3; vertical-align: top; }
table.summary td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.summary td.words { overflow-wrap: anywhere; }
table.summary td.nowrap { white-space: nowrap; }
table.summary .pbar { display: inline-block; height: 8px; margin-left: 6px; background: var(--blue); opacity: .6;
  border-radius: 2px; }
table.summary td.doc { max-width: 320px; border-top: 0; padding: 3px 8px; overflow-wrap: anywhere; }
table.summary td.doc .share { margin: 0 4px 0 0; white-space: nowrap; }
table.summary td.doc .docid { font-weight: normal; }
.js table.summary tbody tr { cursor: pointer; }
.js table.summary tbody tr:hover { background: #f2f5f9; }
table.summary tr.selected { background: #fdeee6; }
.table-panel h2 .muted { font-size: 12px; }
footer { margin-top: 8px; font-size: 11px; }
.error { background: #fdecea; border: 1px solid #f5c2bd; color: #8a1c12; padding: 8px 10px; border-radius: 6px; }
"""

JS = r"""
(function () {
  "use strict";
  const SVGNS = "http://www.w3.org/2000/svg";
  const app = document.getElementById("tvb-app");

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    if (attrs) for (const key of Object.keys(attrs)) node.setAttribute(key, attrs[key]);
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  // a list of words as one string, each word isolated (U+2068 ... U+2069), so that adjacent right-to-left words
  // keep their rank order on screen
  function wordList(words) { return words.map((w) => "\u2068" + w + "\u2069").join(", "); }
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVGNS, tag);
    if (attrs) for (const key of Object.keys(attrs)) node.setAttribute(key, String(attrs[key]));
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function showError(message) {
    const box = el("div", { "class": "error", "role": "alert" }, "The interactive report could not be drawn: " + message);
    app.textContent = "";
    app.style.display = "block";
    app.appendChild(box);
    app.setAttribute("data-error", "true");
  }
  const pct = (x) => (100 * x).toFixed(1) + "%";
  const fmt = (x, d) => Number(x).toFixed(d);
  const fmtCount = (x) => x >= 100 ? Math.round(x).toLocaleString("en-US") : Number(x).toPrecision(3);

  let data;
  try {
    data = JSON.parse(document.getElementById("tvb-data").textContent);
  } catch (err) {
    showError("the embedded data is not valid JSON (" + err.message + ").");
    return;
  }
  document.documentElement.classList.remove("no-js");
  document.documentElement.classList.add("js");

  const topics = data.topics;
  const K = topics.length;
  // "Topic 3", or "Topic 3 \u00b7 space" for a topic with a name of its own (a guided topic)
  const topicName = (k) => "Topic " + k + (topics[k].label ? " \u00b7 " + topics[k].label : "");
  const TINY = 1e-300;
  const logP = data.term_prob.map((p) => Math.log(Math.max(p, TINY)));
  const state = { selected: 0, shown: 0, lambda: data.default_lambda };

  // ------------------------------------------------------------------ relevance ranking
  // Same formula and tie-breaking as topicvb.inspection.top_words: score desc, then column order.
  function rankTerms(k, lambda) {
    const t = topics[k];
    const scored = t.terms.map((w, i) => {
      const logPhi = Math.log(Math.max(t.probs[i], TINY));
      let score = lambda * logPhi + (1 - lambda) * (logPhi - logP[w]);
      if (lambda < 1 && data.term_prob[w] <= 0) score = -Infinity;
      return { w: w, phi: t.probs[i], score: score };
    });
    scored.sort((a, b) => (b.score - a.score) || (a.w - b.w));
    return scored.slice(0, data.n_words);
  }

  // ------------------------------------------------------------------ layout
  const mapPanel = el("section", { "class": "panel map" });
  const termPanel = el("section", { "class": "panel terms" });
  const infoPanel = el("section", { "class": "panel info" });
  app.appendChild(mapPanel);
  app.appendChild(termPanel);
  app.appendChild(infoPanel);

  // ------------------------------------------------------------------ inter-topic map
  const circles = [];
  const labels = [];
  let labelLayer;
  function drawMap() {
    mapPanel.appendChild(el("h2", null, "Inter-topic distance map"));
    const W = 400, H = 400, pad = 8;
    const maxPrev = Math.max.apply(null, topics.map((t) => t.prevalence)) || 1;
    const rMax = W * Math.min(0.13, Math.max(0.045, 0.42 / Math.sqrt(K)));
    const radius = topics.map((t) => Math.max(3.5, rMax * Math.sqrt(t.prevalence / maxPrev)));
    const xs = topics.map((t) => t.x), ys = topics.map((t) => t.y);
    const minX = Math.min.apply(null, xs), maxX = Math.max.apply(null, xs);
    const minY = Math.min.apply(null, ys), maxY = Math.max.apply(null, ys);
    const span = Math.max(maxX - minX, maxY - minY);
    const inner = W - 2 * (pad + rMax);
    const scale = span > 0 ? inner / span : 0;
    const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
    const px = (x) => W / 2 + (x - cx) * scale;
    const py = (y) => H / 2 - (y - cy) * scale;
    const root = svg("svg", { viewBox: "0 0 " + W + " " + H, role: "img",
      "aria-label": "Topics placed by multidimensional scaling of Jensen-Shannon distances" });
    mapPanel.appendChild(root);  // in the document first, so that the labels can be measured
    root.appendChild(svg("line", { "class": "axis", x1: pad, x2: W - pad, y1: py(0), y2: py(0) }));
    root.appendChild(svg("line", { "class": "axis", x1: px(0), x2: px(0), y1: pad, y2: H - pad }));
    root.appendChild(svg("text", { "class": "axis-label", x: W - pad, y: py(0) - 4, "text-anchor": "end" }, "PC1"));
    root.appendChild(svg("text", { "class": "axis-label", x: px(0) + 4, y: pad + 10 }, "PC2"));
    const order = topics.map((t, k) => k).sort((a, b) => radius[b] - radius[a]);
    const circleLayer = svg("g");
    labelLayer = svg("g");
    for (const k of order) {
      const t = topics[k];
      const c = svg("circle", { "class": "topic-circle" + (t.junk && t.junk.length ? " junk" : ""), "data-topic": k, cx: fmt(px(t.x), 2), cy: fmt(py(t.y), 2),
        r: fmt(radius[k], 2), tabindex: 0, role: "button",
        "aria-label": topicName(k) + ", " + pct(t.prevalence) + " of tokens" });
      c.appendChild(svg("title", null, topicName(k) + " \u2014 " + pct(t.prevalence) + " of tokens\n" +
        wordList(t.top_words.slice(0, 6))));
      c.addEventListener("mouseenter", () => show(k));
      c.addEventListener("mouseleave", () => show(state.selected));
      c.addEventListener("click", () => select(k));
      c.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(k); } });
      circles[k] = c;
      circleLayer.appendChild(c);
      const lab = svg("text", { "class": "topic-label", x: fmt(px(t.x), 2), y: fmt(py(t.y), 2),
        "font-size": Math.max(9, Math.min(14, radius[k] * 0.8)).toFixed(1) }, k);
      labels[k] = lab;
      labelLayer.appendChild(lab);
    }
    const leaderLayer = svg("g");
    root.appendChild(circleLayer);
    root.appendChild(leaderLayer);
    root.appendChild(labelLayer);
    placeLabels(order, px, py, radius, W, H, leaderLayer);
    mapPanel.appendChild(el("p", { "class": "map-caption" },
      "Circle area \u221d prevalence. Hover to preview a topic, click to select it; \u2190 \u2192 keys step through topics."));
  }

  // Labels of nearby topics must not run into each other ("36" read for topics 3 and 6): each label,
  // the largest circles first, goes to the centre of its circle if that is free, else to the first free
  // place on rings around the circle (8 directions, growing distance), with a leader line to the circle.
  // Boxes are the rendered text extents (getBBox), with an estimate where the browser gives none.
  function placeLabels(order, px, py, radius, W, H, leaderLayer) {
    const placed = [];
    const gap = 1.5;
    const overlaps = (a, b) => a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap;
    const inside = (b) => b.x0 >= 1 && b.y0 >= 1 && b.x1 <= W - 1 && b.y1 <= H - 1;
    const dirs = [[1, 0], [-1, 0], [0, -1], [0, 1], [0.7071, -0.7071], [-0.7071, -0.7071], [0.7071, 0.7071], [-0.7071, 0.7071]];
    for (const k of order) {
      const lab = labels[k];
      const size = Number(lab.getAttribute("font-size"));
      let w = 0, h = 0;
      try { const bb = lab.getBBox(); w = bb.width; h = bb.height; } catch (err) { /* not rendered */ }
      if (!(w > 0) || !(h > 0)) { w = 0.7 * size * String(k).length; h = 1.2 * size; }
      const cx = px(topics[k].x), cy = py(topics[k].y), r = radius[k];
      const box = (x, y) => ({ x: x, y: y, x0: x - w / 2, x1: x + w / 2, y0: y - h / 2, y1: y + h / 2 });
      const candidates = [box(cx, cy)];
      for (let ring = 0; ring < 6; ring++) {
        for (const d of dirs) {
          const reach = r + 3 + ring * 0.9 * Math.max(w, h);
          candidates.push(box(cx + d[0] * (reach + w / 2), cy + d[1] * (reach + h / 2)));
        }
      }
      let best = null, bestCost = Infinity;
      for (const c of candidates) {
        let cost = inside(c) ? 0 : 1e6;
        for (const p of placed) if (overlaps(c, p)) cost += 1 + (Math.min(c.x1, p.x1) - Math.max(c.x0, p.x0)) * (Math.min(c.y1, p.y1) - Math.max(c.y0, p.y0));
        if (cost === 0) { best = c; break; }
        if (cost < bestCost) { best = c; bestCost = cost; }
      }
      placed.push(best);
      lab.setAttribute("x", fmt(best.x, 2));
      lab.setAttribute("y", fmt(best.y, 2));
      if (best.x !== cx || best.y !== cy) {
        lab.classList.add("outside");
        const dx = best.x - cx, dy = best.y - cy, dist = Math.hypot(dx, dy) || 1;
        // from the circle's edge to the edge of the label's box, along the line between their centres
        const t = Math.min(w / 2 / Math.max(Math.abs(dx), 1e-9), h / 2 / Math.max(Math.abs(dy), 1e-9), 1);
        leaderLayer.appendChild(svg("line", { "class": "leader", "data-topic": k,
          x1: fmt(cx + dx * r / dist, 2), y1: fmt(cy + dy * r / dist, 2),
          x2: fmt(best.x - dx * t, 2), y2: fmt(best.y - dy * t, 2) }));
      }
    }
  }

  // ------------------------------------------------------------------ term bars
  let termTitle, termList, lambdaOut, slider, topicSelect;
  function drawTermPanel() {
    const nav = el("div", { "class": "nav" });
    const prev = el("button", { type: "button", title: "previous topic" }, "\u25c0");
    const next = el("button", { type: "button", title: "next topic" }, "\u25b6");
    topicSelect = el("select", { "aria-label": "topic" });
    for (let k = 0; k < K; k++) {
      topicSelect.appendChild(el("option", { value: k }, topicName(k) + " (" + pct(topics[k].prevalence) + ")"));
    }
    prev.addEventListener("click", () => select((state.selected + K - 1) % K));
    next.addEventListener("click", () => select((state.selected + 1) % K));
    topicSelect.addEventListener("change", () => select(Number(topicSelect.value)));
    nav.appendChild(prev); nav.appendChild(topicSelect); nav.appendChild(next);
    termTitle = el("h2");
    termPanel.appendChild(termTitle);
    termPanel.appendChild(nav);

    const row = el("label", { "class": "slider", title: "1: rank by p(w|k); 0: rank by lift p(w|k)/p(w); about 0.6 is often most readable" });
    row.appendChild(el("span", null, "Relevance \u03bb"));
    slider = el("input", { type: "range", min: 0, max: 1, step: 0.01, value: state.lambda, "aria-label": "relevance lambda" });
    lambdaOut = el("output", null, fmt(state.lambda, 2));
    slider.addEventListener("input", () => {
      state.lambda = Number(slider.value);
      lambdaOut.textContent = fmt(state.lambda, 2);
      renderTerms(state.shown);
      remember();
    });
    row.appendChild(slider); row.appendChild(lambdaOut);
    termPanel.appendChild(row);

    const legend = el("div", { "class": "legend" });
    const l1 = el("span"); l1.appendChild(el("span", { "class": "swatch", style: "background:var(--totalbar)" })); l1.appendChild(document.createTextNode("corpus count"));
    const l2 = el("span"); l2.appendChild(el("span", { "class": "swatch", style: "background:var(--topicbar)" })); l2.appendChild(document.createTextNode("estimated count in topic"));
    legend.appendChild(l1); legend.appendChild(l2);
    termPanel.appendChild(legend);
    termList = el("div", { "class": "term-list" });
    termPanel.appendChild(termList);
  }

  function renderTerms(k) {
    const t = topics[k];
    const ranked = rankTerms(k, state.lambda);
    termTitle.textContent = "";
    termTitle.appendChild(document.createTextNode("Top " + ranked.length + " terms of topic " + k + " "));
    termTitle.appendChild(el("span", { "class": "muted" }, state.lambda === 1 ? "(by p(w|k))" : "(by relevance)"));
    const maxCount = Math.max.apply(null, ranked.map((r) => data.term_count[r.w])) || 1;
    const frag = document.createDocumentFragment();
    for (const r of ranked) {
      const term = data.terms[r.w];
      const total = data.term_count[r.w];
      const inTopic = Math.min(total, r.phi * t.tokens);
      const lift = data.term_prob[r.w] > 0 ? r.phi / data.term_prob[r.w] : Infinity;
      const row = el("div", { "class": "term", "data-term": term });
      row.title = term + "\np(w|k) = " + r.phi.toPrecision(3) + "   lift = " + (isFinite(lift) ? lift.toPrecision(3) : "\u221e") +
        "\ncount in topic \u2248 " + fmtCount(inTopic) + " of " + fmtCount(total) + " in the corpus";
      row.appendChild(el("span", { "class": "label" }, term));
      const track = el("span", { "class": "track" });
      const a = el("span", { "class": "total" }); a.style.width = (100 * total / maxCount).toFixed(2) + "%";
      const b = el("span", { "class": "intopic" }); b.style.width = (100 * inTopic / maxCount).toFixed(2) + "%";
      track.appendChild(a); track.appendChild(b);
      row.appendChild(track);
      frag.appendChild(row);
    }
    termList.textContent = "";
    termList.appendChild(frag);
  }

  // ------------------------------------------------------------------ topic facts and documents
  function ordinal(n) {
    const s = ["th", "st", "nd", "rd"], v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  }
  const prevRank = rankOf(topics.map((t) => t.prevalence));
  const cohRank = data.coherence_measure ? rankOf(topics.map((t) => t.coherence)) : null;
  function rankOf(values) {
    const order = values.map((v, i) => i).sort((a, b) => values[b] - values[a] || a - b);
    const rank = new Array(values.length);
    order.forEach((k, r) => { rank[k] = r + 1; });
    return rank;
  }

  function renderInfo(k) {
    const t = topics[k];
    infoPanel.textContent = "";
    infoPanel.appendChild(el("h2", null, topicName(k)));
    const dl = el("dl", { "class": "stats" });
    const add = (name, value) => { dl.appendChild(el("dt", null, name)); dl.appendChild(el("dd", null, value)); };
    add("Prevalence", pct(t.prevalence) + " of tokens (\u2248 " + fmtCount(t.tokens) + "), " + ordinal(prevRank[k]) + " of " + K);
    if (data.coherence_measure) add("Coherence", data.coherence_measure + " " + fmt(t.coherence, 3) + ", " + ordinal(cohRank[k]) + " of " + K);
    if (t.nearest) add("Nearest topic", "topic " + t.nearest.topic + (topics[t.nearest.topic].label ? " \u00b7 " + topics[t.nearest.topic].label : "") + " (JS distance " + fmt(t.nearest.distance, 3) + ")");
    if (t.junk && t.junk.length) {
      dl.appendChild(el("dt", null, "Flag"));
      const dd = el("dd");
      dd.appendChild(el("span", { "class": "junk" }, "probably junk: " + t.junk.join(", ")));
      const why = { "non-words": "half or more of its top words have a digit, no letter or under 3 characters",
        "few documents": "10 or fewer documents hold more than half of its tokens" };
      dd.appendChild(el("span", { "class": "muted" }, " (" + t.junk.map((r) => why[r] || r).join("; ") + ")"));
      dl.appendChild(dd);
    }
    if (t.seeds_lost_to) {
      dl.appendChild(el("dt", null, "Seed words"));
      const dd = el("dd");
      dd.appendChild(el("span", { "class": "junk" }, "lost to " + t.seeds_lost_to));
      dd.appendChild(el("span", { "class": "muted" }, " (this seeded topic holds less than half the share of its seed words that its prior gives it: its name may not describe it)"));
      dl.appendChild(dd);
    }
    add("Top words", wordList(t.top_words));
    infoPanel.appendChild(dl);
    infoPanel.appendChild(el("h3", null, "Most representative documents"));
    if (!t.docs.length) infoPanel.appendChild(el("p", { "class": "muted" }, "No non-empty document."));
    for (const d of t.docs) {
      const box = el("div", { "class": "doc", "data-doc": d.index });
      const id = el("span", { "class": "docid" });
      for (const part of String(d.id).replace(/([._\/:-])/g, "$1\u0000").split("\u0000")) {  // allow line breaks after separators
        id.appendChild(document.createTextNode(part));
        id.appendChild(document.createElement("wbr"));
      }
      box.appendChild(id);
      box.appendChild(el("span", { "class": "share" }, pct(d.share) + " topic " + k));
      if (d.text !== null && d.text !== undefined) box.appendChild(el("p", { "class": "text" }, d.text === "" ? "(empty text)" : d.text));
      infoPanel.appendChild(box);
    }
  }

  // ------------------------------------------------------------------ selection
  const tableRows = Array.prototype.slice.call(document.querySelectorAll("table.summary tbody tr[data-row]"));
  function show(k) {
    state.shown = k;
    labelLayer.appendChild(labels[state.selected]);  // the selected and shown labels stay readable on top
    labelLayer.appendChild(labels[k]);
    for (let j = 0; j < K; j++) {
      circles[j].classList.toggle("hover", j === k && j !== state.selected);
    }
    renderTerms(k);
    renderInfo(k);
  }
  function select(k) {
    state.selected = k;
    for (let j = 0; j < K; j++) {
      circles[j].classList.toggle("selected", j === k);
      labels[j].classList.toggle("selected", j === k);
    }
    for (const tr of tableRows) tr.classList.toggle("selected", Number(tr.getAttribute("data-row")) === k);
    topicSelect.value = String(k);
    show(k);
    remember();
  }
  // the URL hash keeps the view: #topic=3&lambda=0.6
  function remember() {
    try { history.replaceState(null, "", "#topic=" + state.selected + "&lambda=" + fmt(state.lambda, 2)); }
    catch (err) { /* some browsers refuse on file:// */ }
  }
  function fromHash() {
    const out = {};
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      const kv = part.split("=");
      if (kv.length === 2) out[kv[0]] = kv[1];
    }
    // (snapped to the slider's steps of 0.01: the weights whose candidate terms the page holds)
    const k = Number(out.topic), lam = Math.round(Number(out.lambda) * 100) / 100;
    if (out.lambda !== undefined && isFinite(lam) && lam >= 0 && lam <= 1) {
      state.lambda = lam; slider.value = String(lam); lambdaOut.textContent = fmt(lam, 2);
    }
    return out.topic !== undefined && Number.isInteger(k) && k >= 0 && k < K ? k : 0;
  }

  try {
    drawMap();
    drawTermPanel();
    for (const tr of tableRows) {
      tr.addEventListener("click", () => { select(Number(tr.getAttribute("data-row"))); app.scrollIntoView({ behavior: "smooth" }); });
    }
    document.addEventListener("keydown", (ev) => {
      const tag = ev.target && ev.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
      if (ev.key === "ArrowRight") select((state.selected + 1) % K);
      else if (ev.key === "ArrowLeft") select((state.selected + K - 1) % K);
    });
    select(fromHash());
    app.setAttribute("data-rendered", "true");
  } catch (err) {
    showError(err && err.message ? err.message : String(err));
  }
})();
"""
