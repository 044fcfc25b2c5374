// A versus B for every metric: the metric the reader picks (BLEU is one of them), Δ of
// each metric with its paired 95% interval and p-value, and the accessors the
// contributions and documents of 60-compare.js read, the same for every metric.
//
// The numbers are the payload's (viewer/metric_subsets.py, significance.compare_metrics):
// the page only subtracts them.

const COMPARE_HELP = "Contribution of a segment = Δ(all segments) − Δ(all segments but this one), " +
  "where Δ = corpus score of B − corpus score of A. Each metric's statistics are additive (counts, edits and lengths; " +
  "for an external score, the score and a count), so the corpus score without a segment is exact, not an estimate; " +
  "the contributions need not add up to Δ, since a corpus score is in general not a sum of sentence scores.";

// The metric the A vs B view explains: a common face over the page's own BLEU (a
// report without -m) and every entry of d.metrics.
function compareMetric(d) {
  if (!d.metrics) {
    const docs = d.documents;
    return {name: "BLEU", digits: 2, higherIsBetter: true, isBleu: true,
      score: (k) => d.systems[k].corpus.score, rowsScore: (k) => d.systems[k].corpus.score,
      without: (k, i) => d.systems[k].without[i], sentence: (k, i) => d.systems[k].sent[i],
      document: docs ? (k, j) => docs.bleu[k][j] : null};
  }
  const m = d.metrics.list[state.cm] || d.metrics.list[0];
  const value = (v) => v === null || v === undefined ? NaN : v;
  return {name: m.name, digits: metricDigits(m), higherIsBetter: m.higher_is_better, isBleu: m.own_bleu, entry: m,
    score: (k) => value(m.score[k]), rowsScore: (k) => value(m.rows_score[k]),
    // the page's own BLEU leaves its leave-one-out scores to the systems (metrics_model.py)
    without: m.without ? (k, i) => value(m.without[k][i]) : (k, i) => d.systems[k].without[i],
    sentence: (k, i) => sentenceOf(m, k, i),
    document: m.documents ? (k, j) => value(m.documents[k][j]) : null};
}

// How much segment i moves Δ (B − A) of the metric: Δ(all) − Δ(all but i).
function metricContribution(metric, i) {
  const a = state.a, b = state.b;
  return (metric.rowsScore(b) - metric.rowsScore(a)) - (metric.without(b, i) - metric.without(a, i));
}

// Which system a difference of the metric favours: B when B − A is better.
function favoursB(metric, delta) { return metric.higherIsBetter ? delta > 0 : delta < 0; }
function deltaColor(metric, delta) { return favoursB(metric, delta) ? COLOR_B : COLOR_A; }

// The paired result of A and B for metric entry m: p, and the bootstrap interval of B − A.
function metricPair(m, a, b) {
  for (let j = 0; j < m.pairs.length; j++) {
    const [better, worse, p] = m.pairs[j];
    if (!((better === a && worse === b) || (better === b && worse === a))) continue;
    const interval = m.pair_delta ? m.pair_delta[j] : null;
    const sign = better === b ? 1 : -1;   // pair_delta is better − worse
    const ci = interval && interval[0] !== null && interval[1] !== null
      ? [sign * interval[0] - interval[1], sign * interval[0] + interval[1]] : null;
    return {p, ci};
  }
  return {p: null, ci: null};
}

function metricSelector(d) {
  if (!d.metrics) return null;
  return el("label", {class: "metric-picker"}, "explain the difference in ",
    el("select", {"data-control": "compare-metric", onchange: (e) => { state.cm = Number(e.target.value); update(); }},
      d.metrics.list.map((m, k) => el("option", {value: k, selected: k === state.cm}, text(metricLabel(m))))));
}

// Every metric's Δ (B − A), its paired bootstrap 95% interval and the p-value of the
// page's test, on all segments.
function renderMetricDeltas(root, d) {
  if (!d.metrics) return;
  const sig = d.metrics, alpha = d.significance.alpha;
  const rows = d.metrics.list.map((m) => {
    const digits = metricDigits(m), a = value0(m.score[state.a]), b = value0(m.score[state.b]);
    const {p, ci} = metricPair(m, state.a, state.b);
    return {m, a, b, delta: b - a, p, ci, digits};
  });
  const table = () => ({columns: [{label: "Metric"}, {label: "A", numeric: true}, {label: "B", numeric: true},
    {label: "\u0394 (B \u2212 A)", numeric: true}, {label: "95% CI of \u0394", numeric: true}, {label: "p-value", numeric: true}, {label: "favours"}],
  rows: rows.map((r) => [metricLabel(r.m), pyFixed(r.a, r.digits), pyFixed(r.b, r.digits), signed(r.delta, r.digits),
    r.ci ? `[${signed(r.ci[0], r.digits)}, ${signed(r.ci[1], r.digits)}]` : "\u2013",
    r.p === null ? "\u2013" : formatPValue(r.p, alpha).slice("p = ".length),
    r.delta === 0 ? "neither" : favoursB({higherIsBetter: r.m.higher_is_better}, r.delta) ? "B" : "A"])});
  const t = table();
  const nodes = t.rows.map((cells, r) => cells.map((c, j) => j === 6 && c !== "neither"
    ? el("span", {class: "favours " + c.toLowerCase()}, c) : c));
  const official = d.metrics.list.some((m) => m.official);
  root.appendChild(el("section", {class: "card", id: "metric-deltas"}, el("h2", null, "Every metric: B \u2212 A"),
    el("p", {class: "note"}, `\u0394 of each metric's corpus scores; its 95% interval from the paired bootstrap (${sig.n_samples} resamples, seed ${sig.seed}: the same draws for A and B) and the p-value of the page's ${sig.test === "bs" ? "paired bootstrap" : "approximate randomization"} test (truebleu API).` +
      (official ? " Where an official system score is given, \u0394 is of those scores while the interval and test are of the segment scores." : "")),
    el("div", {class: "toolbar"}, exportButtons(table, "metric-deltas", "Every metric's difference between B and A")),
    renderTable({columns: t.columns, rows: t.rows, nodes}, {class: "metric-deltas"})));
}

function value0(v) { return v === null || v === undefined ? NaN : v; }
