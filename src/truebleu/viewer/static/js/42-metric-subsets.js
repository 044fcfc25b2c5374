// Every metric on the filtered segments (a report built with -m or --scores): each
// metric's score of A and B on the subset and their difference, scored from the
// metric's additive rows exactly as truebleu's API scores them (viewer/metrics_model.py
// sends the rows and how to score them), and in `serve` the exact paired test of the
// subset by any metric (POST api/paired with the metric's name). A page whose metrics
// do not include BLEU shows no BLEU at all: its first metric is the page's primary one.

// Whether the page shows BLEU: the BLEU-only report, or BLEU among the chosen metrics.
function bleuShown(d) { return !d.metrics || d.metrics.list.some((m) => m.own_bleu); }

// The metric the page ranks and picks A and B by: the first one chosen.
function primaryMetric(d) { return d.metrics ? d.metrics.list[0] : null; }

// NumPy's pairwise sum of a float64 vector (what the API's x.sum() does: blocks of
// eight partial sums under 128 values, halves above), so a float column's subset
// sum has the same bits as Python's.
function numpyPairwiseSum(values, start, n) {
  if (n < 8) { let s = -0.0; for (let i = 0; i < n; i++) s += values[start + i]; return s; }
  if (n <= 128) {
    const r = new Float64Array(8);
    for (let j = 0; j < 8; j++) r[j] = values[start + j];
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += values[start + i + j];
    let s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; i++) s += values[start + i];
    return s;
  }
  let half = Math.floor(n / 2);
  half -= half % 8;
  return numpyPairwiseSum(values, start, half) + numpyPairwiseSum(values, start + half, n - half);
}

// Column sums of the rows `indices` of a flat row-major table: exact integer sums
// (chrF's counts), or NumPy's pairwise float64 sums (TER's averaged lengths).
function columnSums(flat, width, indices, pairwise) {
  const sums = new Float64Array(width);
  if (!pairwise) {
    for (const i of indices) for (let c = 0; c < width; c++) sums[c] += flat[i * width + c];
    return sums;
  }
  const column = new Float64Array(indices.length);
  for (let c = 0; c < width; c++) {
    for (let p = 0; p < indices.length; p++) column[p] = flat[indices[p] * width + c];
    sums[c] = numpyPairwiseSum(column, 0, column.length);
  }
  return sums;
}

// truebleu.metrics.chrf.spec.f_score on a summed row, the same operations in the same order.
function chrfScore(row, beta, epsSmoothing) {
  const EPS = 1e-16, order = row.length / 3, factor = beta ** 2;
  let score = 0.0, effective = 0, avgPrec = 0.0, avgRec = 0.0;
  for (let i = 0; i < order; i++) {
    const nHyp = row[3 * i], nRef = row[3 * i + 1], nMatch = row[3 * i + 2];
    const prec = nHyp > 0 ? nMatch / nHyp : EPS;
    const rec = nRef > 0 ? nMatch / nRef : EPS;
    const denom = factor * prec + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : EPS;
    if (nHyp > 0 && nRef > 0) { avgPrec += prec; avgRec += rec; effective++; }
  }
  if (epsSmoothing) return 100 * score / order;
  if (effective === 0) { avgPrec = 0.0; avgRec = 0.0; } else { avgPrec /= effective; avgRec /= effective; }
  if (avgPrec + avgRec) { score = (1 + factor) * avgPrec * avgRec; score /= (factor * avgPrec) + avgRec; return 100 * score; }
  return 0.0;
}

// truebleu.metrics.ter.metric.score_from_totals.
function terScore(edits, length) {
  return 100 * (length > 0 ? edits / length : edits > 0 ? 1.0 : 0.0);
}

// Metric m's corpus score of system k on `indices` (ascending); the API's own score on
// every segment (an external metric's official system score, where it has one).
function metricSubsetScore(d, m, k, indices) {
  if (indices.length === d.n_segments) return m.score[k] === null ? NaN : m.score[k];
  const how = m.scoring;
  if (!how || indices.length === 0) return NaN;
  if (how.kind === "bleu") return corpusBleuOf(d, d.systems[k], indices).score;
  if (how.kind === "mean") {
    const rows = m.sentence[k], column = new Float64Array(indices.length);
    for (let p = 0; p < indices.length; p++) column[p] = rows[indices[p]] === null ? NaN : rows[indices[p]];
    return numpyPairwiseSum(column, 0, column.length) / indices.length;
  }
  if (!how.flat) how.flat = how.stats.map((rows) => Float64Array.from(rows));
  const sums = columnSums(how.flat[k], how.width, indices, how.kind === "ter");
  if (how.kind === "chrf") return chrfScore(sums, how.beta, how.eps_smoothing);
  if (how.kind === "ter") return terScore(sums[0], sums[1]);
  return NaN;
}

function metricPairP(m, a, b) {
  for (const [x, y, p] of m.pairs) if ((x === a && y === b) || (x === b && y === a)) return p;
  return null;
}

// The subset table: per metric A's and B's score on the filtered segments and Δ (B − A).
function metricSubsetTable(d, indices) {
  if (singleSystem(d)) {                                                // 45-metric-segments.js
    return {columns: [{label: "Metric"}, {label: "Score", numeric: true}], rows: d.metrics.list.map((m) =>
      [metricLabel(m), pyFixed(metricSubsetScore(d, m, state.a, indices), metricDigits(m))])};
  }
  const columns = [{label: "Metric"}, {label: "A", numeric: true}, {label: "B", numeric: true}, {label: "\u0394 (B \u2212 A)", numeric: true}];
  const rows = d.metrics.list.map((m) => {
    const digits = metricDigits(m);                                      // 32-metrics-overview.js
    const a = metricSubsetScore(d, m, state.a, indices), b = metricSubsetScore(d, m, state.b, indices);
    return [metricLabel(m), pyFixed(a, digits), pyFixed(b, digits), signed(b - a, digits)];
  });
  return {columns, rows};
}

function renderMetricSubset(d, indices) {
  if (!d.metrics) return null;
  const table = metricSubsetTable(d, indices);
  const all = indices.length === d.n_segments;
  const results = d.metrics.list.map(() => el("span", {class: "test-result"}));
  const single = singleSystem(d);
  const nodes = table.rows.map((row, j) => single ? row : row.concat([results[j]]));
  const columns = single ? table.columns : table.columns.concat([{label: "paired test"}]);
  const tableEl = renderTable({columns, rows: nodes.map((r) => r.map((c) => c instanceof Node ? "" : c)), nodes}, {class: "metric-subset",
    rowAttrs: (j) => ({"data-metric": j})});
  d.metrics.list.forEach((m, j) => { if (all) showMetricFullTest(d, m, results[j]); });
  const canTest = MODE === "serve" && !all && indices.length >= 2 && !single;
  return el("div", {class: "block", id: "metric-subset"},
    el("div", {class: "toolbar"},
      el("span", {class: "label"}, all ? "Every metric on all segments" : `Every metric on these ${indices.length} segments`), " ",
      exportButtons(() => metricSubsetTable(d, currentIndices(d)), "metric-subset", "Every metric of A and B on the filtered segments"),
      canTest ? el("button", {type: "button", class: "small", "data-control": "run-metric-tests",
        onclick: () => runMetricTests(d, indices, results)}, "paired tests") : null),
    !all && MODE !== "serve" && !single ? el("p", {class: "note", "data-value": "needs-serve"},
      "The paired test of a filter, by every metric, runs in truebleu serve (the same report, with the exact API tests).") : null,
    el("div", {class: "scroll-x"}, tableEl));
}

function showMetricFullTest(d, m, target) {
  const p = metricPairP(m, state.a, state.b);
  if (p === null) return;
  const info = d.metrics, alpha = d.significance.alpha || 0.05;
  clear(target).appendChild(el("span", {class: p < alpha ? "significant" : "not-significant"},
    `${formatPValue(p, alpha)} (${info.test === "bs" ? "paired bootstrap" : "approximate randomization"}, ${info.n_samples} samples, seed ${info.seed}; truebleu API)`));
}

// serve: one exact paired bootstrap per metric on the filtered segments, one after another.
async function runMetricTests(d, indices, targets) {
  const info = d.metrics;
  for (const [j, m] of info.list.entries()) {
    const target = targets[j];
    clear(target).appendChild(text("testing\u2026"));
    const response = await fetch("api/paired", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({a: state.a, b: state.b, segments: Array.from(indices), n_samples: info.n_samples, seed: info.seed, metric: m.name})});
    if (!response.ok) { clear(target).appendChild(text("error: " + (await response.text()))); continue; }
    const r = await response.json();
    clear(target).appendChild(el("span", {class: r.p < 0.05 ? "significant" : "not-significant", "data-p": String(r.p), "data-delta": String(r.delta)},
      `${formatPValue(r.p, 0.05)} (paired bootstrap, ${r.n} samples, seed ${r.seed}, ${r.segments} segments; truebleu API)`));
  }
}

// -- a page without BLEU -------------------------------------------------------

// Segment detail without BLEU's n-grams: the texts, then every metric's scores (55-metric-detail.js).
function renderPlainSegment(root, d, i) {
  if (d.source) root.appendChild(el("div", {class: "block"}, el("div", {class: "label"}, "Source"), el("div", {class: "seg-text", "data-field": "source"}, text(d.source[i]))));
  for (const r of d.references) {
    root.appendChild(el("div", {class: "block"}, el("div", {class: "label"}, "Reference ", text(r.name)),
      r.text[i] === null ? el("div", {class: "muted"}, "(no reference for this segment)") : el("div", {class: "seg-text", "data-field": "reference"}, text(r.text[i]))));
  }
  for (const [which, k] of [["A", state.a], ["B", state.b]]) {
    root.appendChild(el("div", {class: "block"}, el("div", {class: "label"}, `${which}: `, text(d.systems[k].name)),
      el("div", {class: "seg-text", "data-field": "output-" + which.toLowerCase()}, text(d.systems[k].text[i]))));
  }
  renderMetricDetail(root, d, i);
}
