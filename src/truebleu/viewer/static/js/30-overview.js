// Systems overview: every system's corpus BLEU with its CI, precisions, BP,
// length ratio and significance cluster; sortable; pick any two as A and B.

const OVERVIEW_COLUMNS = [
  {key: "rank", label: "Rank", numeric: true, value: (s) => s.corpus.rank},
  {key: "name", label: "System", value: (s) => s.name},
  {key: "bleu", label: "BLEU", numeric: true, value: (s) => s.corpus.score},
  {key: "ci", label: "95% CI ±", numeric: true, value: (s) => s.corpus.ci, title: "half-width of the bootstrap 95% interval"},
  {key: "p", label: "p1/p2/p3/p4", value: (s) => s.corpus.precisions[0]},
  {key: "bp", label: "BP", numeric: true, value: (s) => s.corpus.bp},
  {key: "ratio", label: "ratio", numeric: true, value: (s) => s.corpus.ratio},
  {key: "hyp", label: "hyp_len", numeric: true, value: (s) => s.corpus.sys_len},
  {key: "ref", label: "ref_len", numeric: true, value: (s) => s.corpus.ref_len},
  {key: "cluster", label: "Cluster", numeric: true, value: (s) => s.corpus.cluster, title: "systems in one cluster are not significantly different"},
];

// Case-insensitive, then by code points: the same order on every machine.
function compareText(a, b) {
  const x = a.toLowerCase(), y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

function overviewRows(d) {
  const col = OVERVIEW_COLUMNS.find((c) => c.key === state.ovSort) || OVERVIEW_COLUMNS[2];
  const order = d.systems.map((s, k) => k);
  order.sort((x, y) => {
    const a = col.value(d.systems[x]), b = col.value(d.systems[y]);
    const c = typeof a === "string" ? compareText(a, b) : a - b;
    return (c || x - y) * state.ovDir;
  });
  return order;
}

function overviewTable(d, order) {
  return {
    columns: OVERVIEW_COLUMNS,
    rows: order.map((k) => {
      const s = d.systems[k], c = s.corpus;
      return [String(c.rank), s.name, pyFixed(c.score, 2), pyFixed(c.ci, 2),
        c.precisions.map((p) => pyFixed(p, 1)).join("/"), pyFixed(c.bp, 3), pyFixed(c.ratio, 3),
        String(c.sys_len), String(c.ref_len), String(c.cluster)];
    }),
  };
}

function renderOverview(root, d) {
  if (!bleuShown(d)) {   // no BLEU chosen: every metric's table and the primary metric's chart
    const order = renderMetricsOverview(root, d, true);                 // 32-metrics-overview.js
    renderMetricChart(root, d, order);                                  // 44-metric-exports.js
    return;
  }
  const order = overviewRows(d);
  const table = overviewTable(d, order);
  const sig = d.significance;
  const testName = sig.test === "bs" ? "paired bootstrap" : sig.test === "ar" ? "approximate randomization" : null;
  root.appendChild(el("section", {class: "card"},
    el("h2", null, "Systems"),
    el("p", {class: "signature"}, "Signature: ", el("code", {id: "signature"}, d.signature)),
    sig.note ? el("p", {class: "note", id: "significance-note"}, sig.note) : null,
    testName ? el("p", {class: "note"}, `Clusters: systems are ranked by BLEU and grouped while no pair in a group differs significantly (${testName}, ${sig.n_samples} samples, seed ${sig.seed}, α = ${sig.alpha}); 95% intervals from the bootstrap. Click a column to sort; choose A and B to compare.`) : null,
    el("div", {class: "toolbar"}, exportButtons(() => overviewTable(d, overviewRows(d)), "systems", "BLEU of each system")),
  ));
  const bleuCard = root.lastChild;
  if (d.metrics) renderMetricChart(root, d, renderMetricsOverview(root, d));  // 32-, 44-metric-exports.js
  const nodes = order.map((k) => {
    const s = d.systems[k], c = s.corpus;
    return [String(c.rank), el("span", null, systemPicks(k, order), " ", text(s.name)), pyFixed(c.score, 2), pyFixed(c.ci, 2),
      c.precisions.map((p) => pyFixed(p, 1)).join("/"), pyFixed(c.bp, 3), pyFixed(c.ratio, 3), String(c.sys_len), String(c.ref_len),
      el("span", {class: "cluster c" + (c.cluster % 6)}, String(c.cluster))];
  });
  const colIndex = OVERVIEW_COLUMNS.findIndex((c) => c.key === state.ovSort);
  const tableEl = renderTable({columns: OVERVIEW_COLUMNS, rows: table.rows, nodes}, {
    sortable: true, sortKey: colIndex, sortDir: state.ovDir, class: "systems", rowAttrs: (i) => ({
      class: (order[i] === state.a ? "is-a " : "") + (order[i] === state.b ? "is-b" : ""), "data-system": order[i]}),
    onSort: (k) => { const key = OVERVIEW_COLUMNS[k].key; state.ovDir = state.ovSort === key ? -state.ovDir : (key === "name" || key === "rank" ? 1 : -1); state.ovSort = key; update(); },
  });
  bleuCard.appendChild(el("div", {class: "scroll-x"}, tableEl));
  const chart = horizontalBarChart({
    valueLabel: "BLEU with 95% interval",
    rows: order.map((k) => ({label: d.systems[k].name, value: d.systems[k].corpus.score, ci: d.systems[k].corpus.ci,
      color: k === state.a ? "#d1722e" : k === state.b ? "#4a9b5a" : "#3b6fb6"})),
  });
  root.appendChild(el("section", {class: "card"}, el("h2", null, "BLEU and confidence intervals"),
    el("div", {class: "toolbar"}, svgExportButton(() => chart, "bleu-systems")), chart));
}
