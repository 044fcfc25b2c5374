// A versus B: where the corpus-level difference comes from.

let ngramCache = {key: null, result: null, pending: null};

// Per order, the n-grams that A's output matches (clipped) more often than B's
// in the same segment, and the reverse, summed over segments, with the
// segments where each happens (for click-through).
async function computeNgramDiffs(d, onProgress) {
  const key = state.a + ":" + state.b;
  if (ngramCache.key === key && ngramCache.result) return ngramCache.result;
  if (ngramCache.key === key && ngramCache.pending) return ngramCache.pending;
  const A = d.systems[state.a], B = d.systems[state.b];
  const orders = [];
  for (let n = 1; n <= d.max_order; n++) orders.push({a: new Map(), b: new Map()});
  const add = (map, g, diff, i) => {
    let e = map.get(g);
    if (!e) { e = {gram: g, count: 0, segments: []}; map.set(g, e); }
    e.count += diff;
    if (e.segments[e.segments.length - 1] !== i) e.segments.push(i);
  };
  const pending = (async () => {
    await chunked(d.n_segments, (i) => {
      const maxRef = maxReferenceCounts(referenceTokenLists(d, i), d.max_order);
      const matchesA = clippedMatches(d, A, i, maxRef), matchesB = clippedMatches(d, B, i, maxRef);
      for (let n = 0; n < d.max_order; n++) {
        const ma = matchesA[n], mb = matchesB[n];
        for (const [g, c] of ma) { const diff = c - (mb.get(g) || 0); if (diff > 0) add(orders[n].a, g, diff, i); }
        for (const [g, c] of mb) { const diff = c - (ma.get(g) || 0); if (diff > 0) add(orders[n].b, g, diff, i); }
      }
      if (onProgress && i % 2000 === 0) onProgress(i);
    });
    const top = (map) => Array.from(map.values()).sort((x, y) => y.count - x.count || (x.gram < y.gram ? -1 : 1));
    const result = orders.map((o) => ({a: top(o.a), b: top(o.b)}));
    if (ngramCache.key === key) { ngramCache.result = result; ngramCache.pending = null; }
    return result;
  })();
  ngramCache = {key, result: null, pending};
  return pending;
}

function ngramSegments(d) {
  const r = ngramCache.key === state.a + ":" + state.b ? ngramCache.result : null;
  if (!r) { computeNgramDiffs(d).then(() => { filterCache.key = null; update(); }); return new Set(); }
  const side = r[state.ngramOrder - 1][state.ngramSide === "b" ? "b" : "a"];
  const entry = side.find((e) => e.gram === state.ngram);
  return new Set(entry ? entry.segments : []);
}

function renderCompare(root, d) {
  const A = d.systems[state.a], B = d.systems[state.b];
  const indices = currentIndices(d);
  const metric = compareMetric(d);                                      // 62-compare-metrics.js
  const name = markInvisible(metric.name), digits = metric.digits;  // a metric name may be any text
  const delta = metric.score(state.b) - metric.score(state.a);
  root.appendChild(el("section", {class: "card"}, el("h2", null, "A versus B"),
    el("p", null, "A = ", el("b", {class: "sys-a"}, text(A.name)), ` (${name} ${pyFixed(metric.score(state.a), digits)}), B = `,
      el("b", {class: "sys-b"}, text(B.name)), ` (${name} ${pyFixed(metric.score(state.b), digits)}): corpus Δ${name} (B − A) = `,
      el("b", {"data-value": "corpus-delta"}, signed(delta, digits)), " ", metricSelector(d)),
    isFiltered() ? el("p", {class: "note"}, "A filter is active (see Segments); the tables below follow it where they say so.") : null,
    // BLEU's page: BLEU of the filter; several metrics: every metric's (42-metric-subsets.js)
    d.metrics ? (isFiltered() ? renderMetricSubset(d, indices) : null) : renderSubsetSummary(d, indices)));
  renderMetricDeltas(root, d);

  // contributions
  const {best, worst} = extremeContributions(d, metric, indices, 12);
  const contributionTable = () => ({columns: [{label: "segment", numeric: true}, {label: "contribution to Δ", numeric: true},
    {label: `sentence ${name} A`, numeric: true}, {label: `sentence ${name} B`, numeric: true}, {label: "output B"}],
  rows: best.concat(worst).map(({i, c}) => [String(i + 1), signed(c, digits + 2), pyFixed(metric.sentence(state.a, i), digits), pyFixed(metric.sentence(state.b, i), digits), B.text[i]])});
  const chart = horizontalBarChart({valueLabel: `Δ corpus ${name} explained by the segment (Δ with it − Δ without it)`,
    rows: best.concat(worst.filter((w) => !best.includes(w))).map(({i, c}) => ({label: `#${i + 1} ${B.text[i]}`, value: c, text: signed(c, digits + 1), i,
      color: deltaColor(metric, c), attrs: {"data-segment": i}})),
    onClick: (r) => selectSegment(r.i, true)});
  chart.setAttribute("data-chart", "contributions");
  root.appendChild(el("section", {class: "card", id: "contributions", "data-metric": name}, el("h2", null, `Segments that move the corpus difference most (${name})`),
    el("p", {class: "note"}, COMPARE_HELP + ` Bars in B's colour favour B (${metric.higherIsBetter ? "higher" : "lower"} ${name} is better), in A's colour favour A. Click a bar to open the segment.` + (isFiltered() ? " Among the filtered segments." : "")),
    el("div", {class: "toolbar"}, svgExportButton(() => chart, "contributions"), exportButtons(contributionTable, "contributions", `Segments with the largest contributions to the corpus ${name} difference`)),
    chart));

  // documents
  if (d.documents && metric.document) {
    const docs = d.documents;
    const order = docs.names.map((_, k) => k);
    const counts = new Array(docs.names.length).fill(0);
    for (const k of docs.index) counts[k]++;
    const docDelta = (k) => metric.document(state.b, k) - metric.document(state.a, k);
    const magnitude = (k) => { const v = Math.abs(docDelta(k)); return Number.isNaN(v) ? -1 : v; };
    order.sort((x, y) => magnitude(y) - magnitude(x) || x - y);
    const docTable = () => ({columns: [{label: "document"}, {label: "segments", numeric: true}, {label: `${name} A`, numeric: true}, {label: `${name} B`, numeric: true}, {label: "Δ (B − A)", numeric: true}],
      rows: order.map((k) => [docs.names[k], String(counts[k]), pyFixed(metric.document(state.a, k), digits), pyFixed(metric.document(state.b, k), digits), signed(docDelta(k), digits)])});
    const t = docTable();
    const nodes = order.map((k, r) => [el("button", {type: "button", class: "link", onclick: () => { state.doc = docs.names[k]; state.view = "segments"; state.seg = null; update(); }}, text(docs.names[k])), ...t.rows[r].slice(1)]);
    root.appendChild(el("section", {class: "card", id: "documents", "data-metric": name}, el("h2", null, `Documents ranked by |Δ${name}|`),
      el("p", {class: "note"}, `A document's ${name} is the corpus ${name} of its segments. Click a document to browse its segments.`),
      el("div", {class: "toolbar"}, exportButtons(docTable, "documents", `Documents ranked by ${name} difference`)),
      el("div", {class: "scroll-y"}, renderTable({columns: t.columns, rows: t.rows, nodes}, {class: "documents", rowAttrs: (r) => ({"data-doc": order[r]})}))));
  }
  if (!metric.isBleu) {
    if (!bleuShown(d)) return;                                          // a page without BLEU says nothing of it
    root.appendChild(el("p", {class: "note", id: "bleu-only"}, "BLEU's n-gram differences and its length and frequency buckets are shown with BLEU chosen above."));
    return;
  }

  // n-gram differences
  const ngramSection = el("section", {class: "card", id: "ngram-diffs"}, el("h2", null, "N-grams one system matches and the other misses"),
    el("p", {class: "note"}, "Per segment, the clipped matches of each n-gram by A and by B; the table adds up the surplus over all segments. Click an n-gram to see its segments."),
    el("p", {class: "muted"}, "computing…"));
  root.appendChild(ngramSection);
  computeNgramDiffs(d, (i) => { const p = ngramSection.querySelector(".muted"); if (p) p.textContent = `computing… ${i} / ${d.n_segments}`; })
    .then((diffs) => { if (document.body.contains(ngramSection)) fillNgramSection(ngramSection, d, diffs); });

  // buckets
  root.appendChild(bucketSection(d, "length", "BLEU by reference length (tokens of the first reference)", "BLEU", d.buckets.length.bleu, d.buckets.length.ci, d.buckets.length.segments, "segments"));
  root.appendChild(bucketSection(d, "frequency", "Word F-measure by frequency in the references (compare-mt's analysis)", "F1 (%)", d.buckets.frequency.f, d.buckets.frequency.ci, d.buckets.frequency.ref_words, "reference words"));
}

// The k segments with the largest and the k with the smallest contribution, in
// one pass (no sort of the whole list: a corpus may have 200k segments).
function extremeContributions(d, metric, indices, k) {
  const best = [], worst = [];
  const insert = (list, item, before) => {
    let pos = list.length;
    while (pos > 0 && before(item, list[pos - 1])) pos--;
    if (pos < k) { list.splice(pos, 0, item); if (list.length > k) list.pop(); }
  };
  for (const i of indices) {
    const item = {i, c: metricContribution(metric, i)};
    if (Number.isNaN(item.c)) continue;
    if (best.length < k || item.c > best[best.length - 1].c) insert(best, item, (x, y) => x.c > y.c || (x.c === y.c && x.i < y.i));
    if (worst.length < k || item.c < worst[worst.length - 1].c) insert(worst, item, (x, y) => x.c < y.c || (x.c === y.c && x.i > y.i));
  }
  return {best, worst};
}

function fillNgramSection(section, d, diffs) {
  const muted = section.querySelector(".muted");
  if (muted) muted.remove();
  const n = state.ngramOrder;
  const tabs = el("div", {class: "orders"}, "order: ");
  for (let k = 1; k <= d.max_order; k++) tabs.appendChild(el("button", {type: "button", class: "small" + (k === n ? " active" : ""), "data-ngram-order": k,
    onclick: () => { state.ngramOrder = k; writeHash(); rerenderNgrams(section, d, diffs); }}, String(k)));
  const A = d.systems[state.a], B = d.systems[state.b];
  const side = (key, label) => {
    const rows = diffs[n - 1][key].slice(0, 25);
    const table = () => ({columns: [{label: `${n}-gram`}, {label: "surplus matches", numeric: true}, {label: "segments", numeric: true}],
      rows: rows.map((e) => [e.gram, String(e.count), String(e.segments.length)])});
    const nodes = rows.map((e) => [el("button", {type: "button", class: "link", "data-ngram": e.gram, onclick: () => {
      Object.assign(state, {ngram: e.gram, ngramOrder: n, ngramSide: key, view: "segments", seg: e.segments[0]}); update(); }}, text(e.gram)), String(e.count), String(e.segments.length)]);
    return el("div", {class: "half"}, el("h3", null, label), el("div", {class: "toolbar"}, exportButtons(table, `ngrams-${key}-${n}`, label)),
      renderTable({columns: table().columns, rows: table().rows, nodes}, {class: "compact ngrams-" + key}));
  };
  section.append(tabs, el("div", {class: "halves"},
    side("a", `matched by A (${A.name}) more often than by B`), side("b", `matched by B (${B.name}) more often than by A`)));
}

function rerenderNgrams(section, d, diffs) {
  const keep = Array.from(section.children).slice(0, 2);
  clear(section).append(...keep);
  fillNgramSection(section, d, diffs);
}

function bucketSection(d, key, title, yLabel, values, cis, sizes, sizeLabel) {
  const labels = d.buckets[key].labels;
  const series = [state.a, state.b].map((k, j) => ({name: (j ? "B: " : "A: ") + d.systems[k].name, values: values[k], ci: cis[k], color: j ? COLOR_B : COLOR_A}));
  const chart = groupedBarChart({labels, series, yLabel});
  const table = () => ({columns: [{label: "bucket"}, {label: sizeLabel, numeric: true},
    ...d.systems.map((s) => ({label: s.name, numeric: true}))],
  rows: labels.map((label, b) => [label, String(sizes[b]), ...d.systems.map((s, k) => values[k][b] === null ? "–" : `${pyFixed(values[k][b], 2)} ± ${pyFixed(cis[k][b], 2)}`)])});
  return el("section", {class: "card", id: "buckets-" + key}, el("h2", null, title),
    el("p", {class: "note"}, `Bars: A and B; whiskers: 95% bootstrap interval (${d.significance.n_samples} samples, seed ${d.significance.seed}). The table lists every system.`),
    el("div", {class: "toolbar"}, svgExportButton(() => chart, "buckets-" + key), exportButtons(table, "buckets-" + key, title)),
    chart, el("div", {class: "scroll-x"}, renderTable(table(), {class: "compact"})));
}
