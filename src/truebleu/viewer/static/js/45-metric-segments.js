// Every metric in the segment list (a report built with -m or --scores): each
// metric's sentence score of A and B and their difference as columns, sort and
// filter keys for each, and "where the metrics disagree".
//
// Where the metrics disagree: a metric prefers B on segment i by
//   z = (B's sentence score − A's) / spread, negated for a lower-is-better metric,
// where spread is the standard deviation of that metric's sentence scores over every
// system and segment (viewer/metrics_model.py), so that metrics on different scales
// weigh alike. A segment is disagreed on when one metric prefers B (z > 0) and another
// prefers A (z < 0); how strongly is the weaker side's strongest preference:
//   disagreement(i) = min(max over metrics of z, max over metrics of −z),
// large only when some metric holds strongly for A and another strongly for B.

// The metrics with columns of their own: every one but the page's own BLEU (the list's
// A, B and Δ columns are that one's).
function listedMetrics(d) {
  return d.metrics ? d.metrics.list.map((m, j) => ({m, j})).filter(({m}) => !m.own_bleu) : [];
}

function sentenceOf(m, k, i) { const v = m.sentence[k][i]; return v === null ? NaN : v; }
function metricDelta(m, i) { return sentenceOf(m, state.b, i) - sentenceOf(m, state.a, i); }
function sentenceDigits(m) { return m.external ? 3 : 1; }
// One system: nothing to compare it with, so each metric has one column (A's) and no Δ.
function singleSystem(d) { return d.systems.length < 2; }

function disagreement(d, i) {
  let forB = 0, forA = 0;
  for (const m of d.metrics.list) {
    if (!m.spread) continue;
    const z = (m.higher_is_better ? 1 : -1) * metricDelta(m, i) / m.spread;
    if (z > forB) forB = z;
    if (-z > forA) forA = -z;
  }
  return Math.min(forA, forB);
}

// The list's sort (and filter) keys: BLEU's (40-segments.js), then each metric's.
let sortKeysCache = {data: null, keys: null};
function sortKeys(d) {
  if (sortKeysCache.data === d) return sortKeysCache.keys;
  const keys = {};
  for (const [k, v] of Object.entries(SORT_KEYS)) if (!v.bleu || bleuShown(d)) keys[k] = v;
  for (const {m, j} of listedMetrics(d)) {
    keys[`m${j}a`] = {label: `${m.name} of A`, key: (d, i) => sentenceOf(m, state.a, i)};
    if (singleSystem(d)) continue;
    keys[`m${j}b`] = {label: `${m.name} of B`, key: (d, i) => sentenceOf(m, state.b, i)};
    keys[`m${j}d`] = {label: `\u0394${m.name} (B \u2212 A)`, key: (d, i) => metricDelta(m, i)};
  }
  if (d.metrics && d.metrics.list.length > 1 && !singleSystem(d)) keys.disagree = {label: "metrics disagree (strength)", key: disagreement};
  sortKeysCache = {data: d, keys};
  return keys;
}

// The range filter on any sort key: state.fcol, state.fmin, state.fmax.
function rangeFilter(d) {
  const keys = sortKeys(d);
  if (!state.fcol || !Object.hasOwn(keys, state.fcol) || (state.fmin === "" && state.fmax === "")) return null;
  const min = state.fmin === "" ? -Infinity : Number(state.fmin);
  const max = state.fmax === "" ? Infinity : Number(state.fmax);
  const key = keys[state.fcol].key;
  return (i) => { const v = key(d, i); return v >= min && v <= max; };
}

function renderMetricFilters(d) {
  if (!d.metrics) return null;
  const keys = sortKeys(d);
  return el("div", {class: "filters metric-filters"},
    el("label", null, "filter ", el("select", {"data-filter": "fcol", onchange: (e) => { state.fcol = e.target.value; state.seg = null; update(); }},
      el("option", {value: ""}, "(any column)"),
      Object.entries(keys).filter(([k]) => k !== "index").map(([k, v]) => el("option", {value: k, selected: state.fcol === k}, text(v.label))))),
    filterInput("≥", "fmin", {type: "number", step: "any", class: "narrow"}),
    filterInput("≤", "fmax", {type: "number", step: "any", class: "narrow"}),
    keys.disagree ? el("label", {class: "toggle", title: "segments where one metric prefers A and another B, the strongest disagreements first"},
      el("input", {type: "checkbox", "data-filter": "disagree", checked: state.disagree === "1",
        onchange: (e) => {
          state.disagree = e.target.checked ? "1" : "";
          if (e.target.checked) { state.sort = "disagree"; state.dir = -1; }
          state.seg = null; update();
        }}), " where the metrics disagree") : null,
    keys.disagree ? el("span", {class: "note"}, "disagreement: a metric's preference for B is its sentence-score difference B − A in units of its spread "
      + "(the standard deviation of its sentence scores), negated if lower is better; a segment's strength is min(strongest preference for B, strongest for A).") : null);
}

// The extra columns of the list: per metric A|B (stacked) and Δ, then the disagreement.
function metricHeads(d) {
  const heads = [];
  for (const {m, j} of listedMetrics(d)) {
    if (singleSystem(d)) { heads.push(sortableHead(m.name, `m${j}a`, `${m.name}: sentence score`)); continue; }
    heads.push(sortableHead(m.name, `m${j}a`, `${m.name}: sentence score of A (above) and B (below); sorts by A's`),
      sortableHead("\u0394", `m${j}d`, `\u0394${m.name} (B \u2212 A)`));
  }
  if (sortKeys(d).disagree) heads.push(sortableHead("disagr.", "disagree", "how strongly the metrics disagree (see the filter)"));
  return heads;
}

function metricCells(d, i) {
  const cells = [];
  for (const {m} of listedMetrics(d)) {
    const digits = sentenceDigits(m), delta = metricDelta(m, i);
    const better = m.higher_is_better ? delta : -delta;
    if (singleSystem(d)) { cells.push(el("span", {class: "num"}, pyFixed(sentenceOf(m, state.a, i), digits))); continue; }
    cells.push(el("span", {class: "num ab"}, el("span", {class: "a"}, pyFixed(sentenceOf(m, state.a, i), digits)),
      el("span", {class: "b"}, pyFixed(sentenceOf(m, state.b, i), digits))));
    cells.push(el("span", {class: "num " + (better > 0 ? "pos" : better < 0 ? "neg" : "")}, signed(delta, digits)));
  }
  if (sortKeys(d).disagree) cells.push(el("span", {class: "num"}, pyFixed(disagreement(d, i), 2)));
  return cells;
}

// The list's grid columns: BLEU's, then 60px + 52px per metric and 50px for the disagreement.
function segmentGrid(d) {
  const listed = listedMetrics(d).length;
  if (!listed && !sortKeys(d).disagree) return null;
  const bleu = bleuShown(d) ? " 44px 44px 48px 68px" : "";   // BLEU's A, B, Δ and contribution
  const base = (d.documents ? "54px 90px" : "54px") + bleu + " 36px";
  return base + (singleSystem(d) ? " 60px" : " 60px 52px").repeat(listed) + (sortKeys(d).disagree ? " 50px" : "") + " minmax(320px, 1fr)";
}
